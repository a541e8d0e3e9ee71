// NumPy's argument names, which torch's argument parser takes for four parameters of every
// function and method (python_arg_parser.cpp's numpy_compatibility_arg_names): `axis` for dim,
// `keepdims` for keepdim, `x`/`a`/`x1` for input, `x2` for other. Programs write
// `p.sum(axis=-1, keepdim=True)` and `torch.prod(x, axis=0)` (torchmetrics' KL divergence and
// multi-scale SSIM).
//
// Every bound name that has one of those parameters gets one more overload, last:
// (*args, **kwargs) that renames the NumPy names and calls the name again. Its hidden
// parameter's caster accepts only in nanobind's second pass (implicit conversions), so an
// ordinary call never reaches it: the fallback is tried only after every real overload has
// refused the call, converting or not, and it costs nothing on the fast path. ember/__init__.py
// adds them at import (ember._C._add_numpy_names), after the bare module's type stubs are made.
#include <deque>
#include <string>

#include "common.h"

namespace ember::py {
struct SecondPass {};  // the fallback's hidden parameter
}  // namespace ember::py

namespace nanobind::detail {
template <>
struct type_caster<ember::py::SecondPass> {
  NB_TYPE_CASTER(ember::py::SecondPass, const_name("None"))
  bool from_python(handle, uint8_t flags, cleanup_list*) noexcept {
    return (flags & (uint8_t)cast_flags::convert) != 0;
  }
  static handle from_cpp(ember::py::SecondPass, rv_policy, cleanup_list*) noexcept {
    return none().release();
  }
};
}  // namespace nanobind::detail

namespace ember::py {
namespace {

// NumPy's name -> torch's
const char* torch_name(std::string_view key) {
  if (key == "axis") return "dim";
  if (key == "keepdims") return "keepdim";
  if (key == "x" || key == "a" || key == "x1") return "input";
  if (key == "x2") return "other";
  return nullptr;
}

// Does any overload of f have a parameter that NumPy names differently?
bool takes_aliased_parameter(nb::handle f) {
  if (!nb::hasattr(f, "__nb_signature__")) return false;
  for (nb::handle sig : f.attr("__nb_signature__")) {
    std::string s = nb::cast<std::string>(sig[0]);
    for (const char* p : {"dim:", "keepdim:", "input:", "other:"}) {
      for (size_t at = s.find(p); at != std::string::npos; at = s.find(p, at + 1)) {
        if (at > 0 && (s[at - 1] == '(' || s[at - 1] == ' ')) return true;
      }
    }
  }
  return false;
}

// The kwargs with NumPy's names renamed, or None when there is none to rename.
nb::object renamed(const nb::kwargs& kwargs) {
  nb::dict out;
  bool any = false;
  for (auto [key, value] : kwargs) {
    const char* to = torch_name(nb::cast<std::string>(key));
    if (to != nullptr && !kwargs.contains(to)) {
      out[to] = value;
      any = true;
    } else {
      out[key] = value;
    }
  }
  return any ? nb::object(out) : nb::none();
}

// nanobind keeps the name pointer: the strings live as long as the module
const char* keep(const std::string& name) {
  static std::deque<std::string> names;
  return names.emplace_back(name).c_str();
}

void add_function_fallback(nb::module_& m, const std::string& name) {
  const char* stored = keep(name);
  nb::handle owner = m;
  m.def(
      stored,
      [owner, stored](nb::args args, SecondPass, nb::kwargs kwargs) -> nb::object {
        nb::object kw = renamed(kwargs);
        if (kw.is_none()) throw nb::next_overload();  // nanobind raises its TypeError
        return owner.attr(stored)(*args, **nb::borrow<nb::dict>(kw));
      },
      nb::arg("args"), nb::arg("_numpy_names").none() = nb::none(), nb::arg("kwargs"),
      docstring(name));
}

void add_method_fallback(nb::class_<Tensor>& cls, const std::string& name) {
  const char* stored = keep(name);
  nb::handle owner = cls;
  cls.def(
      stored,
      [owner, stored](nb::handle self, nb::args args, SecondPass, nb::kwargs kwargs) -> nb::object {
        nb::object kw = renamed(kwargs);
        if (kw.is_none()) throw nb::next_overload();
        return owner.attr(stored)(self, *args, **nb::borrow<nb::dict>(kw));
      },
      nb::arg("args"), nb::arg("_numpy_names").none() = nb::none(), nb::arg("kwargs"),
      method_docstring(name));
}

template <class Owner>
std::vector<std::string> aliased_names(Owner& owner) {
  std::vector<std::string> out;
  nb::object d = nb::borrow(owner.attr("__dict__"));
  for (nb::handle key : nb::list(d.attr("keys")())) {
    std::string name = nb::cast<std::string>(key);
    if (name.rfind("__", 0) == 0) continue;  // operators: torch takes no NumPy names there
    if (takes_aliased_parameter(d[key])) out.push_back(name);
  }
  return out;
}

}  // namespace

void add_numpy_names(nb::module_& m) {
  static bool done = false;  // once: a second call would stack fallbacks on fallbacks
  if (done) return;
  done = true;
  for (const std::string& name : aliased_names(m)) add_function_fallback(m, name);
  auto& cls = tensor_class();
  for (const std::string& name : aliased_names(cls)) add_method_fallback(cls, name);
}

}  // namespace ember::py
