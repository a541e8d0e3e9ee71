// Private entry points of frexp and nextafter (ember/_float_bits.py gives them torch's
// signatures, out= and the Tensor methods).
#include "common.h"
#include "ember/float_bits.h"

namespace ember::py {

void bind_float_bits(nb::module_& m) {
  m.def("_frexp", [](const Tensor& a) { return frexp(a); });
  m.def("_nextafter", [](const Tensor& a, const Tensor& b) { return nextafter(a, b); });
  // In place: the Python wrapper returns self (a non-Tensor self is refused by nanobind).
  m.def("_nextafter_", [](Tensor& self, const Tensor& b) { nextafter_(self, b); });
}

}  // namespace ember::py
