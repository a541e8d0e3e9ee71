// Complex tensors (src/ops/complex.cpp): the views between complex and real storage,
// construction, angle and conjugation, as ember._C.X; python/ember/_complex.py names them
// as torch does (torch.view_as_real, Tensor.real, Tensor.conj, ...).
#include "common.h"
#include "ember/complex.h"

namespace ember::py {

void bind_complex(nb::module_& m) {
  auto& cls = tensor_class();
  m.def(
      "view_as_real", [](const Tensor& t) { return view_as_real(t); }, nb::arg("input"),
      docstring("view_as_real"));
  m.def(
      "view_as_complex", [](const Tensor& t) { return view_as_complex(t); }, nb::arg("input"),
      docstring("view_as_complex"));
  m.def(
      "_real", [](const Tensor& t) { return real(t); }, nb::arg("input"));
  m.def(
      "_imag", [](const Tensor& t) { return imag(t); }, nb::arg("input"));
  m.def(
      "_complex", [](const Tensor& re, const Tensor& im) { return complex(re, im); },
      nb::arg("real"), nb::arg("imag"));
  m.def(
      "_polar", [](const Tensor& abs, const Tensor& angle) { return polar(abs, angle); },
      nb::arg("abs"), nb::arg("angle"));
  def_both(m, cls, "angle", [](const Tensor& t) { return angle(t); });
  def_both(m, cls, "conj", [](const Tensor& t) { return conj(t); });
  def_both(m, cls, "conj_physical", [](const Tensor& t) { return conj_physical(t); });
  cls.def(
      "conj_physical_",
      [](nb::handle self) {
        conj_physical_(self_of(self));
        return nb::borrow(self);
      },
      method_docstring("conj_physical_"));
}

}  // namespace ember::py
