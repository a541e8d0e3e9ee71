// index_select, gather, scatter, scatter_add, take_along_dim, nonzero, masked_select.
// The first four are IndexLoops (Note [Index loop]) with one index operand along `dim`;
// nonzero and masked_select are two-pass parallel compactions of a bool mask.
#include <algorithm>

#include "autograd/function.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "ops/indexing.h"
#include "ops/iter.h"

namespace ember {
namespace {

// gather/scatter treat a 0-d tensor as a 1-d tensor of one element, as PyTorch does.
int64_t size_at(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[size_t(d)]; }
int64_t stride_at(const Tensor& t, int64_t d) { return t.dim() == 0 ? 0 : t.strides()[size_t(d)]; }
int64_t rank(const Tensor& t) { return std::max<int64_t>(t.dim(), 1); }

}  // namespace

// The IndexLoop over the index's shape that gather and scatter share: position p touches
// t at p with p[dim] replaced by idx[p].
kernels::IndexLoop ops::along_dim(const Tensor& t, int64_t dim, const Tensor& idx) {
  const int64_t isz = int64_t(t.itemsize());
  kernels::IndexLoop L;
  L.shape = idx.sizes();
  L.data = t.data_ptr();
  L.itemsize = isz;
  for (int64_t d = 0; d < idx.dim(); ++d)
    L.data_strides.push_back(d == dim ? 0 : stride_at(t, d) * isz);
  L.idx.push_back({idx.data_ptr(), ops::byte_strides(idx.strides(), 8), size_at(t, dim),
                   stride_at(t, dim) * isz});
  return L;
}

// The shape rules of gather (src == nullptr) and scatter: same rank everywhere, and the
// index no larger than src in every dim and than t in every dim but `dim`.
void ops::check_gather_shapes(const char* op, const Tensor& t, int64_t dim, const Tensor& idx,
                              const Tensor* src) {
  EMBER_CHECK(rank(idx) == rank(t) && (!src || rank(*src) == rank(t)), ValueError, op,
              ": index tensor must have the same number of dimensions as the input tensor",
              src ? " and src" : "", " (got index ", idx.sizes(), ", input ", t.sizes(),
              src ? ", src " : "", src ? src->sizes() : Dims(), ")");
  for (int64_t d = 0; d < idx.dim(); ++d) {
    EMBER_CHECK(d == dim || idx.sizes()[size_t(d)] <= size_at(t, d), ValueError, op,
                ": size does not match at dimension ", d, ": expected index ", idx.sizes(),
                " to be no larger than input ", t.sizes(), " apart from dimension ", dim);
    EMBER_CHECK(!src || idx.sizes()[size_t(d)] <= size_at(*src, d), ValueError, op,
                ": size does not match at dimension ", d, ": expected index ", idx.sizes(),
                " to be no larger than src ", src->sizes());
  }
}

namespace {

using ops::along_dim;
using ops::check_gather_shapes;

Tensor& scatter_impl(const char* op, Tensor& t, int64_t dim, const Tensor& index, const Tensor* src,
                     Scalar value, bool accumulate) {
  ops::check_defined(t, op);
  ops::check_defined(index, op);
  if (src) ops::check_defined(*src, op);
  else ops::check_scalar_fits(t.dtype(), value, op);
  Tensor idx = ops::index_int64(index, op);
  const int64_t d = wrap_dim(dim, t.dim(), op);
  check_gather_shapes(op, t, d, idx, src);
  EMBER_CHECK(!src || src->dtype() == t.dtype(), TypeError, op,
              ": expected self and src to have the same dtype, got ", dtype_name(t.dtype()),
              " and ", dtype_name(src->dtype()));
  kernels::IndexLoop L;
  alignas(16) char buf[16];  // complex128 is 16 bytes
  Tensor s;
  if (idx.numel() > 0) {
    ops::check_index_range(idx, size_at(t, d), d, false, op);  // before the first write
    if (idx.storage() == t.storage()) idx = clone(idx);
    L = along_dim(t, d, idx);
    if (src) {
      s = src->storage() == t.storage() ? clone(*src) : *src;
      L.vals = s.data_ptr();
      for (int64_t k = 0; k < idx.dim(); ++k)
        L.vals_strides.push_back(stride_at(s, k) * L.itemsize);
    } else {
      ops::store_scalar(t.dtype(), value, buf);
      L.vals = buf;
      L.vals_strides = Dims(size_t(idx.dim()), 0);
    }
    kernels::index_put(L, t.dtype(), accumulate);
  }
  t.bump_version();
  return t;
}

}  // namespace

Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index) {
  EMBER_RECORD(index_select, t, dim, index);
  EMBER_PROFILE_OP("index_select");
  ops::check_defined(t, "index_select");
  ops::check_defined(index, "index_select");
  EMBER_CHECK(index.dim() <= 1, IndexError,
              "index_select: index is supposed to be a vector, got shape ", index.sizes());
  Tensor idx = ops::index_int64(index, "index_select");
  const int64_t d = wrap_dim(dim, t.dim(), "index_select");
  EMBER_CHECK(t.dim() > 0 || idx.numel() == 1, ValueError,
              "index_select: index to a 0-d tensor can have only 1 value, got ", idx.numel());
  Dims shape(t.sizes());
  if (t.dim() > 0) shape[size_t(d)] = idx.numel();
  Tensor out = Tensor::empty(shape, t.dtype());
  if (out.numel() == 0) {  // nothing to read, but PyTorch still checks the indices
    ops::check_index_range(idx, size_at(t, d), d, false, "index_select");
    return out;
  }
  const int64_t isz = int64_t(t.itemsize());
  kernels::IndexLoop L;
  L.shape = shape;
  L.data = t.data_ptr();
  L.data_strides = ops::byte_strides(t.strides(), isz);
  L.vals = out.data_ptr();
  L.vals_strides = ops::byte_strides(out.strides(), isz);
  L.itemsize = isz;
  kernels::IndexArg a{idx.data_ptr(), Dims(shape.size(), 0), size_at(t, d), stride_at(t, d) * isz};
  if (t.dim() > 0) {
    L.data_strides[size_t(d)] = 0;
    a.strides[size_t(d)] = stride_at(idx, 0) * 8;
  }
  L.idx.push_back(std::move(a));
  if (!kernels::index_get(L)) ops::check_index_range(idx, size_at(t, d), d, false, "index_select");
  if (autograd::any_requires_grad(t)) {
    // Rows picked several times get the sum of their gradients.
    autograd::record("IndexSelectBackward0", {&t}, {&out},
                     [d, idx, shape = Dims(t.sizes()), dt = t.dtype()](Grads& g,
                                                                       const Node&) -> Grads {
                       std::vector<TensorIndex> at(size_t(d),
                                                   TensorIndex::sliced(std::nullopt, std::nullopt));
                       at.push_back(TensorIndex::of(reshape(idx, {-1})));
                       Tensor z = zeros(shape, dt);
                       if (shape.empty()) return {add(z, reshape(g[0], {}))};
                       return {index_put_(z, at, g[0], /*accumulate=*/true)};
                     });
  }
  return out;
}

