// Reductions and softmax: argument checks, result dtypes and the output allocation, then
// one kernel call (src/kernels/cpu/reduce.cpp). Outputs are always fresh and contiguous.
#include <cmath>
#include <vector>

#include "autograd/function.h"
#include "ember/autocast.h"
#include "ember/complex.h"
#include "ember/ops.h"
#include "ember/sparse.h"
#include "ember/profiler.h"
#include "kernels/cpu/half.h"
#include "ember/record.h"
#include "kernels/cpu/reduce.h"
#include "ops/half_ops.h"
#include "ops/iter.h"

namespace ember {
namespace {

using kernels::ReduceOp;

// The kernel geometry of reducing t over the dims in `mask` into a contiguous output.
kernels::ReduceShape geometry(const Tensor& t, uint64_t mask) {
  Dims out_strides = contiguous_strides(reduced_shape(t.sizes(), mask, true));
  return kernels::ReduceShape(t.sizes(), t.strides(), out_strides, mask);
}

Tensor run_reduce(ReduceOp op, const Tensor& t, uint64_t mask, bool keepdim, DType out_dtype,
                  kernels::ReduceArgs args = {}) {
  const uint64_t all = t.dim() >= 64 ? ~uint64_t(0) : (uint64_t(1) << t.dim()) - 1;
  if (is_half(t.dtype()) && (op == ReduceOp::Sum || op == ReduceOp::Mean) && t.is_contiguous() &&
      (mask & all) == all && t.numel() > 0) {  // the whole tensor: widened in blocks, no copy
    Tensor out = Tensor::empty(reduced_shape(t.sizes(), mask, keepdim), DType::Float32);
    const float s = kernels::sum_half(t.dtype(), static_cast<const char*>(t.data_ptr()), t.numel());
    *out.data<float>() = op == ReduceOp::Mean ? s / float(t.numel()) : s;
    return ops::narrowed(out, out_dtype);
  }
  if (is_half(t.dtype()))  // Note [Half ops through float32]
    return ops::narrowed(run_reduce(op, ops::widened(t), mask, keepdim,
                                    ops::compute_dtype_of(out_dtype), args),
                         out_dtype);
  // uint16/uint32/uint64 (no reduction kernel of their own): sum and prod accumulate in int64,
  // as torch (a uint64 value from 2^63 up wraps, as there), any/all read them as bool; the
  // others (max, min, ...) refuse them in the kernel, as torch's.
  if (is_wide_unsigned(t.dtype()) && (op == ReduceOp::Sum || op == ReduceOp::Prod))
    return run_reduce(op, to_dtype(t, DType::Int64), mask, keepdim, out_dtype, args);
  if (is_wide_unsigned(t.dtype()) && (op == ReduceOp::Any || op == ReduceOp::All))
    return run_reduce(op, to_dtype(t, DType::Bool), mask, keepdim, out_dtype, args);
  Tensor out = Tensor::empty(reduced_shape(t.sizes(), mask, keepdim), out_dtype);
  kernels::reduce(op, t.dtype(), geometry(t, mask), t.data_ptr(), out.data_ptr(), args);
  return out;
}

uint64_t checked_mask(const Tensor& t, IntList dims, const char* op) {
  ops::check_defined(t, op);
  return dim_mask(dims, t.dim(), op);
}

// sum/mean of a complex tensor: the same reduction over its real view [..., 2], whose last
// dim is kept, viewed back as complex (the gradient flows through both views).
Tensor complex_reduce(const Tensor& t, uint64_t mask, bool keepdim, bool mean,
                      std::optional<DType> dtype) {
  Dims dims;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (mask >> d & 1) dims.push_back(d);
  Tensor a = dtype ? to_dtype(t, *dtype) : t;
  EMBER_CHECK(is_complex(a.dtype()), Error, mean ? "mean" : "sum",
              ": a complex input needs a "
              "complex dtype, got ",
              dtype_name(a.dtype()));
  if (dims.empty()) return clone(a);  // a 0-d tensor
  Tensor r = view_as_real(a);
  Tensor out = mean ? ember::mean(r, dims, keepdim) : ember::sum(r, dims, keepdim);
  return view_as_complex(out);
}

void check_floating(const Tensor& t, const char* op) {
  EMBER_CHECK(is_floating_point(t.dtype()), TypeError, op,
              ": expected a floating point tensor, got ", dtype_name(t.dtype()));
}

// Max-like reductions have no identity, so no reduced dim may be empty.
void check_nonempty(const Tensor& t, uint64_t mask, bool all_dims, const char* op) {
  EMBER_CHECK(!(all_dims && t.numel() == 0), Error, op, ": the input of shape ", t.sizes(),
              " is empty; specify the reduction dim with the 'dim' argument");
  for (int64_t d = 0; d < t.dim(); ++d)
    EMBER_CHECK(!((mask >> d & 1) && t.sizes()[d] == 0), IndexError, op,
                ": expected reduction dim ", d, " to have non-zero size (input shape ", t.sizes(),
                ")");
}

DType sum_dtype(DType dt) {
  if (is_complex(dt)) throw_unsupported_dtype(dt);  // sum/mean take complex before this
  return is_floating_point(dt) ? dt : DType::Int64;
}

// The dims mask of one optional dim: all dims when absent.
uint64_t one_dim_mask(const Tensor& t, std::optional<int64_t> dim, const char* op) {
  if (!dim) return checked_mask(t, {}, op);
  int64_t d = *dim;
  return checked_mask(t, IntList(&d, 1), op);
}

// max/min/argmax/argmin along one dim: values (optional) and int64 indices.
std::pair<Tensor, Tensor> arg_along(bool is_max, bool want_values, const Tensor& t, int64_t dim,
                                    bool keepdim, const char* op) {
  if (is_half(t.dtype())) {  // Note [Half ops through float32]
    auto [v, i] = arg_along(is_max, want_values, ops::widened(t), dim, keepdim, op);
    return {ops::narrowed(v, t.dtype()), i};
  }
  uint64_t mask = one_dim_mask(t, dim, op);
  check_nonempty(t, mask, false, op);
  Dims shape = reduced_shape(t.sizes(), mask, keepdim);
  Tensor values = want_values ? Tensor::empty(shape, t.dtype()) : Tensor();
  Tensor indices = Tensor::empty(shape, DType::Int64);
  kernels::arg_reduce(is_max, t.dtype(), geometry(t, mask), t.data_ptr(),
                      want_values ? values.data_ptr() : nullptr, indices.data<int64_t>());
  return {values, indices};
}

// argmax/argmin over all elements: the index into the flattened (row-major) tensor.
Tensor arg_all(bool is_max, const Tensor& t, bool keepdim, const char* op) {
  uint64_t mask = checked_mask(t, {}, op);
  check_nonempty(t, mask, true, op);
  Tensor c =
      contiguous(ops::widened(t));  // so the reduced dims coalesce into one run in logical order
  Tensor indices = Tensor::empty(reduced_shape(t.sizes(), mask, keepdim), DType::Int64);
  kernels::arg_reduce(is_max, c.dtype(), geometry(c, mask), c.data_ptr(), nullptr,
                      indices.data<int64_t>());
  return indices;
}

Tensor arg_reduce_op(bool is_max, const Tensor& t, std::optional<int64_t> dim, bool keepdim,
                     const char* op) {
  ops::check_defined(t, op);
  EMBER_CHECK(t.dtype() != DType::Bool, TypeError, op, ": does not support bool input");
  if (!dim) return arg_all(is_max, t, keepdim, op);
  return arg_along(is_max, false, t, *dim, keepdim, op).second;
}

Tensor extreme(ReduceOp op, const Tensor& t, IntList dims, bool keepdim, const char* name) {
  uint64_t mask = checked_mask(t, dims, name);
  check_nonempty(t, mask, dims.empty(), name);
  return run_reduce(op, t, mask, keepdim, t.dtype());
}

Tensor logical(ReduceOp op, const Tensor& t, IntList dims, bool keepdim, const char* name) {
  uint64_t mask = checked_mask(t, dims, name);
  return run_reduce(op, t, mask, keepdim, t.dtype() == DType::UInt8 ? DType::UInt8 : DType::Bool);
}

Tensor var_std(ReduceOp op, const Tensor& t, IntList dims, double correction, bool keepdim,
               const char* name) {
  uint64_t mask = checked_mask(t, dims, name);
  check_floating(t, name);
  kernels::ReduceArgs args;
  args.correction = correction;
  return run_reduce(op, t, mask, keepdim, t.dtype(), args);
}

Tensor softmax_impl(const Tensor& t, int64_t dim, bool log, const char* name) {
  ops::check_defined(t, name);
  check_floating(t, name);
  int64_t d = wrap_dim(dim, t.dim(), name);
  int64_t outer = 1, n = 1, inner = 1;
  if (t.dim() > 0) {
    n = t.sizes()[d];
    for (int64_t i = 0; i < d; ++i) outer *= t.sizes()[i];
    for (int64_t i = d + 1; i < t.dim(); ++i) inner *= t.sizes()[i];
  }
  if (is_half(t.dtype()) && inner != 1)  // Note [Half ops through float32]
    return ops::narrowed(softmax_impl(ops::widened(t), dim, log, name), t.dtype());
  Tensor c = contiguous(t);
  Tensor out = Tensor::empty(t.sizes(), t.dtype());
  kernels::softmax(t.dtype(), c.data_ptr(), out.data_ptr(), outer, n, inner, log);
  return out;
}

void record_softmax(const Tensor& t, const Tensor& out, int64_t dim, bool log);

// ---- gradients ------------------------------------------------------------------------
// A reduction's gradient is the output gradient broadcast back over the reduced dims,
// times the derivative of the reduction at each input element. All written with ops, so
// they are differentiable again (create_graph).
using autograd::SavedTensor;

// g (or an output) in keepdim form, broadcast back to the input's shape.
Tensor expand_back(const Tensor& g, const Dims& shape, uint64_t mask, bool keepdim) {
  Tensor r = keepdim ? g : reshape(g, reduced_shape(shape, mask, true));
  return expand(r, shape);
}

Dims mask_dims(uint64_t mask, int64_t ndim) {
  Dims d;
  for (int64_t i = 0; i < ndim; ++i)
    if (mask >> i & 1) d.push_back(i);
  return d;
}

int64_t reduced_count(const Dims& shape, uint64_t mask) {
  int64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i)
    if (mask >> i & 1) n *= shape[i];
  return n;
}

// Records `name` for out = reduce(t); fn(g_expanded, x, out_expanded) gives the input grad.
template <class F>
void record_reduce(const char* name, const Tensor& t, const Tensor& out, uint64_t mask,
                   bool keepdim, bool save_input, bool save_output, F fn) {
  if (!autograd::any_requires_grad(t)) return;
  autograd::record(name, {&t}, {&out},
                   [fn, mask, keepdim, shape = Dims(t.sizes()), dt = t.dtype(),
                    sx = save_input ? SavedTensor(t) : SavedTensor(),
                    so = save_output ? SavedTensor(out, true)
                                     : SavedTensor()](Grads& g, const Node&) -> Grads {
                     Tensor o = so.get();
                     Tensor ge = expand_back(g[0], shape, mask, keepdim);
                     Tensor oe = o.defined() ? expand_back(o, shape, mask, keepdim) : o;
                     Tensor r = fn(ge, sx.get(), oe);
                     return {r.dtype() == dt ? r : to_dtype(r, dt)};
                   });
}

// max/min/amax/amin (op Max or Min) over dims, with the gradient node `node`: the gradient
// goes to the elements equal to the result, split evenly among ties (PyTorch's rule for
// reductions without indices).
Tensor extreme_op(ReduceOp op, const Tensor& t, IntList dims, bool keepdim, const char* name,
                  const char* node) {
  Tensor out = extreme(op, t, dims, keepdim, name);
  const uint64_t mask = dim_mask(dims, t.dim(), name);
  record_reduce(node, t, out, mask, keepdim, true, true,
                [mask](const Tensor& ge, const Tensor& x, const Tensor& oe) {
                  Tensor hit = to_dtype(eq(x, oe), x.dtype());
                  Tensor count = sum(hit, mask_dims(mask, x.dim()), true);
                  return div(mul(ge, hit), count);
                });
  return out;
}

void record_norm(const Tensor& t, const Tensor& out, uint64_t mask, bool keepdim, double p) {
  record_reduce("NormBackward1", t, out, mask, keepdim, true, true,
                [p, mask](const Tensor& ge, const Tensor& x, const Tensor& oe) {
                  if (p == 0) return zeros(x.sizes(), x.dtype());
                  if (p == 1) return mul(ge, sign(x));
                  Tensor zero_norm = eq(oe, Scalar(0.0));
                  if (std::isinf(p)) {
                    Tensor hit = to_dtype(eq(abs(x), oe), x.dtype());
                    Tensor count = sum(hit, mask_dims(mask, x.dim()), true);
                    return div(mul(mul(ge, sign(x)), hit), count);
                  }
                  Tensor r = p == 2 ? div(mul(ge, x), oe)
                                    : div(mul(mul(ge, x), pow(abs(x), Scalar(p - 2))),
                                          pow(oe, Scalar(p - 1)));
                  return masked_fill(r, zero_norm, Scalar(0.0));
                });
}

// (log_)softmax's gradient along the last dim of a contiguous y, in one pass. A recorded
// call of its own (Note [Expanded backward] in docs/compile.md).
Tensor softmax_rows_backward(const Tensor& g, const Tensor& y, bool log) {
  EMBER_RECORD(softmax_rows_backward, g, y, log);
  Tensor gc = contiguous(g);
  Tensor gx = Tensor::empty(y.sizes(), y.dtype());
  const int64_t n = y.sizes()[size_t(y.dim() - 1)];
  kernels::softmax_backward(y.dtype(), gc.data_ptr(), y.data_ptr(), gx.data_ptr(),
                            n ? y.numel() / n : 0, n, log);
  return gx;
}

void record_softmax(const Tensor& t, const Tensor& out, int64_t dim, bool log) {
  if (!autograd::any_requires_grad(t)) return;
  autograd::record(log ? "LogSoftmaxBackward0" : "SoftmaxBackward0", {&t}, {&out},
                   [dim, log, so = SavedTensor(out, true)](Grads& g, const Node&) -> Grads {
                     Tensor y = so.get();
                     int64_t d = y.dim() == 0 ? 0 : dim;
                     Dims dd{d};
                     if (y.dim() == 0) return {mul(g[0], Scalar(0.0))};
                     // Rows along the last dim (attention, logits): one fused pass, unless
                     // create_graph (Note [Fused backward and create_graph]).
                     if (d == y.dim() - 1 && !GradMode::is_enabled() && g[0].dtype() == y.dtype() &&
                         g[0].sizes() == y.sizes() && is_floating(y.dtype()) && y.is_contiguous()) {
                       return {softmax_rows_backward(g[0], y, log)};
                     }
                     if (log) return {sub(g[0], mul(exp(y), sum(g[0], dd, true)))};
                     return {mul(y, sub(g[0], sum(mul(g[0], y), dd, true)))};
                   });
}

}  // namespace

