// cat and stack: one copy per input into a slice of the output.
#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "ops/iter.h"

namespace ember {

Tensor cat(const std::vector<Tensor>& ts, int64_t dim) {
  EMBER_RECORD(cat, ts, dim);
  EMBER_PROFILE_OP("cat");
  EMBER_CHECK(!ts.empty(), ValueError, "cat: expected a non-empty list of tensors");
  // PyTorch skips 1-d empty tensors (legacy behaviour kept for compatibility).
  const Tensor* ref = nullptr;
  DType dt = ts[0].dtype();
  for (const Tensor& t : ts) {
    ops::check_defined(t, "cat");
    dt = promote_types(dt, t.dtype());
    if (!ref && !(t.dim() == 1 && t.numel() == 0)) ref = &t;
  }
  if (!ref) return Tensor::empty({0}, dt);
  EMBER_CHECK(ref->dim() > 0, ValueError, "cat: zero-dimensional tensor cannot be concatenated");
  int64_t d = wrap_dim(dim, ref->dim(), "cat");
  Dims shape(ref->sizes());
  int64_t total = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const Tensor& t = ts[i];
    if (t.dim() == 1 && t.numel() == 0) continue;
    EMBER_CHECK(t.dim() == ref->dim(), ValueError,
                "cat: tensors must have the same number of "
                "dimensions: got ",
                ref->dim(), " and ", t.dim(), " (tensor ", i, ")");
    for (int64_t k = 0; k < t.dim(); ++k)
      EMBER_CHECK(k == d || t.sizes()[k] == shape[k], ValueError,
                  "cat: sizes of tensors must "
                  "match except in dimension ",
                  d, ". Expected size ", shape[k], " but got size ", t.sizes()[k],
                  " for tensor number ", i, " in the list (shapes ", ref->sizes(), " and ",
                  t.sizes(), ")");
    total += t.sizes()[d];
  }
  shape[d] = total;
  Tensor out = Tensor::empty(shape, dt);
  {
    NoGradGuard no_grad;  // the copies below are the forward; cat records one node
    int64_t start = 0;
    for (const Tensor& t : ts) {
      if (t.dim() == 1 && t.numel() == 0) continue;
      Tensor part = slice(out, d, start, start + t.sizes()[d], 1);
      copy_(part, t);
      start += t.sizes()[d];
    }
  }
  if (autograd::any_requires_grad(ts)) {
    std::vector<int64_t> sizes;  // along d; -1 marks a skipped empty 1-d input
    std::vector<DType> dtypes;
    for (const Tensor& t : ts) {
      sizes.push_back(t.dim() == 1 && t.numel() == 0 ? -1 : t.sizes()[d]);
      dtypes.push_back(t.dtype());
    }
    autograd::record("CatBackward0", ts, {out},
                     [d, sizes, dtypes](Grads& g, const Node& n) -> Grads {
                       Grads out;
                       int64_t start = 0;
                       for (size_t i = 0; i < sizes.size(); ++i) {
                         if (sizes[i] < 0 || !n.needs_input_grad(i)) {
                           out.emplace_back();
                           if (sizes[i] > 0) start += sizes[i];
                           continue;
                         }
                         Tensor gi = slice(g[0], d, start, start + sizes[i], 1);
                         out.push_back(gi.dtype() == dtypes[i] ? gi : to_dtype(gi, dtypes[i]));
                         start += sizes[i];
                       }
                       return out;
                     });
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& ts, int64_t dim) {
  EMBER_RECORD(stack, ts, dim);
  EMBER_PROFILE_OP("stack");
  EMBER_CHECK(!ts.empty(), ValueError, "stack: expected a non-empty list of tensors");
  int64_t d = wrap_dim(dim, ts[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  parts.reserve(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) {
    ops::check_defined(ts[i], "stack");
    EMBER_CHECK(ts[i].sizes() == ts[0].sizes(), ValueError,
                "stack: expects each tensor to be "
                "equal size, but got ",
                ts[0].sizes(), " at entry 0 and ", ts[i].sizes(), " at entry ", i);
    parts.push_back(unsqueeze(ts[i], d));
  }
  return cat(parts, d);
}

}  // namespace ember
