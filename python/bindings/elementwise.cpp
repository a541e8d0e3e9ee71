// Elementwise ops as functions, methods and Python operators. In-place methods return
// `self` (the same Python object, as in PyTorch), so `p += 1` keeps a Parameter a Parameter.
#include "common.h"

namespace ember::py {
namespace {

Tensor& self_of(nb::handle self) { return *nb::inst_ptr<Tensor>(self); }

}  // namespace

void bind_elementwise(nb::module_& m) {
  auto& cls = tensor_class();

#define EMBER_UNARY(name, Enum, kind)                                                        \
  def_both(m, cls, #name, [](const Tensor& a) { return name(a); });                         \
  cls.def(#name "_", [](nb::handle self) { name##_(self_of(self)); return nb::borrow(self); });
#include "ember/ops.def"
#undef EMBER_UNARY

#define EMBER_BINARY(name, Enum, kind)                                                      \
  def_both(m, cls, #name, [](const Tensor& a, const Operand& b) {                          \
    return b.is_tensor ? name(a, b.tensor) : name(a, b.scalar);                            \
  });                                                                                      \
  cls.def(#name "_", [](nb::handle self, const Operand& b) {                               \
    if (b.is_tensor) name##_(self_of(self), b.tensor);                                     \
    else name##_(self_of(self), b.scalar);                                                 \
    return nb::borrow(self);                                                               \
  });
#include "ember/ops.def"
#undef EMBER_BINARY

#define EMBER_COMPARE(name, Enum)                                                           \
  def_both(m, cls, #name, [](const Tensor& a, const Operand& b) {                          \
    return b.is_tensor ? name(a, b.tensor) : name(a, b.scalar);                            \
  });
#include "ember/ops.def"
#undef EMBER_COMPARE

  // add/sub with alpha (torch.add(a, b, alpha=2)); registered after the plain ones so the
  // two-argument form stays the fast first overload.
  def_both(m, cls, "add", [](const Tensor& a, const Tensor& b, Scalar alpha) { return add(a, b, alpha); },
           nb::arg("other"), nb::kw_only(), nb::arg("alpha"));
  def_both(m, cls, "sub", [](const Tensor& a, const Tensor& b, Scalar alpha) { return sub(a, b, alpha); },
           nb::arg("other"), nb::kw_only(), nb::arg("alpha"));
  cls.def("add_", [](nb::handle self, const Tensor& b, Scalar alpha) {
    add_(self_of(self), b, alpha);
    return nb::borrow(self);
  }, nb::arg("other"), nb::kw_only(), nb::arg("alpha"));
  cls.def("sub_", [](nb::handle self, const Tensor& b, Scalar alpha) {
    sub_(self_of(self), b, alpha);
    return nb::borrow(self);
  }, nb::arg("other"), nb::kw_only(), nb::arg("alpha"));