namespace {
// A reduction over all elements may end a fused chain (src/capture/fusion.cpp).
capture::Fusable fuse_reduce(bool over_all, ReduceOp op) {
  capture::Fusable f;
  if (!over_all) return f;
  f.kind = capture::Fusable::Kind::Reduce;
  f.op = int(op);
  return f;
}
}  // namespace

Tensor sum(const Tensor& t, IntList dims, bool keepdim, std::optional<DType> dtype) {
  // A sparse tensor's total is its values' (duplicates included); as torch, the gradient is
  // the dense one of the sum (g everywhere).
  if (t.defined() && t.is_sparse() && dims.empty() && !keepdim) {
    Tensor out;
    {
      NoGradGuard no_grad;
      out = sum(t.sparse_values(), {}, false, dtype);
    }
    if (autograd::any_requires_grad(t))
      autograd::record("SumBackward0", {&t}, {&out},
                       [sizes = Dims(t.sizes()), dt = t.dtype()](Grads& g, const Node&) -> Grads {
                         return {add(zeros(sizes, dt), to_dtype(g[0], dt))};
                       });
    return out;
  }
  EMBER_RECORD_FUSABLE(sum, fuse_reduce(dims.empty() && !keepdim && !dtype, ReduceOp::Sum), t, dims,
                       keepdim, dtype);
  EMBER_PROFILE_OP("sum");
  uint64_t mask = checked_mask(t, dims, "sum");
  if (is_complex(t.dtype()) || (dtype && is_complex(*dtype)))
    return complex_reduce(t, mask, keepdim, false, dtype);
  // torch 2.13 has no sum kernel for uint16/uint32/uint64 ("sum_cpu" not implemented)
  if (dtype && is_wide_unsigned(*dtype)) throw_unsupported_dtype(*dtype);
  // sum(dtype=d): PyTorch converts the input to d first and returns d.
  if (dtype && *dtype != sum_dtype(t.dtype())) {
    Tensor a = to_dtype(t, *dtype);  // records ToCopyBackward when t requires grad
    Tensor out =
        to_dtype(run_reduce(ReduceOp::Sum, a, mask, keepdim, sum_dtype(a.dtype())), *dtype);
    record_reduce("SumBackward1", a, out, mask, keepdim, false, false,
                  [](const Tensor& ge, const Tensor&, const Tensor&) { return ge; });
    return out;
  }
  Tensor out = run_reduce(ReduceOp::Sum, t, mask, keepdim, sum_dtype(t.dtype()));
  record_reduce(dims.empty() ? "SumBackward0" : "SumBackward1", t, out, mask, keepdim, false, false,
                [](const Tensor& ge, const Tensor&, const Tensor&) { return ge; });
  return out;
}

