// Argument conversion shared by the binding files: Python numbers -> Scalar, a tensor
// or a number -> Operand, shapes given as varargs or a sequence -> Dims, dim args; and
// back: (values, indices) -> ember.return_types. No logic beyond conversion lives here.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "docstrings.h"
#include "ember/ember.h"

namespace nb = nanobind;

// Note [Python types as dtypes]: torch's argument parser takes Python's bool, int, float and
// complex wherever it takes a dtype (torch.zeros(2, dtype=int) is int64, dtype=float float64,
// complex complex128, as NumPy reads them), and libraries pass them (zuko: as_tensor(order,
// dtype=int)). Every dtype argument of ember's bindings goes through this caster, which takes
// ember's dtype objects (nanobind's enum conversion) and those four types. Every binding file
// includes this header first, so no file converts a DType without it.
namespace nanobind::detail {
template <>
struct type_caster<ember::DType> {
  NB_INLINE bool from_python(handle src, uint32_t flags, cleanup_list* cleanup) noexcept {
    int64_t result;
    if (NB_CALL(enum_from_python)(NB_CTX_C(cleanup), &typeid(ember::DType), src.ptr(), &result,
                                  flags)) {
      value = static_cast<ember::DType>(result);
      return true;
    }
    PyObject* t = src.ptr();
    if (t == reinterpret_cast<PyObject*>(&PyBool_Type)) value = ember::DType::Bool;
    else if (t == reinterpret_cast<PyObject*>(&PyLong_Type)) value = ember::DType::Int64;
    else if (t == reinterpret_cast<PyObject*>(&PyFloat_Type)) value = ember::DType::Float64;
    else if (t == reinterpret_cast<PyObject*>(&PyComplex_Type)) value = ember::DType::Complex128;
    else return false;
    return true;
  }
  NB_INLINE static handle from_cpp(ember::DType src, rv_policy, cleanup_list* cleanup) noexcept {
    return NB_CALL(enum_from_cpp)(NB_CTX_C(cleanup), &typeid(ember::DType),
                                  static_cast<int64_t>(src));
  }
  NB_TYPE_CASTER(ember::DType, const_name("ember._C.dtype"))
};
}  // namespace nanobind::detail

