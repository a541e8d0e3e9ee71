// Elementwise ops as functions, methods and Python operators. In-place methods return
// `self` (the same Python object, as in PyTorch), so `p += 1` keeps a Parameter a Parameter.
#include "common.h"

namespace ember::py {
namespace {

// A Python number as the 0-d tensor that promotes like the number would next to `t`
// (for the overloads whose C++ form takes tensors only).
Tensor scalar_like(const Tensor& t, Scalar s) {
  return to_dtype(scalar_tensor(s), result_type(t, s));
}

Tensor operand_like(const Tensor& t, const Operand& o) {
  return o.is_tensor ? o.tensor : scalar_like(t, o.scalar);
}

// clamp with tensor bounds (torch.clamp(x, min=lo_t, max=hi_t)): maximum then minimum,
// which propagates NaN and lets max win when min > max, as in PyTorch.
Tensor clamp_tensors(const Tensor& a, const std::optional<Operand>& lo,
                     const std::optional<Operand>& hi, const char* name = "clamp") {
  if (!lo && !hi) return clamp(a, std::nullopt, std::nullopt);  // raises
  // Check shapes first so that a mismatch names clamp, not the maximum/minimum below.
  Dims shape(a.sizes());
  if (lo && lo->is_tensor) shape = broadcast_shapes(shape, lo->tensor.sizes(), name);
  if (hi && hi->is_tensor) broadcast_shapes(shape, hi->tensor.sizes(), name);
  Tensor r = a;
  if (lo) r = maximum(r, operand_like(a, *lo));
  if (hi) r = minimum(r, operand_like(a, *hi));
  return r;
}

bool any_tensor(const std::optional<Operand>& lo, const std::optional<Operand>& hi) {
  return (lo && lo->is_tensor) || (hi && hi->is_tensor);
}
std::optional<Scalar> scalar_of(const std::optional<Operand>& o) {
  return o ? std::optional<Scalar>(o->scalar) : std::nullopt;
}

// masked_fill's value may be a number or a 0-d tensor.
Scalar fill_value(const Operand& v) {
  if (!v.is_tensor) return v.scalar;
  EMBER_CHECK(v.tensor.dim() == 0, ValueError,
              "masked_fill: only supports a 0-dimensional value "
              "tensor, but got tensor with ",
              v.tensor.dim(), " dimension(s)");
  return v.tensor.item();
}

}  // namespace

// out= (torch's keyword of every elementwise function): result written into out, which is
// returned; torch's warning when a non-empty out had to be resized. out=None: result itself.
nb::object into(nb::handle out, const Tensor& result, const char* op) {
  if (out.is_none()) return nb::cast(result);
  if (!nb::isinstance<Tensor>(out))
    throw TypeError(detail::cat(op, "(): argument 'out' must be Tensor, not ",
                                nb::type_name(out.type()).c_str()));
  Dims before(self_of(out).sizes());
  if (write_out(self_of(out), result, op)) {
    std::string msg = detail::
        cat("An output with one or more elements was resized since it had "
            "shape ",
            before,
            ", which does not match the required output "
            "shape ",
            result.sizes(), " (", op, ")");
    if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) != 0) throw nb::python_error();
  }
  return nb::borrow(out);
}