Tensor gather(const Tensor& t, int64_t dim, const Tensor& index) {
  EMBER_RECORD(gather, t, dim, index);
  EMBER_PROFILE_OP("gather");
  ops::check_defined(t, "gather");
  ops::check_defined(index, "gather");
  Tensor idx = ops::index_int64(index, "gather");
  const int64_t d = wrap_dim(dim, t.dim(), "gather");
  check_gather_shapes("gather", t, d, idx, nullptr);
  Tensor out = Tensor::empty(idx.sizes(), t.dtype());
  if (out.numel() == 0) return out;
  kernels::IndexLoop L = along_dim(t, d, idx);
  L.vals = out.data_ptr();
  L.vals_strides = ops::byte_strides(out.strides(), L.itemsize);
  if (!kernels::index_get(L)) ops::check_index_range(idx, size_at(t, d), d, false, "gather");
  if (autograd::any_requires_grad(t)) {
    autograd::record("GatherBackward0", {&t}, {&out},
                     [d, idx, shape = Dims(t.sizes()), dt = t.dtype()](Grads& g, const Node&)
                         -> Grads { return {scatter_add(zeros(shape, dt), d, idx, g[0])}; });
  }
  return out;
}

namespace {

// Out-of-place scatter / scatter_add with their gradients: t's gradient is g with the
// scattered positions zeroed (kept for scatter_add); src's is g gathered at the indices.
Tensor scatter_out(const char* op, const Tensor& t, int64_t dim, const Tensor& index,
                   const Tensor* src, Scalar value, bool add) {
  ops::check_defined(t, op);
  Tensor out;
  {
    NoGradGuard no_grad;
    out = clone(t);
    scatter_impl(op, out, dim, index, src, value, add);
  }
  bool grad = src ? autograd::any_requires_grad(t, *src) : autograd::any_requires_grad(t);
  if (grad) {
    int64_t d = wrap_dim(dim, t.dim(), op);
    auto backward = [d, index, add](Grads& g, const Node& n) -> Grads {
      Tensor gt, gs;
      if (n.needs_input_grad(0)) gt = add ? g[0] : scatter(g[0], d, index, Scalar(0.0));
      if (n.needs_input_grad(1)) gs = gather(g[0], d, index);
      return {gt, gs};
    };
    const char* name = add ? "ScatterAddBackward0" : "ScatterBackward0";
    if (src) autograd::record(name, {&t, src}, {&out}, backward);
    else autograd::record(name, {&t}, {&out}, backward);
  }
  return out;
}

Tensor& scatter_inplace(const char* op, Tensor& t, int64_t dim, const Tensor& index,
                        const Tensor* src, Scalar value, bool add) {
  bool grad = src ? autograd::any_requires_grad(t, *src) : autograd::any_requires_grad(t);
  if (!grad) return scatter_impl(op, t, dim, index, src, value, add);
  return autograd::apply_inplace(t, op, [&](const Tensor& x) {
    return scatter_out(op, x, dim, index, src, value, add);
  });
}

}  // namespace