namespace ember::py {

// A tensor or a Python number: what the right-hand side of `a + b` may be.
struct Operand {
  Tensor tensor;
  Scalar scalar;
  bool is_tensor = false;
};

bool scalar_from_python(PyObject* o, Scalar& out);

// Shapes: f(2, 3), f((2, 3)), f([2, 3]), f(torch.Size([2, 3])).
Dims shape_from_args(const nb::args& args, const char* op);
Dims shape_from_sequence(nb::handle h, const char* op);
// dim=None -> {}, dim=1 -> {1}, dim=(0, 1) -> {0, 1}.
Dims dims_from(nb::handle h, const char* op);

// ember.return_types.<name>(values, indices): a named tuple, as torch.return_types.
nb::object named_pair(const char* name, std::pair<Tensor, Tensor> r);

// Registers f under `name` both as ember._C.name(t, ...) and as Tensor.name(self, ...), each
// with its docstring (docstrings.h). With argument annotations, the function form names its
// first argument `input`.
template <class Cls, class F, class... Extra>
void def_both(nb::module_& m, Cls& cls, const char* name, F&& f, const Extra&... extra) {
  if constexpr (sizeof...(Extra) > 0) m.def(name, f, nb::arg("input"), extra..., docstring(name));
  else m.def(name, f, docstring(name));
  cls.def(name, std::forward<F>(f), extra..., method_docstring(name));
}

nb::class_<Tensor>& tensor_class();

// Whether t views a storage made for device 'meta' (Note [Meta tensors], storage.h).
bool is_meta(const Tensor& t);

// An ember.Size (size.cpp) holding v; bind_size must have run.
nb::object make_size(IntList v);

// The C++ stream inside an ember.Generator; nullptr for None (the default generator).
Generator* generator_from(nb::handle h);

// The Tensor inside a Python Tensor object (for in-place methods, which return `self`).
inline Tensor& self_of(nb::handle self) { return *nb::inst_ptr<Tensor>(self); }

// Runs f on self's Tensor in place and returns self, the same Python object (in-place methods).
// A meta tensor's bytes are no data: writing them is skipped (torch's meta kernels write
// nothing either), so a model built on 'meta' is not initialized for nothing.
template <class F>
nb::object inplace(nb::handle self, F f) {
  if (!is_meta(self_of(self))) f(self_of(self));
  return nb::borrow(self);
}

// Binds torch's module-level in-place form `name_` (torch.erfc_(t)), which takes self as any
// object: it must be a Tensor. f(Tensor&) does the work.
template <class F>
void def_module_inplace(nb::module_& m, const char* name_, F f) {
  m.def(
      name_,
      [name_, f](nb::handle self) {
        if (!nb::isinstance<Tensor>(self))
          throw TypeError(
              detail::cat(name_, ": expected a Tensor, got ", nb::type_name(self.type()).c_str()));
        return inplace(self, f);
      },
      docstring(name_));
}

void bind_size(nb::module_& m);
// out= (torch's keyword): result written into out (resized with torch's warning when it was
// non-empty and of another shape), which is returned (elementwise.cpp).
nb::object into(nb::handle out, const Tensor& result, const char* op);

void bind_tensor(nb::module_& m);
void bind_creation(nb::module_& m);
void bind_elementwise(nb::module_& m);
void bind_views(nb::module_& m);
void bind_reduce(nb::module_& m);
void bind_linalg(nb::module_& m);
void bind_indexing(nb::module_& m);
void bind_numpy(nb::module_& m);
void bind_autograd(nb::module_& m);
void bind_nn(nb::module_& m);
void bind_layers(nb::module_& m);
void bind_losses(nb::module_& m);
void bind_profiler(nb::module_& m);
void bind_optim(nb::module_& m);
void bind_serialize(nb::module_& m);
void bind_multiprocessing(nb::module_& m);
void bind_distributed(nb::module_& m);
void bind_scan_sort_special(nb::module_& m);
void bind_special(nb::module_& m);
void bind_random(nb::module_& m);
void bind_complex(nb::module_& m);
void bind_autocast(nb::module_& m);
void bind_capture(nb::module_& m);

}  // namespace ember::py

namespace nanobind::detail {

template <>
struct type_caster<ember::Scalar> {
  NB_TYPE_CASTER(ember::Scalar, const_name("Number"))
  bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
    return ember::py::scalar_from_python(src.ptr(), value);
  }
  static handle from_cpp(const ember::Scalar& s, rv_policy, cleanup_list*) noexcept {
    switch (s.kind()) {
      case ember::Scalar::Kind::Bool: return PyBool_FromLong(s.to<bool>());
      case ember::Scalar::Kind::Int: return PyLong_FromLongLong(s.to_int());
      case ember::Scalar::Kind::Complex: return PyComplex_FromDoubles(s.to_double(), s.imag());
      default: return PyFloat_FromDouble(s.to_double());
    }
  }
};

template <>
struct type_caster<ember::py::Operand> {
  NB_TYPE_CASTER(ember::py::Operand, const_name("Tensor | Number"))
  bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
    if (nb::isinstance<ember::Tensor>(src)) {
      value.tensor = *nb::inst_ptr<ember::Tensor>(src);
      value.is_tensor = true;
      return true;
    }
    value.is_tensor = false;
    return ember::py::scalar_from_python(src.ptr(), value.scalar);
  }
  static handle from_cpp(const ember::py::Operand&, rv_policy, cleanup_list*) noexcept {
    return nullptr;
  }
};

}  // namespace nanobind::detail
