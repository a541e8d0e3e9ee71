// The Tensor class: properties, conversions to Python values, copies.
#include <cstring>

#include "common.h"

namespace ember::py {
// Note [Meta tensors]: a meta tensor's bytes are no data.
bool is_meta(const Tensor& t) {
  return t.defined() && t.impl()->storage_ && t.impl()->storage_->meta();
}

namespace {

nb::object to_list(const Tensor& t, int64_t d, const char* p) {
  if (d == t.dim()) {
    return visit_dtype_with_half(t.dtype(), [&]<class T>() -> nb::object {
      T v;
      std::memcpy(&v, p, sizeof(T));
      if constexpr (is_half_v<T>) return nb::float_(double(float(v)));
      else if constexpr (is_complex_v<T>)
        return nb::steal(PyComplex_FromDoubles(double(v.real()), double(v.imag())));
      else if constexpr (std::is_same_v<T, bool>) return nb::bool_(v);
      else if constexpr (std::is_floating_point_v<T>) return nb::float_(double(v));
      else if constexpr (std::is_same_v<T, uint64_t>)  // beyond int64 from 2^63 on
        return nb::steal(PyLong_FromUnsignedLongLong(v));
      else return nb::int_(int64_t(v));
    });
  }
  nb::list out;
  int64_t step = t.strides()[d] * int64_t(t.itemsize());
  for (int64_t i = 0; i < t.sizes()[d]; ++i) out.append(to_list(t, d + 1, p + i * step));
  return out;
}

nb::tuple to_tuple(IntList v) {
  nb::list l;
  for (int64_t x : v) l.append(x);
  return nb::tuple(l);
}

// Tensor::size/stride wrap dims as if a 0-d tensor had one dim (as reductions need), so
// on a 0-d tensor they would read past the end of its (empty) sizes: reject, as PyTorch does.
void check_has_dims(const Tensor& t, int64_t dim, const char* op) {
  EMBER_CHECK(t.dim() > 0, IndexError, op, ": dimension specified as ", dim,
              " but tensor has no dimensions");
}

// torch's UserWarning when a cast drops the imaginary part (complex -> real keeps .real).
void warn_if_discarding_imag(DType from, DType to) {
  if (is_complex(from) && !is_complex(to) && to != DType::Bool &&
      PyErr_WarnEx(PyExc_UserWarning, "Casting complex values to real discards the imaginary part",
                   1) < 0)
    throw nb::python_error();
}

// float(z) / int(z) of a complex value with an imaginary part: torch's error.
Scalar real_value(Scalar s, const char* type) {
  EMBER_CHECK(!(s.is_complex() && s.imag() != 0), Error, "value cannot be converted to type ", type,
              " without overflow");
  return s;
}

Scalar one_element(const Tensor& t, const char* what) {
  EMBER_CHECK(!is_meta(t), Error, "Tensor.item() cannot be called on meta tensors");
  EMBER_CHECK(t.numel() == 1, ValueError, what,
              ": only one element tensors can be converted "
              "to Python scalars (got shape ",
              t.sizes(), ")");
  return t.item();
}

// A uint64 value from 2^63 up does not fit Scalar's int64: item(), int(), index() and float()
// of a uint64 tensor read its element here (torch: 18446744073709551615, not -1).
nb::object uint64_value(const Tensor& t, const char* what, bool as_float) {
  EMBER_CHECK(t.numel() == 1, ValueError, what,
              ": only one element tensors can be converted to Python scalars (got shape ",
              t.sizes(), ")");
  capture::data_read("Tensor.item()");
  const uint64_t v = *t.data<uint64_t>();
  return as_float ? nb::float_(double(v)) : nb::steal(PyLong_FromUnsignedLongLong(v));
}

// contiguous / is_contiguous / clone given a memory_format: ember/_memory_format.py lays the
// tensor out (a permute, a copy, the inverse permute); the plain forms stay in C++.
nb::object in_layout(const char* fn, nb::handle t, nb::handle fmt) {
  return nb::module_::import_("ember._memory_format").attr(fn)(t, fmt);
}

}  // namespace

static nb::class_<Tensor>* g_cls = nullptr;

nb::class_<Tensor>& tensor_class() { return *g_cls; }

void bind_tensor(nb::module_& m) {
  // Kept for the other bind_* functions. The pointer is never destroyed and does not own
  // a reference (the module does), so nanobind's leak check at exit stays clean.
  g_cls = new nb::class_<Tensor>(m, "Tensor", nb::is_weak_referenceable(), nb::dynamic_attr(),
                                 docstring("Tensor"));
  g_cls->dec_ref();
  nb::class_<Tensor>& cls = *g_cls;
  // Tensor(data) aliases data's storage as a new leaf (data.detach()): what nn.Parameter's
  // constructor needs. Python subclasses call it through super().__init__.
  cls.def(
      "__init__", [](Tensor* self, const Tensor& data) { new (self) Tensor(detach(data)); },
      nb::arg("data"));
  // torch's legacy constructor for everything else: Tensor(), Tensor(2, 3), Tensor(Size),
  // Tensor([[1, 2]]) (float32 data); the argument shaping is ember._creation._legacy_tensor.
  cls.def("__init__", [](Tensor* self, nb::args args) {
    nb::object t = nb::module_::import_("ember._creation").attr("_legacy_tensor")(*args);
    new (self) Tensor(nb::cast<Tensor>(t));
  });
  cls.def_prop_ro("_shape", [](const Tensor& t) { return to_tuple(t.sizes()); })
      .def_prop_ro(
          "shape", [](const Tensor& t) { return make_size(t.sizes()); }, method_docstring("shape"))
      .def_prop_ro("dtype", &Tensor::dtype, method_docstring("dtype"))
      .def_prop_ro("ndim", &Tensor::dim, method_docstring("ndim"))
      .def_prop_ro("_version", &Tensor::version)
      .def("dim", &Tensor::dim, method_docstring("dim"))
      .def("ndimension", &Tensor::dim, method_docstring("ndimension"))
      .def("numel", &Tensor::numel, method_docstring("numel"))
      .def("nelement", &Tensor::numel, method_docstring("nelement"))
      .def(
          "element_size", [](const Tensor& t) { return t.itemsize(); },
          method_docstring("element_size"))
      .def(
          "is_contiguous", [](const Tensor& t) { return t.is_contiguous(); },
          method_docstring("is_contiguous"))
      .def(
          "is_contiguous",
          [](nb::handle self, nb::handle fmt) { return in_layout("is_contiguous", self, fmt); },
          nb::arg("memory_format"), method_docstring("is_contiguous"))
      .def("storage_offset", &Tensor::offset, method_docstring("storage_offset"))
      .def(
          "data_ptr",
          [](const Tensor& t) {  // 0 for a tensor without elements, as torch
            return t.numel() == 0 ? uintptr_t(0) : reinterpret_cast<uintptr_t>(t.data_ptr());
          },
          method_docstring("data_ptr"))
      .def("_storage_ptr",
           [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.storage()->data()); })
      .def(
          "stride",
          [](const Tensor& t, nb::handle dim) -> nb::object {
            if (dim.is_none()) return to_tuple(t.strides());
            int64_t d = nb::cast<int64_t>(dim);
            check_has_dims(t, d, "stride");
            return nb::int_(t.stride(d));
          },
          nb::arg("dim") = nb::none(), method_docstring("stride"))
      .def("_size",
           [](const Tensor& t, int64_t dim) {
             check_has_dims(t, dim, "size");
             return t.size(dim);
           })
      .def(
          "item",
          [](const Tensor& t) -> nb::object {
            if (t.dtype() == DType::UInt64) return uint64_value(t, "item", false);
            return nb::cast(one_element(t, "item"));
          },
          nb::sig("def item(self) -> Number"), method_docstring("item"))
      .def(
          "tolist",
          [](const Tensor& t) {
            EMBER_CHECK(!is_meta(t), NotImplementedError,
                        "Cannot copy out of meta tensor; no data!");
            capture::data_read("Tensor.tolist()");
            return to_list(t, 0, t.data_ptr());
          },
          method_docstring("tolist"))
      .def("_is_meta", &is_meta)
      .def("_set_meta",
           [](const Tensor& t) {
             EMBER_CHECK(t.defined() && t.impl()->storage_, Error,
                         "_set_meta: a dense tensor with storage is needed");
             t.impl()->storage_->set_meta();
           })
      .def("__len__",
           [](const Tensor& t) {
             EMBER_CHECK(t.dim() > 0, TypeError, "len() of a 0-d tensor");
             return t.sizes()[0];
           })
      .def("__bool__",
           [](const Tensor& t) {
             EMBER_CHECK(t.numel() == 1, Error, "Boolean value of Tensor with ",
                         t.numel() == 0 ? "no" : "more than one", " values is ambiguous (shape ",
                         t.sizes(), ")");
             return t.item().to<bool>();
           })
      .def(
          "__float__",
          [](const Tensor& t) -> nb::object {
            if (t.dtype() == DType::UInt64) return uint64_value(t, "float", true);
            return nb::float_(real_value(one_element(t, "float"), "double").to_double());
          },
          nb::sig("def __float__(self) -> float"))
      .def(
          "__int__",
          [](const Tensor& t) -> nb::object {
            if (t.dtype() == DType::UInt64) return uint64_value(t, "int", false);
            return nb::int_(real_value(one_element(t, "int"), "int64_t").to_int());
          },
          nb::sig("def __int__(self) -> int"))
      .def("__complex__",
           [](const Tensor& t) {
             std::complex<double> z = one_element(t, "complex").to_complex();
             return nb::steal(PyComplex_FromDoubles(z.real(), z.imag()));
           })
      .def(
          "__index__",
          [](const Tensor& t) -> nb::object {
            EMBER_CHECK(is_integral(t.dtype(), true) && t.numel() == 1, TypeError,
                        "only integer tensors of a single element can be converted to an index");
            if (t.dtype() == DType::UInt64) return uint64_value(t, "index", false);
            return nb::int_(t.item().to_int());
          },
          nb::sig("def __index__(self) -> int"))
      .def("_to_dtype",
           [](const Tensor& t, DType d) {
             warn_if_discarding_imag(t.dtype(), d);
             return to_dtype(t, d);
           })
      .def(
          "contiguous",
          [](nb::handle self) -> nb::object {  // self itself when already contiguous, as torch
            Tensor r = contiguous(self_of(self));
            return r.is_same(self_of(self)) ? nb::borrow(self) : nb::cast(std::move(r));
          },
          method_docstring("contiguous"))
      .def(
          "contiguous",
          [](nb::handle self, nb::handle fmt) { return in_layout("contiguous", self, fmt); },
          nb::arg("memory_format"), method_docstring("contiguous"))
      // In-place methods return self (the same Python object), as in torch.
      // non_blocking is accepted as torch's CPU build accepts it: a CPU copy is synchronous.
      .def(
          "copy_",
          [](nb::handle self, const Tensor& s, bool) {
            // Note [Meta tensors]: into a meta tensor nothing is copied; out of one, nothing can be
            if (is_meta(self_of(self))) return nb::borrow(self);
            EMBER_CHECK(!is_meta(s), NotImplementedError,
                        "Cannot copy out of meta tensor; no data!");
            warn_if_discarding_imag(s.dtype(), self_of(self).dtype());
            copy_(self_of(self), s);
            return nb::borrow(self);
          },
          nb::arg("src"), nb::arg("non_blocking") = false, method_docstring("copy_"))
      .def(
          "fill_",
          [](nb::handle self, Scalar v) { return inplace(self, [&](Tensor& t) { fill_(t, v); }); },
          method_docstring("fill_"))
      .def(
          "fill_",
          [](nb::handle self, const Tensor& v) {
            return inplace(self, [&](Tensor& t) { fill_(t, v); });
          },
          method_docstring("fill_"))
      .def(
          "zero_", [](nb::handle self) { return inplace(self, [](Tensor& t) { zero_(t); }); },
          method_docstring("zero_"))
      // uniform_, normal_ and the other random fills: python/bindings/random.cpp (generator=)
      .def("_is_same", [](const Tensor& a, const Tensor& b) { return a.is_same(b); })
      // torch's Tensor._cdata: the address of the C++ tensor, equal for two Python objects of one
      // tensor (pyro compares a module's parameter with the param store's by it)
      .def_prop_ro("_cdata", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.impl()); })
      .def("_shares_storage",
           [](const Tensor& a, const Tensor& b) { return a.storage() == b.storage(); });
  def_both(m, cls, "clone", [](const Tensor& t) { return clone(t); });
  m.def(
      "clone", [](nb::handle t, nb::handle fmt) { return in_layout("clone", t, fmt); },
      nb::arg("input"), nb::kw_only(), nb::arg("memory_format"), docstring("clone"));
  cls.def(
      "clone", [](nb::handle self, nb::handle fmt) { return in_layout("clone", self, fmt); },
      nb::kw_only(), nb::arg("memory_format"), method_docstring("clone"));
  def_both(m, cls, "detach", [](const Tensor& t) { return detach(t); });
}

}  // namespace ember::py
