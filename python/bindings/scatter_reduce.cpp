// Private entry points of scatter_reduce, index_reduce and segment_reduce (ember/_scatter_reduce.py
// gives them torch's signatures, out= and the Tensor methods).
#include "common.h"
#include "ember/scatter_reduce.h"

namespace ember::py {

void bind_scatter_reduce(nb::module_& m) {
  m.def("_scatter_reduce", [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
                              const std::string& reduce, bool include_self) {
    return scatter_reduce(t, dim, index, src, reduce, include_self);
  });
  // In place: the Python wrapper returns self (a non-Tensor self is refused by nanobind).
  m.def("_scatter_reduce_", [](Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                               const std::string& reduce, bool include_self) {
    scatter_reduce_(self, dim, index, src, reduce, include_self);
  });
  m.def("_index_reduce", [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
                            const std::string& reduce, bool include_self) {
    return index_reduce(t, dim, index, src, reduce, include_self);
  });
  m.def("_index_reduce_", [](Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                             const std::string& reduce, bool include_self) {
    index_reduce_(self, dim, index, src, reduce, include_self);
  });
  m.def("_segment_reduce", [](const Tensor& data, const std::string& reduce,
                              std::optional<Tensor> lengths, std::optional<Tensor> offsets,
                              int64_t axis, bool unsafe, std::optional<double> initial) {
    return segment_reduce(data, reduce, lengths, offsets, axis, unsafe, initial);
  });
}

}  // namespace ember::py
