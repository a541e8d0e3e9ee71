// Matrix products as functions, methods and the @ operator, with PyTorch's argument names.
#include "common.h"
#include "ember/linalg.h"

#include <nanobind/stl/tuple.h>

namespace ember::py {

void bind_linalg(nb::module_& m) {
  auto& cls = tensor_class();
  def_both(
      m, cls, "matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); },
      nb::arg("other"));
  def_both(
      m, cls, "mm", [](const Tensor& a, const Tensor& b) { return mm(a, b); }, nb::arg("mat2"));
  def_both(
      m, cls, "bmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); }, nb::arg("mat2"));
  def_both(
      m, cls, "mv", [](const Tensor& a, const Tensor& v) { return mv(a, v); }, nb::arg("vec"));
  def_both(
      m, cls, "dot", [](const Tensor& a, const Tensor& b) { return dot(a, b); }, nb::arg("tensor"));
  def_both(
      m, cls, "outer", [](const Tensor& a, const Tensor& b) { return outer(a, b); },
      nb::arg("vec2"));
  def_both(
      m, cls, "addmm",
      [](const Tensor& self, const Tensor& a, const Tensor& b, Scalar beta, Scalar alpha) {
        return addmm(self, a, b, beta, alpha);
      },
      nb::arg("mat1"), nb::arg("mat2"), nb::kw_only(), nb::arg("beta") = 1, nb::arg("alpha") = 1);

  // a @ b. PyTorch has no in-place matmul: `a @= b` rebinds a to a new tensor, and so does
  // ember's __imatmul__. nb::is_operator() returns NotImplemented for non-tensor operands.
  auto op = nb::is_operator();
  cls.def(
      "__matmul__", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, op);
  cls.def(
      "__rmatmul__", [](const Tensor& a, const Tensor& b) { return matmul(b, a); }, op);
  cls.def(
      "__imatmul__", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, op);

  // ember.linalg's LAPACK-backed ops (include/ember/linalg.h), wrapped by python/ember/linalg.py.
  // LinAlgError is a RuntimeError, as torch._C._LinAlgError; its translator is registered
  // after the module's general one, so nanobind tries it first.
  nb::exception<LinAlgError>(m, "LinAlgError", PyExc_RuntimeError);
  m.def("_linalg_solve", &linalg_solve);
  m.def("_linalg_inv_ex", &linalg_inv_ex, nb::arg("A"), nb::arg("check_errors") = false);
  m.def("_linalg_det", &linalg_det);
  m.def("_linalg_slogdet", &linalg_slogdet);
  m.def("_linalg_cholesky_ex", &linalg_cholesky_ex, nb::arg("A"), nb::arg("upper") = false,
        nb::arg("check_errors") = false);
  m.def("_linalg_solve_triangular", &linalg_solve_triangular, nb::arg("A"), nb::arg("B"),
        nb::arg("upper"), nb::arg("left") = true, nb::arg("unitriangular") = false);
  m.def("_linalg_eigh", &linalg_eigh);
  m.def("_linalg_eigvalsh", &linalg_eigvalsh);
  m.def("_linalg_eig", &linalg_eig);
  m.def("_linalg_eigvals", &linalg_eigvals);
  m.def("_linalg_svd", &linalg_svd);
  m.def("_linalg_svdvals", &linalg_svdvals);
  m.def("_linalg_qr", &linalg_qr);
  m.def("_linalg_lu_factor_ex", &linalg_lu_factor_ex);
  m.def("_lu_unpack", &lu_unpack);
  m.def("_geqrf", &geqrf);
  m.def("_linalg_ldl_factor_ex", &linalg_ldl_factor_ex);
  m.def("_linalg_ldl_solve", &linalg_ldl_solve);
  m.def("_linalg_householder_product", &linalg_householder_product);
}

}  // namespace ember::py
