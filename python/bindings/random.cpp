// Generators (ember._C._Generator, subclassed by python/ember/_generator.py as ember.Generator)
// and the random ops of src/ops/random.cpp and src/ops/creation.cpp, each with torch's
// keyword-only `generator=`.
#include <cstring>
#include <memory>

#include "common.h"

namespace ember::py {
namespace {

// A Python generator object: its own stream, or the default one (ember.default_generator).
struct PyGenerator {
  std::unique_ptr<Generator> owned;
  Generator* gen;
};

Tensor state_tensor(const Generator& g) {
  auto bytes = g.get_state();
  Tensor t = Tensor::empty({int64_t(bytes.size())}, DType::UInt8);
  std::memcpy(t.data_ptr(), bytes.data(), bytes.size());
  return t;
}

void set_state_from(Generator& g, const Tensor& t) {
  EMBER_CHECK(t.dtype() == DType::UInt8 && t.numel() == int64_t(Generator::kStateBytes), Error,
              "set_state: expected an ember.uint8 tensor of ", Generator::kStateBytes,
              " bytes (from get_state()), got ", dtype_name(t.dtype()), " of shape ", t.sizes());
  Tensor c = contiguous(t);
  g.set_state(reinterpret_cast<const uint8_t*>(c.data_ptr()));
}

}  // namespace

Generator* generator_from(nb::handle h) {
  if (h.is_none()) return nullptr;
  if (!nb::isinstance<PyGenerator>(h))
    throw TypeError(detail::cat("expected generator to be an ember.Generator, got ",
                                nb::type_name(h.type()).c_str()));
  return nb::cast<PyGenerator&>(h).gen;
}

void bind_random(nb::module_& m) {
  auto& cls = tensor_class();
  using OptD = std::optional<DType>;
  using Gen = nb::handle;

  nb::class_<PyGenerator>(m, "_Generator")
      .def(
          "__init__",
          [](PyGenerator* self, bool use_default) {
            new (self) PyGenerator();
            if (use_default) self->gen = &default_generator();
            else self->gen = (self->owned = std::make_unique<Generator>()).get();
          },
          nb::arg("use_default") = false)
      .def("_manual_seed", [](PyGenerator& g, uint64_t s) { g.gen->manual_seed(s); })
      .def("seed", [](PyGenerator& g) { return g.gen->seed(); })
      .def("initial_seed", [](PyGenerator& g) { return g.gen->initial_seed(); })
      .def("get_state", [](PyGenerator& g) { return state_tensor(*g.gen); })
      .def("_set_state", [](PyGenerator& g, const Tensor& t) { set_state_from(*g.gen, t); })
      .def("_is_default", [](PyGenerator& g) { return g.gen == &default_generator(); });

  // ---- creation with a generator ----
  m.def(
      "_rand",
      [](nb::handle s, OptD d, Gen g) {
        return rand(shape_from_sequence(s, "rand"), d.value_or(default_dtype()), generator_from(g));
      },
      nb::arg("size"), nb::arg("dtype").none(), nb::arg("generator").none());
  m.def(
      "_randn",
      [](nb::handle s, OptD d, Gen g) {
        return randn(shape_from_sequence(s, "randn"), d.value_or(default_dtype()),
                     generator_from(g));
      },
      nb::arg("size"), nb::arg("dtype").none(), nb::arg("generator").none());
  m.def(
      "_randint",
      [](int64_t lo, int64_t hi, nb::handle s, OptD d, Gen g) {
        return randint(lo, hi, shape_from_sequence(s, "randint"), d.value_or(DType::Int64),
                       generator_from(g));
      },
      nb::arg("low"), nb::arg("high"), nb::arg("size"), nb::arg("dtype").none(),
      nb::arg("generator").none());
  m.def(
      "_randperm",
      [](int64_t n, OptD d, Gen g) {
        return randperm(n, d.value_or(DType::Int64), generator_from(g));
      },
      nb::arg("n"), nb::arg("dtype").none(), nb::arg("generator").none());

  // ---- in-place fills: Tensor.X_(..., *, generator=None) ----
  auto gen = nb::arg("generator").none() = nb::none();
  cls.def(
      "uniform_",
      [](nb::handle self, double a, double b, Gen g) {
        return inplace(self, [&](Tensor& t) { uniform_(t, a, b, generator_from(g)); });
      },
      nb::arg("from") = 0.0, nb::arg("to") = 1.0, nb::kw_only(), gen, method_docstring("uniform_"));
  cls.def(
      "normal_",
      [](nb::handle self, double mean, double std, Gen g) {
        return inplace(self, [&](Tensor& t) { normal_(t, mean, std, generator_from(g)); });
      },
      nb::arg("mean") = 0.0, nb::arg("std") = 1.0, nb::kw_only(), gen, method_docstring("normal_"));
  cls.def(
      "bernoulli_",
      [](nb::handle self, double p, Gen g) {
        return inplace(self, [&](Tensor& t) { bernoulli_(t, p, generator_from(g)); });
      },
      nb::arg("p") = 0.5, nb::kw_only(), gen, method_docstring("bernoulli_"));
  cls.def(
      "bernoulli_",
      [](nb::handle self, const Tensor& p, Gen g) {
        return inplace(self, [&](Tensor& t) { bernoulli_(t, p, generator_from(g)); });
      },
      nb::arg("p"), nb::kw_only(), gen, method_docstring("bernoulli_"));
  cls.def(
      "exponential_",
      [](nb::handle self, double l, Gen g) {
        return inplace(self, [&](Tensor& t) { exponential_(t, l, generator_from(g)); });
      },
      nb::arg("lambd") = 1.0, nb::kw_only(), gen, method_docstring("exponential_"));
  cls.def(
      "geometric_",
      [](nb::handle self, double p, Gen g) {
        return inplace(self, [&](Tensor& t) { geometric_(t, p, generator_from(g)); });
      },
      nb::arg("p"), nb::kw_only(), gen, method_docstring("geometric_"));
  cls.def(
      "cauchy_",
      [](nb::handle self, double median, double sigma, Gen g) {
        return inplace(self, [&](Tensor& t) { cauchy_(t, median, sigma, generator_from(g)); });
      },
      nb::arg("median") = 0.0, nb::arg("sigma") = 1.0, nb::kw_only(), gen,
      method_docstring("cauchy_"));
  cls.def(
      "log_normal_",
      [](nb::handle self, double mean, double std, Gen g) {
        return inplace(self, [&](Tensor& t) { log_normal_(t, mean, std, generator_from(g)); });
      },
      nb::arg("mean") = 1.0, nb::arg("std") = 2.0, nb::kw_only(), gen,
      method_docstring("log_normal_"));
  // random_(), random_(to), random_(from, to): torch's three forms (to=None: the dtype's top).
  cls.def(
      "random_",
      [](nb::handle self, Gen g) {
        return inplace(self, [&](Tensor& t) { random_(t, 0, std::nullopt, generator_from(g)); });
      },
      nb::kw_only(), gen, method_docstring("random_"));
  cls.def(
      "random_",
      [](nb::handle self, int64_t to, Gen g) {
        return inplace(self, [&](Tensor& t) { random_(t, 0, to, generator_from(g)); });
      },
      nb::arg("to"), nb::kw_only(), gen, method_docstring("random_"));
  cls.def(
      "random_",
      [](nb::handle self, int64_t from, std::optional<int64_t> to, Gen g) {
        return inplace(self, [&](Tensor& t) { random_(t, from, to, generator_from(g)); });
      },
      nb::arg("from"), nb::arg("to").none(), nb::kw_only(), gen, method_docstring("random_"));

  // ---- sampling ----
  def_both(
      m, cls, "bernoulli", [](const Tensor& p, Gen g) { return bernoulli(p, generator_from(g)); },
      nb::kw_only(), gen);
  def_both(
      m, cls, "bernoulli",
      [](const Tensor& t, double p, Gen g) { return bernoulli(t, p, generator_from(g)); },
      nb::arg("p"), nb::kw_only(), gen);
  def_both(
      m, cls, "multinomial",
      [](const Tensor& t, int64_t n, bool repl, Gen g) {
        return multinomial(t, n, repl, generator_from(g));
      },
      nb::arg("num_samples"), nb::arg("replacement") = false, nb::kw_only(), gen);
  m.def(
      "multinomial",
      [](const Tensor& t, int64_t n, bool repl, Gen g, nb::handle out) {
        return into(out, multinomial(t, n, repl, generator_from(g)), "multinomial");
      },
      nb::arg("input"), nb::arg("num_samples"), nb::arg("replacement") = false, nb::kw_only(), gen,
      nb::arg("out").none(), docstring("multinomial"));
  m.def(
      "normal",
      [](const Tensor& mean, const Tensor& std, Gen g) {
        return normal(mean, std, generator_from(g));
      },
      nb::arg("mean"), nb::arg("std"), nb::kw_only(), gen, docstring("normal"));
  m.def(
      "normal",
      [](const Tensor& mean, double std, Gen g) { return normal(mean, std, generator_from(g)); },
      nb::arg("mean"), nb::arg("std") = 1.0, nb::kw_only(), gen, docstring("normal"));
  m.def(
      "normal",
      [](double mean, const Tensor& std, Gen g) { return normal(mean, std, generator_from(g)); },
      nb::arg("mean"), nb::arg("std"), nb::kw_only(), gen, docstring("normal"));
  m.def(
      "normal",
      [](double mean, double std, nb::handle size, Gen g, OptD d) {
        return normal(mean, std, shape_from_sequence(size, "normal"), d.value_or(default_dtype()),
                      generator_from(g));
      },
      nb::arg("mean"), nb::arg("std"), nb::arg("size"), nb::kw_only(), gen,
      nb::arg("dtype") = nb::none(), docstring("normal"));
  m.def(
      "poisson", [](const Tensor& r, Gen g) { return poisson(r, generator_from(g)); },
      nb::arg("input"), gen, docstring("poisson"));
  m.def(
      "binomial",
      [](const Tensor& c, const Tensor& p, Gen g) { return binomial(c, p, generator_from(g)); },
      nb::arg("count"), nb::arg("prob"), gen, docstring("binomial"));
  m.def(
      "_standard_gamma",
      [](const Tensor& a, Gen g) { return _standard_gamma(a, generator_from(g)); },
      nb::arg("input"), gen);
  m.def(
      "_standard_gamma_grad",
      [](const Tensor& a, const Tensor& out) { return _standard_gamma_grad(a, out); },
      nb::arg("input"), nb::arg("output"));
  m.def(
      "_sample_dirichlet",
      [](const Tensor& a, Gen g) { return _sample_dirichlet(a, generator_from(g)); },
      nb::arg("input"), gen);
}

}  // namespace ember::py