Tensor mean(const Tensor& t, IntList dims, bool keepdim) {
  EMBER_RECORD_FUSABLE(mean, fuse_reduce(dims.empty() && !keepdim, ReduceOp::Mean), t, dims,
                       keepdim);
  EMBER_PROFILE_OP("mean");
  uint64_t mask = checked_mask(t, dims, "mean");
  if (is_complex(t.dtype())) return complex_reduce(t, mask, keepdim, true, std::nullopt);
  EMBER_CHECK(is_floating_point(t.dtype()), TypeError,
              "mean: expected a floating point input, got ", dtype_name(t.dtype()),
              "; convert it first (e.g. t.float().mean())");
  Tensor out = run_reduce(ReduceOp::Mean, t, mask, keepdim, t.dtype());
  double n = double(reduced_count(t.sizes(), mask));
  record_reduce(dims.empty() ? "MeanBackward0" : "MeanBackward1", t, out, mask, keepdim, false,
                false,
                [n](const Tensor& ge, const Tensor&, const Tensor&) { return div(ge, Scalar(n)); });
  return out;
}

Tensor prod(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  EMBER_RECORD(prod, t, dim, keepdim);
  EMBER_PROFILE_OP("prod");
  if (autocast::is_enabled()) {  // Note [Autocast]: a float32 op
    autocast::Suspend off;
    return prod(autocast::fp32(t), dim, keepdim);
  }
  uint64_t mask = one_dim_mask(t, dim, "prod");
  Tensor out = run_reduce(ReduceOp::Prod, t, mask, keepdim, sum_dtype(t.dtype()));
  // d prod / d x_i = product of the others: out / x_i, except where x_i == 0, where it is
  // the product of the nonzero others if x_i is the only zero, else 0.
  record_reduce(dim ? "ProdBackward1" : "ProdBackward0", t, out, mask, keepdim, true, true,
                [dim](const Tensor& ge, const Tensor& x, const Tensor& oe) {
                  Tensor zero = eq(x, Scalar(0.0));
                  Tensor others = prod(masked_fill(x, zero, Scalar(1.0)), dim, true);
                  Tensor count = sum(zero, dim ? Dims{*dim} : Dims{}, true);
                  Tensor at_zero = masked_fill(others, ne(count, Scalar(int64_t(1))), Scalar(0.0));
                  return mul(ge, where(zero, expand(at_zero, x.sizes()), div(oe, x)));
                });
  return out;
}