void bind_elementwise(nb::module_& m) {
  auto& cls = tensor_class();

#define EMBER_UNARY(name, Enum, kind)                                                          \
  def_both(m, cls, #name, [](const Tensor& a) { return name(a); });                            \
  cls.def(                                                                                     \
      #name "_", [](nb::handle self) { return inplace(self, [](Tensor& t) { name##_(t); }); }, \
      method_docstring(#name "_"));                                                            \
  m.def(                                                                                       \
      #name, [](const Tensor& a, nb::handle out) { return into(out, name(a), #name); },        \
      nb::arg("input"), nb::kw_only(), nb::arg("out"), docstring(#name));
#include "ember/ops.def"
#undef EMBER_UNARY

  // The binary and comparison ops' shared forms: ember.name(a, b) / a.name(b) with b a tensor
  // or a number, and ember.name(a, b, out=t).
#define EMBER_BIND_OPERAND(name)                                  \
  def_both(m, cls, #name, [](const Tensor& a, const Operand& b) { \
    return b.is_tensor ? name(a, b.tensor) : name(a, b.scalar);   \
  })
#define EMBER_BIND_OUT(name)                                                          \
  m.def(                                                                              \
      #name,                                                                          \
      [](const Tensor& a, const Operand& b, nb::handle out) {                         \
        return into(out, b.is_tensor ? name(a, b.tensor) : name(a, b.scalar), #name); \
      },                                                                              \
      nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("out"), docstring(#name))
#define EMBER_BINARY(name, Enum, kind)                                                \
  EMBER_BIND_OPERAND(name);                                                           \
  cls.def(                                                                            \
      #name "_",                                                                      \
      [](nb::handle self, const Operand& b) {                                         \
        return inplace(self, [&](Tensor& t) {                                         \
          if (b.is_tensor) name##_(t, b.tensor);                                      \
          else name##_(t, b.scalar);                                                  \
        });                                                                           \
      },                                                                              \
      method_docstring(#name "_"));                                                   \
  /* torch.pow(2, t) */                                                               \
  m.def(                                                                              \
      #name, [](Scalar a, const Tensor& b) { return name(a, b); }, docstring(#name)); \
  EMBER_BIND_OUT(name);
#include "ember/ops.def"
#undef EMBER_BINARY

#define EMBER_COMPARE(name, Enum) \
  EMBER_BIND_OPERAND(name);       \
  EMBER_BIND_OUT(name);
#include "ember/ops.def"
#undef EMBER_COMPARE
#undef EMBER_BIND_OPERAND
#undef EMBER_BIND_OUT

  // round with decimals, after the plain overloads (which stay the fast first ones).
  def_both(
      m, cls, "round", [](const Tensor& a, int64_t decimals) { return round(a, decimals); },
      nb::kw_only(), nb::arg("decimals"));
  m.def(
      "round",
      [](const Tensor& a, int64_t decimals, nb::handle out) {
        return into(out, round(a, decimals), "round");
      },
      nb::arg("input"), nb::kw_only(), nb::arg("decimals"), nb::arg("out"), docstring("round"));
  cls.def(
      "round_",
      [](nb::handle self, int64_t decimals) {
        return inplace(self, [&](Tensor& t) { round_(t, decimals); });
      },
      nb::kw_only(), nb::arg("decimals"), method_docstring("round_"));

  // add/sub with alpha (torch.add(a, b, alpha=2)); registered after the plain ones so the
  // two-argument form stays the fast first overload.
  def_both(
      m, cls, "add",
      [](const Tensor& a, const Operand& b, Scalar alpha) {
        return add(a, operand_like(a, b), alpha);
      },
      nb::arg("other"), nb::kw_only(), nb::arg("alpha"));
  def_both(
      m, cls, "sub",
      [](const Tensor& a, const Operand& b, Scalar alpha) {
        return sub(a, operand_like(a, b), alpha);
      },
      nb::arg("other"), nb::kw_only(), nb::arg("alpha"));
  // div with rounding_mode (None: true division, the plain overload's)
  def_both(
      m, cls, "div",
      [](const Tensor& a, const Operand& b, std::optional<std::string> mode) {
        return mode ? div(a, operand_like(a, b), *mode) : div(a, operand_like(a, b));
      },
      nb::arg("other"), nb::kw_only(), nb::arg("rounding_mode").none());
  // ... and each of the three with out= (torch.add(a, b, alpha=tau, out=a): stable-baselines3's
  // Polyak update). The result is computed first, so out may alias an input.
#define EMBER_ALPHA_OUT(name)                                                              \
  m.def(                                                                                   \
      #name,                                                                               \
      [](const Tensor& a, const Operand& b, Scalar alpha, nb::handle out) {                \
        return into(out, name(a, operand_like(a, b), alpha), #name);                       \
      },                                                                                   \
      nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("alpha"), nb::arg("out"), \
      docstring(#name))
  EMBER_ALPHA_OUT(add);
  EMBER_ALPHA_OUT(sub);
#undef EMBER_ALPHA_OUT
  m.def(
      "div",
      [](const Tensor& a, const Operand& b, std::optional<std::string> mode, nb::handle out) {
        return into(out, mode ? div(a, operand_like(a, b), *mode) : div(a, operand_like(a, b)),
                    "div");
      },
      nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("rounding_mode").none(),
      nb::arg("out"), docstring("div"));
  cls.def(
      "div_",
      [](nb::handle self, const Operand& b, std::optional<std::string> mode) {
        return inplace(self, [&](Tensor& t) {
          if (mode) div_(t, operand_like(t, b), *mode);
          else div_(t, operand_like(t, b));
        });
      },
      nb::arg("other"), nb::kw_only(), nb::arg("rounding_mode").none(), method_docstring("div_"));
  cls.def(
      "add_",
      [](nb::handle self, const Operand& b, Scalar alpha) {
        return inplace(self, [&](Tensor& t) { add_(t, operand_like(t, b), alpha); });
      },
      nb::arg("other"), nb::kw_only(), nb::arg("alpha"), method_docstring("add_"));
  cls.def(
      "sub_",
      [](nb::handle self, const Operand& b, Scalar alpha) {
        return inplace(self, [&](Tensor& t) { sub_(t, operand_like(t, b), alpha); });
      },
      nb::arg("other"), nb::kw_only(), nb::arg("alpha"), method_docstring("sub_"));

  // Python operators. nb::is_operator() makes a wrong operand type return NotImplemented.
  auto op = nb::is_operator();
// t.__lt__(b) and friends: a tensor or a Python number b, no temporary 0-d tensor.
#define EMBER_OPERATOR(py, fn)                                  \
  cls.def(                                                      \
      py,                                                       \
      [](const Tensor& a, const Operand& b) {                   \
        return b.is_tensor ? fn(a, b.tensor) : fn(a, b.scalar); \
      },                                                        \
      op)
// t.__add__(b), b.__radd__(t) and t.__iadd__(b) for each arithmetic operator.
#define EMBER_ARITHMETIC(py, fn)                                \
  EMBER_OPERATOR("__" py "__", fn);                             \
  cls.def(                                                      \
      "__r" py "__",                                            \
      [](const Tensor& a, const Operand& b) {                   \
        return b.is_tensor ? fn(b.tensor, a) : fn(b.scalar, a); \
      },                                                        \
      op);                                                      \
  cls.def(                                                      \
      "__i" py "__",                                            \
      [](nb::handle self, const Operand& b) {                   \
        return inplace(self, [&](Tensor& t) {                   \
          if (b.is_tensor) fn##_(t, b.tensor);                  \
          else fn##_(t, b.scalar);                              \
        });                                                     \
      },                                                        \
      op)
  EMBER_ARITHMETIC("add", add);
  EMBER_ARITHMETIC("sub", sub);
  EMBER_ARITHMETIC("mul", mul);
  EMBER_ARITHMETIC("truediv", div);
  EMBER_ARITHMETIC("floordiv", floor_divide);
  EMBER_ARITHMETIC("mod", remainder);
  EMBER_ARITHMETIC("pow", pow);
  EMBER_ARITHMETIC("and", bitwise_and);
  EMBER_ARITHMETIC("or", bitwise_or);
  EMBER_ARITHMETIC("xor", bitwise_xor);
  // Comparisons with a scalar on the left arrive reflected (2 < t calls t.__gt__(2)).
  EMBER_OPERATOR("__lt__", lt);
  EMBER_OPERATOR("__le__", le);
  EMBER_OPERATOR("__gt__", gt);
  EMBER_OPERATOR("__ge__", ge);
  EMBER_OPERATOR("__eq__", eq);
  EMBER_OPERATOR("__ne__", ne);
#undef EMBER_ARITHMETIC
#undef EMBER_OPERATOR
  cls.def("__hash__", [](nb::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); });
  cls.def("__neg__", [](const Tensor& a) { return neg(a); });
  cls.def("__abs__", [](const Tensor& a) { return abs(a); });
  cls.def("__invert__", [](const Tensor& a) { return bitwise_not(a); });
  cls.def("__pos__", [](const Tensor& a) {
    EMBER_CHECK(a.dtype() != DType::Bool, TypeError,
                "pos: the `+` operator, on a bool tensor is not supported");
    return a;
  });

  def_both(m, cls, "logical_not", [](const Tensor& a) { return logical_not(a); });
  def_both(m, cls, "bitwise_not", [](const Tensor& a) { return bitwise_not(a); });
  using OptOperand = std::optional<Operand>;
  def_both(
      m, cls, "clamp",
      [](const Tensor& a, const OptOperand& lo, const OptOperand& hi) {
        if (any_tensor(lo, hi)) return clamp_tensors(a, lo, hi);
        return clamp(a, scalar_of(lo), scalar_of(hi));
      },
      nb::arg("min") = nb::none(), nb::arg("max") = nb::none());
  cls.def(
      "clamp_",
      [](nb::handle self, const OptOperand& lo, const OptOperand& hi) {
        Tensor& t = self_of(self);
        if (is_meta(t)) return nb::borrow(self);  // Note [Meta tensors]
        if (!any_tensor(lo, hi)) {
          clamp_(t, scalar_of(lo), scalar_of(hi));
          return nb::borrow(self);
        }
        Tensor r = clamp_tensors(t, lo, hi, "clamp_");
        EMBER_CHECK(can_cast(r.dtype(), t.dtype()), TypeError, "clamp_: result type ",
                    dtype_name(r.dtype()), " can't be cast to the desired output type ",
                    dtype_name(t.dtype()));
        copy_(t, r);
        return nb::borrow(self);
      },
      nb::arg("min") = nb::none(), nb::arg("max") = nb::none(), method_docstring("clamp_"));
  m.def(
      "where",
      [](const Tensor& c, const Operand& a, const Operand& b) {
        if (a.is_tensor && !b.is_tensor) return where(c, a.tensor, b.scalar);
        if (!a.is_tensor && b.is_tensor) return where(c, a.scalar, b.tensor);
        return where(c, a.is_tensor ? a.tensor : scalar_tensor(a.scalar),
                     b.is_tensor ? b.tensor : scalar_tensor(b.scalar));
      },
      docstring("where"));
  def_both(m, cls, "masked_fill", [](const Tensor& t, const Tensor& mask, const Operand& v) {
    return masked_fill(t, mask, fill_value(v));
  });
  cls.def(
      "masked_fill_",
      [](nb::handle self, const Tensor& mask, const Operand& v) {
        masked_fill_(self_of(self), mask, fill_value(v));
        return nb::borrow(self);
      },
      method_docstring("masked_fill_"));
  // The op list from ops.def, for the test sweep: (name, family, kind).
  m.def("_op_info", [] {
    nb::list out;
#define EMBER_UNARY(name, Enum, kind) out.append(nb::make_tuple(#name, "unary", #kind));
#define EMBER_BINARY(name, Enum, kind) out.append(nb::make_tuple(#name, "binary", #kind));
#define EMBER_COMPARE(name, Enum) out.append(nb::make_tuple(#name, "compare", ""));
#include "ember/ops.def"
#undef EMBER_UNARY
#undef EMBER_BINARY
#undef EMBER_COMPARE
    return out;
  });
  m.def(
      "result_type",
      [](const Tensor& a, const Operand& b) {
        return b.is_tensor ? result_type(a, b.tensor) : result_type(a, b.scalar);
      },
      docstring("result_type"));
}

}  // namespace ember::py
