// histogramdd (and histogram, its 1-d case, from Python): torch's checks and edges, the
// binning in kernels/cpu/histogram, the density normalisation with ops.
#include "ember/histogram.h"

#include <cmath>

#include "ember/ops.h"
#include "ember/profiler.h"
#include "kernels/cpu/histogram.h"

namespace ember {
namespace {

// The points as a contiguous (n, D) tensor, after torch's input checks.
Tensor points_of(const Tensor& input, const char* op) {
  EMBER_CHECK(input.defined(), ValueError, op, ": expected a tensor");
  EMBER_CHECK(is_floating(input.dtype()), NotImplementedError, "\"", op, "\" not implemented for '",
              dtype_name(input.dtype()), "'");
  EMBER_CHECK(input.dim() >= 2, Error, "torch.", op,
              ": input tensor should have at least 2 dimensions, got ", input.sizes());
  return contiguous(reshape(input, {-1, input.sizes().back()}));
}

std::optional<Tensor> weight_of(const Tensor& input, const std::optional<Tensor>& weight,
                                const char* op) {
  if (!weight) return std::nullopt;
  Dims want(input.sizes());
  want.resize(want.size() - 1);
  EMBER_CHECK(
      weight->defined() && weight->sizes() == want, Error, "torch.", op,
      ": if weight tensor is provided it should have the same shape as the input tensor excluding "
      "its innermost dimension, but got input with shape ",
      input.sizes(), " and weight with shape ", weight->defined() ? weight->sizes() : Dims());
  EMBER_CHECK(
      weight->dtype() == input.dtype(), Error, "torch.", op,
      ": if weight tensor is provided, input tensor and weight tensor should have the same dtype, got ",
      dtype_name(input.dtype()), " and ", dtype_name(weight->dtype()));
  return contiguous(reshape(*weight, {-1}));
}

Histogram bin(const Tensor& pts, const std::vector<Tensor>& edges, const std::optional<Tensor>& w,
              bool density) {
  Dims nb;
  std::vector<const char*> ep;
  for (const Tensor& e : edges) {
    nb.push_back(e.numel() - 1);
    ep.push_back(e.data_ptr());
  }
  Tensor hist = zeros(nb, pts.dtype());
  kernels::histogramdd(pts.dtype(), pts.data_ptr(), pts.sizes()[0], pts.sizes()[1], ep,
                       std::vector<int64_t>(nb.begin(), nb.end()), w ? w->data_ptr() : nullptr,
                       hist.data_ptr());
  if (density) {  // torch's normalisation: by the total, then by each dim's bin widths
    hist = div(hist, sum(hist));
    for (size_t d = 0; d < edges.size(); ++d) {
      const int64_t k = nb[d];
      Tensor widths = sub(narrow(edges[d], 0, 1, k), narrow(edges[d], 0, 0, k));
      Dims shape(nb.size(), 1);
      shape[d] = k;
      hist = div(hist, reshape(widths, shape));
    }
  }
  return {hist, edges};
}

}  // namespace

Histogram histogramdd(const Tensor& input, const std::vector<Tensor>& bin_edges,
                      const std::optional<Tensor>& weight, bool density, const char* op) {
  EMBER_PROFILE_OP("histogramdd");
  Tensor pts = points_of(input, op);
  const int64_t D = pts.sizes()[1];
  EMBER_CHECK(int64_t(bin_edges.size()) == D, Error, op,
              ": The size of bins must be equal to the innermost dimension of the input (got ",
              bin_edges.size(), " and ", D, ")");
  std::vector<Tensor> edges;
  for (int64_t d = 0; d < D; ++d) {
    const Tensor& e = bin_edges[size_t(d)];
    EMBER_CHECK(e.defined() && e.dim() == 1, Error, "torch.", op,
                ": bins tensor should have one dimension, but got ", e.defined() ? e.dim() : 0,
                " dimensions in the bins tensor for dimension ", d);
    EMBER_CHECK(e.dtype() == input.dtype(), Error, "torch.", op,
                ": input tensor and bins tensors should have the same dtype, but got input ",
                dtype_name(input.dtype()), " and bins for dimension ", d, " ",
                dtype_name(e.dtype()));
    EMBER_CHECK(e.numel() > 0, Error, "torch.", op,
                ": bins tensor should have at least 1 element, but got 0 elements for dimension ",
                d);
    edges.push_back(contiguous(e));
  }
  return bin(pts, edges, weight_of(input, weight, op), density);
}

Histogram histogramdd(const Tensor& input, IntList bins,
                      const std::optional<std::vector<double>>& range,
                      const std::optional<Tensor>& weight, bool density, const char* op) {
  EMBER_PROFILE_OP("histogramdd");
  Tensor pts = points_of(input, op);
  const int64_t D = pts.sizes()[1];
  EMBER_CHECK(int64_t(bins.size()) == D || bins.size() == 1, Error, op,
              ": The size of bins must be equal to the innermost dimension of the input (got ",
              bins.size(), " and ", D, ")");
  EMBER_CHECK(!range || int64_t(range->size()) == 2 * D, Error, "torch.", op, ": for a ", D,
              "-dimensional input tensor, range should have ", 2 * D, " elements, but got ",
              range ? range->size() : 0);
  Tensor lo, hi;
  if (!range && pts.numel() > 0) {
    lo = to_dtype(amin(pts, {0}), DType::Float64);
    hi = to_dtype(amax(pts, {0}), DType::Float64);
  }
  std::vector<Tensor> edges;
  for (int64_t d = 0; d < D; ++d) {
    const int64_t n = bins.size() == 1 ? bins[0] : bins[size_t(d)];
    EMBER_CHECK(n > 0, Error, "torch.", op, "(): bins must be > 0, but got ", n, " for dimension ",
                d);
    double left = 0, right = 1;
    if (range) left = (*range)[size_t(2 * d)], right = (*range)[size_t(2 * d + 1)];
    else if (pts.numel() > 0) left = lo.data<double>()[d], right = hi.data<double>()[d];
    EMBER_CHECK(std::isfinite(left) && std::isfinite(right), Error, "torch.", op, ": dimension ", d,
                "'s range [", left, ", ", right, "] is not finite");
    EMBER_CHECK(left <= right, Error, "torch.", op, ": min should not exceed max, but got min ",
                left, " max ", right, " for dimension ", d);
    if (left == right) left -= 0.5, right += 0.5;  // numpy's widening of an empty range
    edges.push_back(linspace(left, right, n + 1, input.dtype()));
  }
  return bin(pts, edges, weight_of(input, weight, op), density);
}

}  // namespace ember