Tensor amax(const Tensor& t, IntList dims, bool keepdim) {
  EMBER_RECORD(amax, t, dims, keepdim);
  EMBER_PROFILE_OP("amax");
  return extreme_op(ReduceOp::Max, t, dims, keepdim, "amax", "AmaxBackward0");
}
Tensor amin(const Tensor& t, IntList dims, bool keepdim) {
  EMBER_RECORD(amin, t, dims, keepdim);
  EMBER_PROFILE_OP("amin");
  return extreme_op(ReduceOp::Min, t, dims, keepdim, "amin", "AminBackward0");
}
Tensor max(const Tensor& t) {
  EMBER_RECORD(max, t);
  EMBER_PROFILE_OP("max");
  return extreme_op(ReduceOp::Max, t, {}, false, "max", "MaxBackward1");
}
Tensor min(const Tensor& t) {
  EMBER_RECORD(min, t);
  EMBER_PROFILE_OP("min");
  return extreme_op(ReduceOp::Min, t, {}, false, "min", "MinBackward1");
}

namespace {
// max/min along a dim: the gradient goes to the element each index points at.
void record_indexed(const char* name, const Tensor& t, const Tensor& values, const Tensor& indices,
                    int64_t dim, bool keepdim) {
  if (!autograd::any_requires_grad(t)) return;
  int64_t d = t.dim() == 0 ? 0 : wrap_dim(dim, t.dim(), name);
  autograd::record(name, {&t}, {&values},
                   [d, keepdim, idx = indices, shape = Dims(t.sizes()),
                    dt = t.dtype()](Grads& g, const Node&) -> Grads {
                     if (shape.empty()) return {g[0]};
                     Tensor gi = keepdim ? g[0] : unsqueeze(g[0], d);
                     Tensor ii = keepdim ? idx : unsqueeze(idx, d);
                     return {scatter(zeros(shape, dt), d, ii, gi)};
                   });
}
}  // namespace

