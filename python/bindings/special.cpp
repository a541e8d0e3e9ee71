// The gamma, Bessel and error-function families, sinc, logit, xlogy
// (src/ops/special_functions.cpp): ember.X and Tensor.X (+ in-place forms) where torch has them,
// and the torch.special names as _C._special_X (python/ember/special.py names them as torch.special
// does).
#include "common.h"
#include "ember/special_polynomials.h"

namespace ember::py {
namespace {

template <class F>
nb::object inplace(nb::handle self, const char* op, F f) {
  // Module-level forms (ember.xlogy_(x, y)) take self as any object: check before casting.
  if (!nb::isinstance<Tensor>(self))
    throw TypeError(detail::cat(op, ": argument 'input' must be Tensor, not ",
                                nb::type_name(self.type()).c_str()));
  f(self_of(self));
  return nb::borrow(self);
}

}  // namespace

void bind_special(nb::module_& m) {
  auto& cls = tensor_class();
#define EMBER_BIND_MATH(name)                                                                  \
  def_both(m, cls, #name, [](const Tensor& t) { return name(t); });                            \
  cls.def(                                                                                     \
      #name "_",                                                                               \
      [](nb::handle self) { return inplace(self, #name "_", [](Tensor& t) { name##_(t); }); }, \
      method_docstring(#name "_"));
  EMBER_BIND_MATH(lgamma)
  EMBER_BIND_MATH(digamma)
  EMBER_BIND_MATH(erfc)
  EMBER_BIND_MATH(i0)
  EMBER_BIND_MATH(sinc)
#undef EMBER_BIND_MATH
  m.def(
      "_special_erfcx", [](const Tensor& t) { return special_erfcx(t); }, nb::arg("input"));
  m.def(
      "_special_i1", [](const Tensor& t) { return special_i1(t); }, nb::arg("input"));
  m.def(
      "_special_ndtr", [](const Tensor& t) { return special_ndtr(t); }, nb::arg("input"));
  m.def(
      "_special_ndtri", [](const Tensor& t) { return special_ndtri(t); }, nb::arg("input"));
  m.def(
      "_special_log_ndtr", [](const Tensor& t) { return special_log_ndtr(t); }, nb::arg("input"));
  m.def(
      "_special_i0e", [](const Tensor& t) { return special_i0e(t); }, nb::arg("input"));
  m.def(
      "_special_i1e", [](const Tensor& t) { return special_i1e(t); }, nb::arg("input"));
  m.def(
      "_special_entr", [](const Tensor& t) { return special_entr(t); }, nb::arg("input"));
  m.def(
      "_special_bessel_j0", [](const Tensor& t) { return special_bessel_j0(t); }, nb::arg("input"));
  m.def(
      "_special_bessel_j1", [](const Tensor& t) { return special_bessel_j1(t); }, nb::arg("input"));
#define EMBER_BIND_SPECIAL(name) \
  m.def(                         \
      "_special_" #name, [](const Tensor& t) { return special_##name(t); }, nb::arg("input"));
  EMBER_BIND_SPECIAL(bessel_y0)
  EMBER_BIND_SPECIAL(bessel_y1)
  EMBER_BIND_SPECIAL(modified_bessel_k0)
  EMBER_BIND_SPECIAL(modified_bessel_k1)
  EMBER_BIND_SPECIAL(scaled_modified_bessel_k0)
  EMBER_BIND_SPECIAL(scaled_modified_bessel_k1)
  EMBER_BIND_SPECIAL(spherical_bessel_j0)
  EMBER_BIND_SPECIAL(airy_ai)
#undef EMBER_BIND_SPECIAL
  // torch's top-level in-place forms (torch.erfc_(t), ...)
#define EMBER_BIND_INPLACE(name) def_module_inplace(m, #name "_", [](Tensor& t) { name##_(t); });
  EMBER_BIND_INPLACE(erfc)
  EMBER_BIND_INPLACE(i0)
  EMBER_BIND_INPLACE(sinc)
#undef EMBER_BIND_INPLACE
  def_both(
      m, cls, "igamma", [](const Tensor& a, const Tensor& x) { return igamma(a, x); },
      nb::arg("other"));
  def_both(
      m, cls, "igammac", [](const Tensor& a, const Tensor& x) { return igammac(a, x); },
      nb::arg("other"));
  cls.def(
      "igamma_",
      [](nb::handle self, const Tensor& x) {
        return inplace(self, "igamma_", [&x](Tensor& t) { igamma_(t, x); });
      },
      nb::arg("other"), method_docstring("igamma_"));
  cls.def(
      "igammac_",
      [](nb::handle self, const Tensor& x) {
        return inplace(self, "igammac_", [&x](Tensor& t) { igammac_(t, x); });
      },
      nb::arg("other"), method_docstring("igammac_"));

  m.def(
      "polygamma", [](int64_t n, const Tensor& t) { return polygamma(n, t); }, nb::arg("n"),
      nb::arg("input"), docstring("polygamma"));
  cls.def(
      "polygamma", [](const Tensor& t, int64_t n) { return polygamma(n, t); }, nb::arg("n"),
      method_docstring("polygamma"));
  cls.def(
      "polygamma_",
      [](nb::handle self, int64_t n) {
        return inplace(self, "polygamma_", [n](Tensor& t) { polygamma_(t, n); });
      },
      nb::arg("n"), method_docstring("polygamma_"));
  def_both(
      m, cls, "mvlgamma", [](const Tensor& t, int64_t p) { return mvlgamma(t, p); }, nb::arg("p"));
  cls.def(
      "mvlgamma_",
      [](nb::handle self, int64_t p) {
        return inplace(self, "mvlgamma_", [p](Tensor& t) { mvlgamma_(t, p); });
      },
      nb::arg("p"), method_docstring("mvlgamma_"));
  def_both(
      m, cls, "logit", [](const Tensor& t, std::optional<double> eps) { return logit(t, eps); },
      nb::arg("eps") = nb::none());
  cls.def(
      "logit_",
      [](nb::handle self, std::optional<double> eps) {
        return inplace(self, "logit_", [eps](Tensor& t) { logit_(t, eps); });
      },
      nb::arg("eps") = nb::none(), method_docstring("logit_"));
  m.def(
      "logit_",
      [](nb::handle self, std::optional<double> eps) {
        return inplace(self, "logit_", [eps](Tensor& t) { logit_(t, eps); });
      },
      nb::arg("input"), nb::arg("eps") = nb::none(), docstring("logit_"));

  // xlogy(Tensor | Number, Tensor | Number), at least one a tensor, as torch.
  m.def(
      "xlogy", [](const Tensor& x, const Tensor& y) { return xlogy(x, y); }, nb::arg("input"),
      nb::arg("other"), docstring("xlogy"));
  m.def(
      "xlogy", [](const Tensor& x, Scalar y) { return xlogy(x, y); }, nb::arg("input"),
      nb::arg("other"), docstring("xlogy"));
  m.def(
      "xlogy", [](Scalar x, const Tensor& y) { return xlogy(x, y); }, nb::arg("input"),
      nb::arg("other"), docstring("xlogy"));
  cls.def(
      "xlogy", [](const Tensor& x, const Tensor& y) { return xlogy(x, y); }, nb::arg("other"),
      method_docstring("xlogy"));
  cls.def(
      "xlogy", [](const Tensor& x, Scalar y) { return xlogy(x, y); }, nb::arg("other"),
      method_docstring("xlogy"));
  m.def(
      "xlogy_",
      [](nb::handle self, const Tensor& y) {
        return inplace(self, "xlogy_", [&y](Tensor& t) { xlogy_(t, y); });
      },
      nb::arg("input"), nb::arg("other"), docstring("xlogy_"));
  m.def(
      "xlogy_",
      [](nb::handle self, Scalar y) {
        return inplace(self, "xlogy_", [y](Tensor& t) { xlogy_(t, y); });
      },
      nb::arg("input"), nb::arg("other"), docstring("xlogy_"));
  cls.def(
      "xlogy_",
      [](nb::handle self, const Tensor& y) {
        return inplace(self, "xlogy_", [&y](Tensor& t) { xlogy_(t, y); });
      },
      nb::arg("other"), method_docstring("xlogy_"));
  cls.def(
      "xlogy_",
      [](nb::handle self, Scalar y) {
        return inplace(self, "xlogy_", [y](Tensor& t) { xlogy_(t, y); });
      },
      nb::arg("other"), method_docstring("xlogy_"));
  m.def(
      "_special_xlog1py", [](const Tensor& x, const Tensor& y) { return special_xlog1py(x, y); },
      nb::arg("input"), nb::arg("other"));
  m.def(
      "_special_xlog1py", [](const Tensor& x, Scalar y) { return special_xlog1py(x, y); },
      nb::arg("input"), nb::arg("other"));
  m.def(
      "_special_xlog1py", [](Scalar x, const Tensor& y) { return special_xlog1py(x, y); },
      nb::arg("input"), nb::arg("other"));
  // The orthogonal polynomials and zeta (src/ops/special_polynomials.cpp), each as
  // (Tensor, Tensor), (Tensor, Number) and (Number, Tensor), as torch.
#define EMBER_BIND_BINARY(name, a, b)                                                           \
  m.def(                                                                                        \
      "_special_" #name, [](const Tensor& x, const Tensor& y) { return special_##name(x, y); }, \
      nb::arg(a), nb::arg(b));                                                                  \
  m.def(                                                                                        \
      "_special_" #name, [](const Tensor& x, Scalar y) { return special_##name(x, y); },        \
      nb::arg(a), nb::arg(b));                                                                  \
  m.def(                                                                                        \
      "_special_" #name, [](Scalar x, const Tensor& y) { return special_##name(x, y); },        \
      nb::arg(a), nb::arg(b));
  EMBER_BIND_BINARY(chebyshev_polynomial_t, "x", "n")
  EMBER_BIND_BINARY(chebyshev_polynomial_u, "x", "n")
  EMBER_BIND_BINARY(chebyshev_polynomial_v, "x", "n")
  EMBER_BIND_BINARY(chebyshev_polynomial_w, "x", "n")
  EMBER_BIND_BINARY(shifted_chebyshev_polynomial_t, "x", "n")
  EMBER_BIND_BINARY(shifted_chebyshev_polynomial_u, "x", "n")
  EMBER_BIND_BINARY(shifted_chebyshev_polynomial_v, "x", "n")
  EMBER_BIND_BINARY(shifted_chebyshev_polynomial_w, "x", "n")
  EMBER_BIND_BINARY(hermite_polynomial_h, "x", "n")
  EMBER_BIND_BINARY(hermite_polynomial_he, "x", "n")
  EMBER_BIND_BINARY(laguerre_polynomial_l, "x", "n")
  EMBER_BIND_BINARY(legendre_polynomial_p, "x", "n")
  EMBER_BIND_BINARY(zeta, "input", "other")
#undef EMBER_BIND_BINARY
}

}  // namespace ember::py
