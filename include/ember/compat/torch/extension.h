// <torch/extension.h> for ember: torch's C++ names (torch/torch.h here) and the Python binding
// of an extension module. PYBIND11_MODULE is nanobind's NB_MODULE and py:: is nanobind, which
// has pybind11's m.def(name, f, "doc") and py::arg("x") = default; at::Tensor arguments and
// results cross as ember.Tensor (an undefined tensor is None). docs/cpp.md: what is accepted.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "torch.h"

namespace pybind11 = nanobind;
namespace py = nanobind;

#define PYBIND11_MODULE(name, variable) NB_MODULE(name, variable)

namespace nanobind::detail {

// at::Tensor goes through the caster of ember::Tensor, the class ember._C registered.
template <>
struct type_caster<at::Tensor> {
  NB_TYPE_CASTER(at::Tensor, const_name("ember.Tensor"))
  template <class Flags>
  bool from_python(handle src, Flags flags, cleanup_list* cleanup) noexcept {
    make_caster<ember::Tensor> inner;
    if (!inner.from_python(src, flags, cleanup)) return false;
    value = at::Tensor(inner.operator ember::Tensor&());
    return true;
  }
  static handle from_cpp(const at::Tensor& t, rv_policy, cleanup_list* cleanup) noexcept {
    if (!t.defined()) return none().release();
    return make_caster<ember::Tensor>::from_cpp(static_cast<const ember::Tensor&>(t),
                                                rv_policy::copy, cleanup);
  }
};

// torch::Scalar arguments take a Python bool, int or float.
template <>
struct type_caster<ember::Scalar> {
  NB_TYPE_CASTER(ember::Scalar, const_name("int | float | bool"))
  template <class Flags>
  bool from_python(handle src, Flags, cleanup_list*) noexcept {
    PyObject* o = src.ptr();
    if (PyBool_Check(o)) value = ember::Scalar(o == Py_True);
    else if (PyLong_Check(o)) {
      long long v = PyLong_AsLongLong(o);
      if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      value = ember::Scalar(int64_t(v));
    } else if (PyFloat_Check(o)) value = ember::Scalar(PyFloat_AsDouble(o));
    else return false;
    return true;
  }
  static handle from_cpp(const ember::Scalar& s, rv_policy, cleanup_list*) noexcept {
    if (s.is_bool()) return PyBool_FromLong(s.to<bool>());
    if (s.is_floating()) return PyFloat_FromDouble(s.to_double());
    return PyLong_FromLongLong(s.to_int());
  }
};

}  // namespace nanobind::detail