std::pair<Tensor, Tensor> max(const Tensor& t, int64_t dim, bool keepdim) {
  EMBER_RECORD(max, t, dim, keepdim);
  EMBER_PROFILE_OP("max");
  ops::check_defined(t, "max");
  auto r = arg_along(true, true, t, dim, keepdim, "max");
  record_indexed("MaxBackward0", t, r.first, r.second, dim, keepdim);
  return r;
}
std::pair<Tensor, Tensor> min(const Tensor& t, int64_t dim, bool keepdim) {
  EMBER_RECORD(min, t, dim, keepdim);
  EMBER_PROFILE_OP("min");
  ops::check_defined(t, "min");
  auto r = arg_along(false, true, t, dim, keepdim, "min");
  record_indexed("MinBackward0", t, r.first, r.second, dim, keepdim);
  return r;
}

Tensor argmax(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  EMBER_RECORD(argmax, t, dim, keepdim);
  EMBER_PROFILE_OP("argmax");
  return arg_reduce_op(true, t, dim, keepdim, "argmax");
}
Tensor argmin(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  EMBER_RECORD(argmin, t, dim, keepdim);
  EMBER_PROFILE_OP("argmin");
  return arg_reduce_op(false, t, dim, keepdim, "argmin");
}

namespace {
// var or std (op) over dims, with its gradient: d var / d x_i = 2 (x_i - mean) / (n -
// correction); std divides that by 2 std.
Tensor var_std_op(ReduceOp op, const Tensor& t, IntList dims, double correction, bool keepdim) {
  const bool is_std = op == ReduceOp::Std;
  const char* name = is_std ? "std" : "var";
  Tensor out = var_std(op, t, dims, correction, keepdim, name);
  uint64_t mask = dim_mask(dims, t.dim(), name);
  double n = double(reduced_count(t.sizes(), mask)) - correction;
  Dims dd = mask_dims(mask, t.dim());
  record_reduce(is_std ? "StdBackward0" : "VarBackward0", t, out, mask, keepdim, true, is_std,
                [is_std, n, dd](const Tensor& ge, const Tensor& x, const Tensor& oe) {
                  Tensor centered = sub(x, mean(x, dd, true));
                  if (is_std)  // 0 where std == 0, as in PyTorch
                    return masked_fill(div(mul(ge, centered), mul(oe, Scalar(n))),
                                       eq(oe, Scalar(0.0)), Scalar(0.0));
                  return mul(ge, mul(centered, Scalar(2.0 / n)));
                });
  return out;
}
}  // namespace

