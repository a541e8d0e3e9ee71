// sort, argsort and topk along one dim; the values' gradient scatters back by the indices.
#include <algorithm>

#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/scan.h"
#include "ops/half_ops.h"
#include "ops/iter.h"
#include "ops/rows.h"

namespace ember {

using autograd::SavedTensor;

namespace {

// The first k of each row of t sorted along d (k = the row length for sort).
std::pair<Tensor, Tensor> sorted_rows(const Tensor& t, int64_t d, int64_t k, bool descending,
                                      const char* node) {
  Dims shape(t.sizes());
  shape[size_t(d)] = k;
  const Tensor src = ops::widened(t);  // half: sorted as float32, the values narrowed back exactly
  Tensor values = Tensor::empty(shape, src.dtype()), indices = Tensor::empty(shape, DType::Int64);
  kernels::sort(src.dtype(), ops::row_loop(src.sizes(), d, {&values, &indices, &src}), src.size(d),
                k, descending, ops::byte_step(values, d), ops::byte_step(indices, d),
                ops::byte_step(src, d));
  values = ops::narrowed(values, t.dtype());
  if (autograd::any_requires_grad(t)) {
    // Each value came from one input element: the gradient goes back there, zeros elsewhere.
    autograd::record(node, {&t}, {&values},
                     [d, si = SavedTensor(indices), sizes = Dims(t.sizes())](Grads& g,
                                                                             const Node&) -> Grads {
                       return {scatter(zeros(sizes, g[0].dtype()), d, si.get(), g[0])};
                     });
  }
  return {values, indices};
}

// A 0-d input is a row of one element: run on the 1-d view, give 0-d results back.
template <class F>
std::pair<Tensor, Tensor> on_0d(const Tensor& t, int64_t dim, const char* op, F f) {
  wrap_dim(dim, 1, op);
  auto [v, i] = f(reshape(t, Dims{1}));
  if (v.numel() != 1) return {v, i};  // topk with k = 0
  return {reshape(v, Dims{}), reshape(i, Dims{})};
}

}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& t, int64_t dim, bool descending, bool stable) {
  EMBER_RECORD(sort, t, dim, descending, stable);
  EMBER_PROFILE_OP("sort");
  ops::check_defined(t, "sort");
  (void)stable;  // the kernel's order is always the stable one
  if (t.dim() == 0)
    return on_0d(t, dim, "sort", [&](const Tensor& x) { return sort(x, 0, descending, stable); });
  const int64_t d = wrap_dim(dim, t.dim(), "sort");
  return sorted_rows(t, d, t.size(d), descending, "SortBackward0");
}

Tensor argsort(const Tensor& t, int64_t dim, bool descending, bool stable) {
  EMBER_RECORD(argsort, t, dim, descending, stable);
  EMBER_PROFILE_OP("argsort");
  NoGradGuard no_grad;  // only the indices are kept
  ops::check_defined(t, "argsort");
  wrap_dim(dim, std::max<int64_t>(t.dim(), 1), "argsort");  // errors name argsort, not sort
  return sort(t, dim, descending, stable).second;
}

std::pair<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim, bool largest, bool sorted) {
  EMBER_RECORD(topk, t, k, dim, largest, sorted);
  EMBER_PROFILE_OP("topk");
  ops::check_defined(t, "topk");
  if (is_wide_unsigned(t.dtype())) throw_unsupported_dtype(t.dtype());  // sort has them, topk not
  (void)sorted;  // always sorted: a valid order for sorted=False too
  if (t.dim() == 0)
    return on_0d(t, dim, "topk", [&](const Tensor& x) { return topk(x, k, 0, largest, sorted); });
  const int64_t d = wrap_dim(dim, t.dim(), "topk");
  EMBER_CHECK(k >= 0 && k <= t.size(d), Error, "topk: selected index k out of range: k = ", k,
              " for dim ", d, " of size ", t.size(d), " (shape ", t.sizes(), ")");
  return sorted_rows(t, d, k, largest, "TopkBackward0");
}

}  // namespace ember
