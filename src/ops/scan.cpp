// Scans (cumsum, cumprod), flip, roll and the triangles (tril, triu).
#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/scan.h"
#include "ops/half_ops.h"
#include "ops/iter.h"
#include "ops/rows.h"

namespace ember {

using autograd::SavedTensor;

namespace {

Tensor int_range(int64_t n) {
  return arange(Scalar(int64_t(0)), Scalar(n), Scalar(int64_t(1)), DType::Int64);
}

// Integer and bool inputs scan in int64 unless a dtype is asked for (torch's rule).
DType scan_dtype(const Tensor& t, std::optional<DType> dtype) {
  if (is_complex(t.dtype()) || (dtype && is_complex(*dtype))) throw_unsupported_dtype(t.dtype());
  if (dtype) return *dtype;
  return is_floating_point(t.dtype()) ? t.dtype() : DType::Int64;
}

// x scanned along d into a fresh tensor by `kernel` (cumsum or cumprod).
template <class K>
Tensor scan_out(const Tensor& x, int64_t d, K kernel) {
  if (is_half(x.dtype()))  // a float32 running sum/product, each output rounded once
    return ops::narrowed(scan_out(ops::widened(x), d, kernel), x.dtype());
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  kernel(x.dtype(), ops::row_loop(x.sizes(), d, {&out, &x}), x.size(d), ops::byte_step(out, d),
         ops::byte_step(x, d));
  return out;
}

// cumprod's gradient with ops only (so it is differentiable again, for create_graph), exact
// with zeros: gx[k] = prod_{i<k} x[i] * sum_{j>=k} g[j] prod_{k<i<=j} x[i]. The inner
// products form an (n, n) matrix per row: O(n^2), as PyTorch's double-backward formula.
Tensor cumprod_backward_ops(const Tensor& g, const Tensor& x, int64_t d) {
  const int64_t n = x.size(d);
  if (n == 0) return zeros(x.sizes(), x.dtype());
  Tensor X = transpose(x, d, -1), G = transpose(g, d, -1);
  Tensor j = view(int_range(n), Dims{1, n}), k = view(int_range(n), Dims{n, 1});
  Tensor one = scalar_tensor(Scalar(1.0), x.dtype());
  // P[k][j] = prod_{k < i <= j} x[i] (an empty product, 1, for j <= k).
  Tensor P = cumprod(where(gt(j, k), unsqueeze(X, -2), one), -1);
  Tensor S = sum(where(ge(j, k), mul(unsqueeze(G, -2), P), zeros({}, x.dtype())), {-1});
  Dims first(X.sizes());
  first[first.size() - 1] = 1;
  Tensor E = cumprod(cat({ones(first, x.dtype()), narrow(X, -1, 0, n - 1)}, -1), -1);
  return transpose(mul(E, S), d, -1);
}

Tensor cumprod_backward(const Tensor& g, const Tensor& x, int64_t d) {
  if (GradMode::is_enabled()) return cumprod_backward_ops(g, x, d);
  // One O(n) pass per row (not itself differentiable, hence the branch above).
  const Tensor X = ops::widened(x);  // half: in float32 (Note [Half ops through float32])
  Tensor G = to_dtype(g, X.dtype());
  Tensor gx = Tensor::empty(x.sizes(), X.dtype());
  kernels::cumprod_backward(X.dtype(), ops::row_loop(x.sizes(), d, {&gx, &X, &G}), x.size(d),
                            ops::byte_step(gx, d), ops::byte_step(X, d), ops::byte_step(G, d));
  return ops::narrowed(gx, x.dtype());
}

}  // namespace

Tensor cumsum(const Tensor& t, int64_t dim, std::optional<DType> dtype) {
  EMBER_RECORD(cumsum, t, dim, dtype);
  EMBER_PROFILE_OP("cumsum");
  ops::check_defined(t, "cumsum");
  if (t.dim() == 0) {
    wrap_dim(dim, 1, "cumsum");
    return reshape(cumsum(reshape(t, Dims{1}), 0, dtype), Dims{});
  }
  const int64_t d = wrap_dim(dim, t.dim(), "cumsum");
  Tensor x = to_dtype(t, scan_dtype(t, dtype));
  Tensor out = scan_out(x, d, kernels::cumsum);
  if (autograd::any_requires_grad(x)) {
    // The sum from the end: flip, scan, flip back.
    autograd::record("CumsumBackward0", {&x}, {&out}, [d](Grads& g, const Node&) -> Grads {
      return {flip(cumsum(flip(g[0], {d}), d), {d})};
    });
  }
  return out;
}

Tensor cumprod(const Tensor& t, int64_t dim, std::optional<DType> dtype) {
  EMBER_RECORD(cumprod, t, dim, dtype);
  EMBER_PROFILE_OP("cumprod");
  ops::check_defined(t, "cumprod");
  if (t.dim() == 0) {
    wrap_dim(dim, 1, "cumprod");
    return reshape(cumprod(reshape(t, Dims{1}), 0, dtype), Dims{});
  }
  const int64_t d = wrap_dim(dim, t.dim(), "cumprod");
  Tensor x = to_dtype(t, scan_dtype(t, dtype));
  Tensor out = scan_out(x, d, kernels::cumprod);
  if (autograd::any_requires_grad(x)) {
    autograd::record("CumprodBackward0", {&x}, {&out},
                     [d, sx = SavedTensor(x)](Grads& g, const Node&) -> Grads {
                       return {cumprod_backward(g[0], sx.get(), d)};
                     });
  }
  return out;
}

// The scan out of place (it is computed in int64 for integers), then copied into t.
Tensor& cumsum_(Tensor& t, int64_t dim, std::optional<DType> dtype) {
  EMBER_RECORD(cumsum_, t, dim, dtype);
  EMBER_PROFILE_OP("cumsum_");
  ops::check_defined(t, "cumsum_");
  if (autograd::any_requires_grad(t))
    return autograd::apply_inplace(t, "cumsum_",
                                   [&](const Tensor& x) { return cumsum(x, dim, dtype); });
  ops::check_no_internal_overlap(t, "cumsum_");
  return copy_(t, cumsum(t, dim, dtype));
}

Tensor& cumprod_(Tensor& t, int64_t dim, std::optional<DType> dtype) {
  EMBER_RECORD(cumprod_, t, dim, dtype);
  EMBER_PROFILE_OP("cumprod_");
  ops::check_defined(t, "cumprod_");
  if (autograd::any_requires_grad(t))
    return autograd::apply_inplace(t, "cumprod_",
                                   [&](const Tensor& x) { return cumprod(x, dim, dtype); });
  ops::check_no_internal_overlap(t, "cumprod_");
  return copy_(t, cumprod(t, dim, dtype));
}

// ---- tril / triu ----------------------------------------------------------------------
namespace {

// True where the triangle op zeroes: above diagonal `diagonal` (tril), below it (triu).
Tensor outside_triangle(const Tensor& t, int64_t diagonal, bool lower, const char* name) {
  ops::check_defined(t, name);
  EMBER_CHECK(t.dim() >= 2, Error, name,
              ": input tensor must have at least 2 dimensions, got "
              "shape ",
              t.sizes());
  const int64_t rows = t.size(-2), cols = t.size(-1);
  Tensor offset = sub(view(int_range(cols), Dims{1, cols}), view(int_range(rows), Dims{rows, 1}));
  return lower ? gt(offset, Scalar(diagonal)) : lt(offset, Scalar(diagonal));
}

}  // namespace

// masked_fill records the backward: the gradient is the same triangle of g.
Tensor tril(const Tensor& t, int64_t diagonal) {
  EMBER_RECORD(tril, t, diagonal);
  EMBER_PROFILE_OP("tril");
  return masked_fill(t, outside_triangle(t, diagonal, true, "tril"), Scalar(int64_t(0)));
}
Tensor triu(const Tensor& t, int64_t diagonal) {
  EMBER_RECORD(triu, t, diagonal);
  EMBER_PROFILE_OP("triu");
  return masked_fill(t, outside_triangle(t, diagonal, false, "triu"), Scalar(int64_t(0)));
}
Tensor& tril_(Tensor& t, int64_t diagonal) {
  EMBER_RECORD(tril_, t, diagonal);
  EMBER_PROFILE_OP("tril_");
  return masked_fill_(t, outside_triangle(t, diagonal, true, "tril_"), Scalar(int64_t(0)));
}
Tensor& triu_(Tensor& t, int64_t diagonal) {
  EMBER_RECORD(triu_, t, diagonal);
  EMBER_PROFILE_OP("triu_");
  return masked_fill_(t, outside_triangle(t, diagonal, false, "triu_"), Scalar(int64_t(0)));
}

// ---- flip / roll ----------------------------------------------------------------------
Tensor flip(const Tensor& t, IntList dims) {
  EMBER_RECORD(flip, t, dims);
  EMBER_PROFILE_OP("flip");
  ops::check_defined(t, "flip");
  uint64_t mask = 0;
  for (int64_t dim : dims) {
    const int64_t d = wrap_dim(dim, t.dim(), "flip");
    EMBER_CHECK(!(mask & (uint64_t(1) << d)), Error, "flip: dim ", d,
                " appears multiple times in the list of dims ", dims);
    mask |= uint64_t(1) << d;
  }
  Tensor out = Tensor::empty(t.sizes(), t.dtype());
  if (t.numel() > 0) {
    // One copy that reads t backwards along the flipped dims (negative strides).
    Dims strides(t.strides());
    char* start = t.data_ptr();
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (!(mask & (uint64_t(1) << d))) continue;
      start += (t.size(d) - 1) * t.stride(d) * int64_t(t.itemsize());
      strides[size_t(d)] = -strides[size_t(d)];
    }
    const int64_t isz = int64_t(t.itemsize());
    kernels::Operand ops[2] = {{out.data_ptr(), out.strides(), isz}, {start, strides, isz}};
    kernels::cast(t.dtype(), t.dtype(),
                  kernels::Loop(t.sizes(), std::span<const kernels::Operand>(ops, 2)));
  }
  if (autograd::any_requires_grad(t)) {
    autograd::record("FlipBackward0", {&t}, {&out},
                     [d = Dims(dims)](Grads& g, const Node&) -> Grads { return {flip(g[0], d)}; });
  }
  return out;
}

// Built from narrow + cat, which record the backward (a roll by -shifts).
Tensor roll(const Tensor& t, IntList shifts, IntList dims) {
  EMBER_RECORD(roll, t, shifts, dims);
  EMBER_PROFILE_OP("roll");
  ops::check_defined(t, "roll");
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1, Error, "roll: without dims, shifts must hold one value, got ",
                shifts);
    return reshape(roll(flatten(t), shifts, Dims{0}), t.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(), Error, "roll: shifts and dims must align: got shifts ",
              shifts, " and dims ", dims);
  Tensor out = t;
  EMBER_CHECK(t.dim() > 0, IndexError, "roll: dims ", dims, " given for a 0-d tensor");
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], t.dim(), "roll"), n = t.size(d);
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;
    if (s != 0) out = cat({narrow(out, d, n - s, s), narrow(out, d, 0, n - s)}, d);
  }
  return out.is_same(t) ? clone(t) : out;
}

}  // namespace ember
