// Creation ops. Shapes arrive as a sequence (the Python layer turns *size into one).
#include "common.h"
#include "ember/window.h"

namespace ember::py {

void bind_creation(nb::module_& m) {
  using OptD = std::optional<DType>;
  m.def("empty", [](nb::handle s, OptD d) {
    return empty(shape_from_sequence(s, "empty"), d.value_or(default_dtype()));
  });
  m.def("zeros", [](nb::handle s, OptD d) {
    return zeros(shape_from_sequence(s, "zeros"), d.value_or(default_dtype()));
  });
  m.def("ones", [](nb::handle s, OptD d) {
    return ones(shape_from_sequence(s, "ones"), d.value_or(default_dtype()));
  });
  m.def("full",
        [](nb::handle s, Scalar v, OptD d) { return full(shape_from_sequence(s, "full"), v, d); });
  m.def("rand", [](nb::handle s, OptD d) {
    return rand(shape_from_sequence(s, "rand"), d.value_or(default_dtype()));
  });
  m.def("randn", [](nb::handle s, OptD d) {
    return randn(shape_from_sequence(s, "randn"), d.value_or(default_dtype()));
  });
  m.def("randint", [](int64_t lo, int64_t hi, nb::handle s, OptD d) {
    return randint(lo, hi, shape_from_sequence(s, "randint"), d.value_or(DType::Int64));
  });
  m.def("randperm", [](int64_t n, OptD d) { return randperm(n, d.value_or(DType::Int64)); });
  m.def("arange", [](Scalar a, Scalar b, Scalar s, OptD d) { return arange(a, b, s, d); });
  m.def("linspace", [](double a, double b, int64_t n, OptD d) {
    return linspace(a, b, n, d.value_or(default_dtype()));
  });
  m.def("eye", [](int64_t n, std::optional<int64_t> k, OptD d) {
    // eye(n, m) takes m = -1 as "not given": a negative m from the user must not mean that.
    EMBER_CHECK(!k || *k >= 0, ValueError, "eye: m must be greater or equal to 0, got ",
                k.value_or(0));
    return eye(n, k.value_or(-1), d.value_or(default_dtype()));
  });
  nb::enum_<WindowKind>(m, "_WindowKind")
      .value("CosineSum", WindowKind::CosineSum)
      .value("Bartlett", WindowKind::Bartlett)
      .value("Kaiser", WindowKind::Kaiser)
      .value("Gaussian", WindowKind::Gaussian)
      .value("Exponential", WindowKind::Exponential)
      .value("Sine", WindowKind::Sine);
  m.def("_window", [](WindowKind k, int64_t n, double denom, const std::vector<double>& p,
                      DType d) { return window(k, n, denom, p, d); });
  m.def("scalar_tensor", [](Scalar v, OptD d) { return scalar_tensor(v, d); });
  m.def("manual_seed", [](int64_t s) { manual_seed(uint64_t(s)); });
  m.def("initial_seed", [] { return default_generator().initial_seed(); });
}

}  // namespace ember::py