  // Python operators. nb::is_operator() makes a wrong operand type return NotImplemented.
  auto op = nb::is_operator();
#define EMBER_OPERATOR(py, fn)                                                                      \
  cls.def(py, [](const Tensor& a, const Operand& b) { return b.is_tensor ? fn(a, b.tensor) : fn(a, b.scalar); }, op);
#define EMBER_REFLECTED(py, fn)                                                                     \
  cls.def(py, [](const Tensor& a, const Operand& b) { return b.is_tensor ? fn(b.tensor, a) : fn(b.scalar, a); }, op);
#define EMBER_INPLACE(py, fn)                                                                       \
  cls.def(py, [](nb::handle self, const Operand& b) {                                            \
    if (b.is_tensor) fn(self_of(self), b.tensor); else fn(self_of(self), b.scalar);              \
    return nb::borrow(self);                                                                     \
  }, op);
  EMBER_OPERATOR("__add__", add) EMBER_REFLECTED("__radd__", add) EMBER_INPLACE("__iadd__", add_)
  EMBER_OPERATOR("__sub__", sub) EMBER_REFLECTED("__rsub__", sub) EMBER_INPLACE("__isub__", sub_)
  EMBER_OPERATOR("__mul__", mul) EMBER_REFLECTED("__rmul__", mul) EMBER_INPLACE("__imul__", mul_)
  EMBER_OPERATOR("__truediv__", div) EMBER_REFLECTED("__rtruediv__", div) EMBER_INPLACE("__itruediv__", div_)
  EMBER_OPERATOR("__floordiv__", floor_divide) EMBER_REFLECTED("__rfloordiv__", floor_divide)
  EMBER_INPLACE("__ifloordiv__", floor_divide_)
  EMBER_OPERATOR("__mod__", remainder) EMBER_REFLECTED("__rmod__", remainder) EMBER_INPLACE("__imod__", remainder_)
  EMBER_OPERATOR("__pow__", pow) EMBER_REFLECTED("__rpow__", pow) EMBER_INPLACE("__ipow__", pow_)
  EMBER_OPERATOR("__and__", bitwise_and) EMBER_REFLECTED("__rand__", bitwise_and) EMBER_INPLACE("__iand__", bitwise_and_)
  EMBER_OPERATOR("__or__", bitwise_or) EMBER_REFLECTED("__ror__", bitwise_or) EMBER_INPLACE("__ior__", bitwise_or_)
  EMBER_OPERATOR("__xor__", bitwise_xor) EMBER_REFLECTED("__rxor__", bitwise_xor) EMBER_INPLACE("__ixor__", bitwise_xor_)
#undef EMBER_OPERATOR
#undef EMBER_REFLECTED
#undef EMBER_INPLACE
  // Comparisons with a scalar on the left arrive reflected (2 < t calls t.__gt__(2)).
  cls.def("__lt__", [](const Tensor& a, const Operand& b) { return b.is_tensor ? lt(a, b.tensor) : lt(a, b.scalar); }, op);
  cls.def("__le__", [](const Tensor& a, const Operand& b) { return b.is_tensor ? le(a, b.tensor) : le(a, b.scalar); }, op);
  cls.def("__gt__", [](const Tensor& a, const Operand& b) { return b.is_tensor ? gt(a, b.tensor) : gt(a, b.scalar); }, op);
  cls.def("__ge__", [](const Tensor& a, const Operand& b) { return b.is_tensor ? ge(a, b.tensor) : ge(a, b.scalar); }, op);
  cls.def("__eq__", [](const Tensor& a, const Operand& b) { return b.is_tensor ? eq(a, b.tensor) : eq(a, b.scalar); }, op);
  cls.def("__ne__", [](const Tensor& a, const Operand& b) { return b.is_tensor ? ne(a, b.tensor) : ne(a, b.scalar); }, op);
  cls.def("__hash__", [](nb::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); });
  cls.def("__neg__", [](const Tensor& a) { return neg(a); });
  cls.def("__abs__", [](const Tensor& a) { return abs(a); });
  cls.def("__invert__", [](const Tensor& a) { return bitwise_not(a); });
  cls.def("__pos__", [](const Tensor& a) { return a; });

  def_both(m, cls, "logical_not", [](const Tensor& a) { return logical_not(a); });
  def_both(m, cls, "bitwise_not", [](const Tensor& a) { return bitwise_not(a); });
  def_both(m, cls, "clamp", [](const Tensor& a, std::optional<Scalar> lo, std::optional<Scalar> hi) {
    return clamp(a, lo, hi);
  }, nb::arg("min") = nb::none(), nb::arg("max") = nb::none());
  cls.def("clamp_", [](nb::handle self, std::optional<Scalar> lo, std::optional<Scalar> hi) {
    clamp_(self_of(self), lo, hi);
    return nb::borrow(self);
  }, nb::arg("min") = nb::none(), nb::arg("max") = nb::none());
  m.def("where", [](const Tensor& c, const Operand& a, const Operand& b) {
    Tensor ta = a.is_tensor ? a.tensor : scalar_tensor(a.scalar);
    Tensor tb = b.is_tensor ? b.tensor : scalar_tensor(b.scalar);
    if (!a.is_tensor && b.is_tensor) ta = to_dtype(ta, result_type(tb, a.scalar));
    if (!b.is_tensor && a.is_tensor) tb = to_dtype(tb, result_type(ta, b.scalar));
    return where(c, ta, tb);
  });
  def_both(m, cls, "masked_fill", [](const Tensor& t, const Tensor& mask, const Operand& v) {
    return masked_fill(t, mask, v.is_tensor ? v.tensor.item() : v.scalar);
  });
  cls.def("masked_fill_", [](nb::handle self, const Tensor& mask, const Operand& v) {
    masked_fill_(self_of(self), mask, v.is_tensor ? v.tensor.item() : v.scalar);
    return nb::borrow(self);
  });
  m.def("result_type", [](const Tensor& a, const Operand& b) {
    return b.is_tensor ? result_type(a, b.tensor) : result_type(a, b.scalar);
  });
}

}  // namespace ember::py