Tensor var(const Tensor& t, IntList dims, double correction, bool keepdim) {
  EMBER_RECORD(var, t, dims, correction, keepdim);
  EMBER_PROFILE_OP("var");
  return var_std_op(ReduceOp::Var, t, dims, correction, keepdim);
}
Tensor std(const Tensor& t, IntList dims, double correction, bool keepdim) {
  EMBER_RECORD(std, t, dims, correction, keepdim);
  EMBER_PROFILE_OP("std");
  return var_std_op(ReduceOp::Std, t, dims, correction, keepdim);
}

Tensor norm(const Tensor& t, double p, IntList dims, bool keepdim) {
  EMBER_RECORD(norm, t, p, dims, keepdim);
  EMBER_PROFILE_OP("norm");
  uint64_t mask = checked_mask(t, dims, "norm");
  check_floating(t, "norm");
  EMBER_CHECK(!std::isnan(p), ValueError, "norm: p must be a number, got nan");
  // The inf norms are max/min of |x|: no identity, so (like PyTorch) no empty reduction.
  if (std::isinf(p)) check_nonempty(t, mask, dims.empty(), "norm");
  kernels::ReduceArgs args;
  args.p = p;
  Tensor out = run_reduce(ReduceOp::Norm, t, mask, keepdim, t.dtype(), args);
  record_norm(t, out, mask, keepdim, p);
  return out;
}

