// Histograms of points in D dims (src/ops/histogram.cpp), as torch.histogramdd:
//
//   auto h = ember::histogramdd(points /* n x 2 */, {10, 20}, std::nullopt, std::nullopt, false);
//   h.hist;        // 10 x 20 counts;  h.bin_edges[0], h.bin_edges[1]: the edges per dim
//
// A point lands in bin k of a dim when edges[k] <= x < edges[k + 1] (the last bin also takes
// the last edge); points outside or NaN are not counted. No gradient (torch has none).
#pragma once
#include <optional>
#include <vector>

#include "ember/tensor.h"

namespace ember {

struct Histogram {
  Tensor hist;
  std::vector<Tensor> bin_edges;
};

// input (..., D), floating; `bins` counts per dim (one value: every dim); `range`: 2 * D
// bounds (min0, max0, min1, ...), else each dim's min and max (widened by 0.5 each way when
// equal, [0, 1] for no points); weight: input's shape without the last dim. `op` names the
// caller in errors ("histogram" or "histogramdd").
Histogram histogramdd(const Tensor& input, IntList bins,
                      const std::optional<std::vector<double>>& range,
                      const std::optional<Tensor>& weight, bool density,
                      const char* op = "histogramdd");
// The same with the edges given, one increasing 1-d tensor per dim.
Histogram histogramdd(const Tensor& input, const std::vector<Tensor>& bin_edges,
                      const std::optional<Tensor>& weight, bool density,
                      const char* op = "histogramdd");

}  // namespace ember