Tensor& scatter_(Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  EMBER_RECORD(scatter_, t, dim, index, src);
  EMBER_PROFILE_OP("scatter_");
  return scatter_inplace("scatter_", t, dim, index, &src, Scalar(), false);
}

Tensor& scatter_(Tensor& t, int64_t dim, const Tensor& index, Scalar value) {
  EMBER_RECORD(scatter_, t, dim, index, value);
  EMBER_PROFILE_OP("scatter_");
  return scatter_inplace("scatter_", t, dim, index, nullptr, value, false);
}

Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  EMBER_RECORD(scatter, t, dim, index, src);
  EMBER_PROFILE_OP("scatter");
  return scatter_out("scatter", t, dim, index, &src, Scalar(), false);
}

Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, Scalar value) {
  EMBER_RECORD(scatter, t, dim, index, value);
  EMBER_PROFILE_OP("scatter");
  return scatter_out("scatter", t, dim, index, nullptr, value, false);
}

Tensor& scatter_add_(Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  EMBER_RECORD(scatter_add_, t, dim, index, src);
  EMBER_PROFILE_OP("scatter_add_");
  return scatter_inplace("scatter_add_", t, dim, index, &src, Scalar(), true);
}

Tensor scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  EMBER_RECORD(scatter_add, t, dim, index, src);
  EMBER_PROFILE_OP("scatter_add");
  return scatter_out("scatter_add", t, dim, index, &src, Scalar(), true);
}

Tensor take_along_dim(const Tensor& t, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_RECORD(take_along_dim, t, indices, dim);
  EMBER_PROFILE_OP("take_along_dim");
  ops::check_defined(t, "take_along_dim");
  ops::check_defined(indices, "take_along_dim");
  EMBER_CHECK(indices.dtype() == DType::Int64, TypeError,
              "take_along_dim: dtype of indices should be int64, got ",
              dtype_name(indices.dtype()));
  if (!dim) return gather(reshape(t, {-1}), 0, reshape(indices, {-1}));
  EMBER_CHECK(t.dim() == indices.dim(), ValueError,
              "take_along_dim: input and indices should have the same number of dimensions, got ",
              t.dim(), " (input ", t.sizes(), ") and ", indices.dim(), " (indices ",
              indices.sizes(), ")");
  const int64_t d = wrap_dim(*dim, t.dim(), "take_along_dim");
  if (t.dim() == 0) return gather(t, d, indices);
  // Broadcast every dim but `dim`: each side keeps its own size along `dim`.
  Dims ts(t.sizes()), is(indices.sizes());
  ts[size_t(d)] = is[size_t(d)] = 1;
  Dims b = broadcast_shapes(ts, is, "take_along_dim");
  Dims tb(b), ib(b);
  tb[size_t(d)] = t.sizes()[size_t(d)];
  ib[size_t(d)] = indices.sizes()[size_t(d)];
  return gather(expand(t, tb), d, expand(indices, ib));
}

Tensor nonzero(const Tensor& t) {
  EMBER_RECORD(nonzero, t);
  EMBER_PROFILE_OP("nonzero");
  ops::check_defined(t, "nonzero");
  Tensor m = contiguous(t.dtype() == DType::Bool ? t : ne(t, Scalar(int64_t(0))));
  kernels::MaskChunks ch = kernels::count_mask(m.data<bool>(), m.numel());
  Tensor out = Tensor::empty({ch.total, t.dim()}, DType::Int64);
  kernels::nonzero(m.data<bool>(), m.sizes(), ch, out.data<int64_t>());
  return out;
}

Tensor masked_select(const Tensor& t, const Tensor& mask) {
  EMBER_RECORD(masked_select, t, mask);
  EMBER_PROFILE_OP("masked_select");
  ops::check_defined(t, "masked_select");
  ops::check_defined(mask, "masked_select");
  EMBER_CHECK(mask.dtype() == DType::Bool, TypeError, "masked_select: expected a bool mask, got ",
              dtype_name(mask.dtype()));
  Dims shape = broadcast_shapes(t.sizes(), mask.sizes(), "masked_select");
  // The chunks index the mask linearly, so it must be contiguous in the broadcast shape.
  Tensor m = mask.sizes() == shape ? contiguous(mask) : contiguous(expand(mask, shape));
  kernels::MaskChunks ch = kernels::count_mask(m.data<bool>(), m.numel());
  Tensor out = Tensor::empty({ch.total}, t.dtype());
  if (ch.total == 0) return out;
  kernels::masked_select(ops::make_loop(shape, {&m, &t}), ch, out.data_ptr(),
                         int64_t(t.itemsize()));
  if (autograd::any_requires_grad(t)) {
    autograd::record("MaskedSelectBackward0", {&t}, {&out},
                     [m, shape, tshape = Dims(t.sizes()), dt = t.dtype()](Grads& g,
                                                                          const Node&) -> Grads {
                       Tensor z = zeros(shape, dt);
                       index_put_(z, {TensorIndex::of(m)}, g[0], /*accumulate=*/true);
                       return {autograd::sum_to(z, tshape)};
                     });
  }
  return out;
}

}  // namespace ember
