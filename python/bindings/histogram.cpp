// Private entry points of histogramdd (ember/_histogram.py parses torch's bins/range forms and
// builds histogram, histogramdd and their return types).
#include "common.h"
#include "ember/histogram.h"

namespace ember::py {

void bind_histogram(nb::module_& m) {
  m.def("_histogramdd_counts",
        [](const Tensor& input, std::vector<int64_t> bins, std::optional<std::vector<double>> range,
           std::optional<Tensor> weight, bool density, const std::string& op) {
          Histogram h = histogramdd(input, bins, range, weight, density, op.c_str());
          return std::make_pair(h.hist, h.bin_edges);
        });
  m.def("_histogramdd_edges",
        [](const Tensor& input, std::vector<Tensor> edges, std::optional<Tensor> weight,
           bool density, const std::string& op) {
          Histogram h = histogramdd(input, edges, weight, density, op.c_str());
          return std::make_pair(h.hist, h.bin_edges);
        });
}

}  // namespace ember::py