Tensor logsumexp(const Tensor& t, IntList dims, bool keepdim) {
  EMBER_RECORD(logsumexp, t, dims, keepdim);
  EMBER_PROFILE_OP("logsumexp");
  uint64_t mask = checked_mask(t, dims, "logsumexp");
  // Integer and bool inputs compute in float32, as in PyTorch.
  Tensor a = to_dtype(t, real_float_dtype(t.dtype()));
  Tensor out = run_reduce(ReduceOp::LogSumExp, a, mask, keepdim, a.dtype());
  record_reduce("LogsumexpBackward0", a, out, mask, keepdim, true, true,
                [](const Tensor& ge, const Tensor& x, const Tensor& oe) {
                  return mul(ge, exp(sub(x, oe)));
                });
  return out;
}

Tensor all(const Tensor& t, IntList dims, bool keepdim) {
  EMBER_RECORD(all, t, dims, keepdim);
  EMBER_PROFILE_OP("all");
  return logical(ReduceOp::All, t, dims, keepdim, "all");
}
Tensor any(const Tensor& t, IntList dims, bool keepdim) {
  EMBER_RECORD(any, t, dims, keepdim);
  EMBER_PROFILE_OP("any");
  return logical(ReduceOp::Any, t, dims, keepdim, "any");
}

Tensor softmax(const Tensor& t, int64_t dim) {
  EMBER_RECORD(softmax, t, dim);
  EMBER_PROFILE_OP("softmax");
  Tensor out = softmax_impl(t, dim, false, "softmax");
  record_softmax(t, out, wrap_dim(dim, t.dim(), "softmax"), false);
  return out;
}
Tensor log_softmax(const Tensor& t, int64_t dim) {
  EMBER_RECORD(log_softmax, t, dim);
  EMBER_PROFILE_OP("log_softmax");
  Tensor out = softmax_impl(t, dim, true, "log_softmax");
  record_softmax(t, out, wrap_dim(dim, t.dim(), "log_softmax"), true);
  return out;
}

}  // namespace ember
