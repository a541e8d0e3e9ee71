// Sampling from distributions (torch.bernoulli, multinomial, normal, poisson, binomial,
// _standard_gamma, _sample_dirichlet) and the in-place random fills (bernoulli_, exponential_,
// geometric_, cauchy_, log_normal_, random_). Every op draws from `gen`, or from the default
// generator when it is null; the samplers are in kernels/cpu/sampling.
#include <cfloat>
#include <cmath>
#include <limits>

#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/sampling.h"
#include "ops/iter.h"
#include "ops/random_fill.h"

namespace ember {

using autograd::SavedTensor;

namespace {

// A contiguous float64 copy (the samplers read doubles; the cost is small beside sampling).
Tensor f64(const Tensor& t) { return contiguous(to_dtype(detach(t), DType::Float64)); }
const double* dp(const Tensor& t) { return t.data<double>(); }
double* dp(Tensor& t) { return t.data<double>(); }

void check_floating(const Tensor& t, const char* op, const char* what) {
  ops::check_defined(t, op);
  EMBER_CHECK(is_floating(t.dtype()), NotImplementedError, op, ": not implemented for ",
              dtype_name(t.dtype()), " ", what, " (floating point only)");
}

bool any_true(const Tensor& b) { return b.numel() > 0 && any(b).item().to<bool>(); }

void check_probabilities(const Tensor& p64, const char* op) {
  const double* p = dp(p64);
  for (int64_t i = 0; i < p64.numel(); ++i)
    EMBER_CHECK(p[i] >= 0 && p[i] <= 1, Error, op, ": expected all probabilities in [0, 1], got ",
                p[i], " at flat index ", i);
}

double tiny_of(DType dt) { return dt == DType::Float32 ? double(FLT_MIN) : DBL_MIN; }

}  // namespace

// On a tensor in a graph (a non-leaf: leaves refuse in check_inplace) a select with an
// all-false mask carries the values and routes no gradient to the old ones.
Tensor& ops::write_random(Tensor& t, const Tensor& values, const char* op) {
  autograd::check_inplace(t, op);
  if (autograd::any_requires_grad(t)) {
    Tensor none = full(t.sizes(), Scalar(false), DType::Bool);
    return autograd::apply_inplace(t, op, [&](const Tensor& x) {
      return where(none, x, to_dtype(values, x.dtype()));
    });
  }
  NoGradGuard no_grad;
  return copy_(t, values);
}

// ---- bernoulli ------------------------------------------------------------------------
Tensor bernoulli(const Tensor& p, Generator* gen) {
  EMBER_RECORD(bernoulli, p, gen);
  EMBER_PROFILE_OP("bernoulli");
  check_floating(p, "bernoulli", "probabilities");
  Tensor P = f64(p);
  check_probabilities(P, "bernoulli");
  Tensor out = Tensor::empty(p.sizes(), DType::Float64);
  kernels::bernoulli(generator_or_default(gen), dp(P), 1, dp(out), out.numel());
  return to_dtype(out, p.dtype());
}

Tensor bernoulli(const Tensor& self, double p, Generator* gen) {
  EMBER_RECORD(bernoulli, self, p, gen);
  EMBER_PROFILE_OP("bernoulli");
  ops::check_defined(self, "bernoulli");
  Tensor out = Tensor::empty(self.sizes(), self.dtype());
  return bernoulli_(out, p, gen);
}

Tensor& bernoulli_(Tensor& t, double p, Generator* gen) {
  EMBER_RECORD(bernoulli_, t, p, gen);
  EMBER_PROFILE_OP("bernoulli_");
  ops::check_defined(t, "bernoulli_");
  EMBER_CHECK(p >= 0 && p <= 1, Error, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  Tensor out = Tensor::empty(t.sizes(), DType::Float64);
  kernels::bernoulli(generator_or_default(gen), &p, 0, dp(out), out.numel());
  return ops::write_random(t, out, "bernoulli_");
}

Tensor& bernoulli_(Tensor& t, const Tensor& p, Generator* gen) {
  EMBER_RECORD(bernoulli_, t, p, gen);
  EMBER_PROFILE_OP("bernoulli_");
  ops::check_defined(t, "bernoulli_");
  check_floating(p, "bernoulli_", "probabilities");
  Dims shape = broadcast_shapes(t.sizes(), p.sizes(), "bernoulli_");
  EMBER_CHECK(shape == t.sizes(), ValueError, "bernoulli_: probabilities of shape ", p.sizes(),
              " do not broadcast to the tensor's shape ", t.sizes());
  Tensor P = f64(expand(p, t.sizes()));
  check_probabilities(P, "bernoulli_");
  Tensor out = Tensor::empty(t.sizes(), DType::Float64);
  kernels::bernoulli(generator_or_default(gen), dp(P), 1, dp(out), out.numel());
  return ops::write_random(t, out, "bernoulli_");
}

// ---- multinomial ----------------------------------------------------------------------
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement, Generator* gen) {
  EMBER_RECORD(multinomial, probs, num_samples, replacement, gen);
  EMBER_PROFILE_OP("multinomial");
  ops::check_defined(probs, "multinomial");
  EMBER_CHECK(is_floating(probs.dtype()), Error,
              "multinomial only supports floating-point "
              "dtypes for input, got: ",
              dtype_name(probs.dtype()));
  EMBER_CHECK(probs.dim() == 1 || probs.dim() == 2, Error,
              "multinomial: prob_dist must be 1 or "
              "2 dim, got a tensor of shape ",
              probs.sizes());
  EMBER_CHECK(num_samples > 0, Error, "multinomial: cannot sample n_sample <= 0 samples, got ",
              num_samples);
  const int64_t cats = probs.sizes().back(), rows = probs.dim() == 2 ? probs.sizes()[0] : 1;
  EMBER_CHECK(replacement || num_samples <= cats, Error,
              "multinomial: cannot sample n_sample > "
              "prob_dist.size(-1) samples without replacement (n_sample=",
              num_samples, ", shape ", probs.sizes(), ")");
  Tensor W = f64(probs);
  const double* w = dp(W);
  for (int64_t r = 0; r < rows; ++r) {
    double total = 0;
    for (int64_t c = 0; c < cats; ++c) {
      const double v = w[r * cats + c];
      EMBER_CHECK(std::isfinite(v) && v >= 0, Error,
                  "multinomial: probability tensor contains "
                  "either `inf`, `nan` or element < 0 (",
                  v, " in row ", r, ")");
      total += v;
    }
    EMBER_CHECK(total > 0, Error,
                "multinomial: invalid multinomial distribution (sum of "
                "probabilities <= 0) in row ",
                r);
  }
  Tensor out =
      Tensor::empty(probs.dim() == 2 ? Dims{rows, num_samples} : Dims{num_samples}, DType::Int64);
  kernels::multinomial(generator_or_default(gen), w, rows, cats, num_samples, replacement,
                       out.data<int64_t>());
  return out;
}

// ---- normal: mean + std * N(0, 1), so the gradients are the ops' ---------------------
namespace {
void check_std(const Tensor& std) {
  EMBER_CHECK(!any_true(lt(std, Scalar(0.0))), Error, "normal expects all elements of std >= 0.0");
}
void check_std(double std) {
  EMBER_CHECK(std >= 0, Error, "normal expects std >= 0.0, but found std ", std);
}
}  // namespace

Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen) {
  EMBER_RECORD(normal, mean, std, gen);
  EMBER_PROFILE_OP("normal");
  check_floating(mean, "normal", "mean");
  check_floating(std, "normal", "std");
  check_std(std);
  Dims shape = broadcast_shapes(mean.sizes(), std.sizes(), "normal");
  return add(mean, mul(std, randn(shape, promote_types(mean.dtype(), std.dtype()), gen)));
}

Tensor normal(const Tensor& mean, double std, Generator* gen) {
  EMBER_RECORD(normal, mean, std, gen);
  EMBER_PROFILE_OP("normal");
  check_floating(mean, "normal", "mean");
  check_std(std);
  return add(mean, mul(randn(mean.sizes(), mean.dtype(), gen), Scalar(std)));
}

Tensor normal(double mean, const Tensor& std, Generator* gen) {
  EMBER_RECORD(normal, mean, std, gen);
  EMBER_PROFILE_OP("normal");
  check_floating(std, "normal", "std");
  check_std(std);
  return add(mul(std, randn(std.sizes(), std.dtype(), gen)), Scalar(mean));
}

Tensor normal(double mean, double std, IntList size, DType dtype, Generator* gen) {
  EMBER_RECORD(normal, mean, std, size, dtype, gen);
  EMBER_PROFILE_OP("normal");
  check_std(std);
  EMBER_CHECK(is_floating_point(dtype), NotImplementedError, "normal: not implemented for ",
              dtype_name(dtype));
  Tensor t = Tensor::empty(size, dtype);
  return normal_(t, mean, std, gen);
}

// ---- poisson, binomial ----------------------------------------------------------------
Tensor poisson(const Tensor& rates, Generator* gen) {
  EMBER_RECORD(poisson, rates, gen);
  EMBER_PROFILE_OP("poisson");
  check_floating(rates, "poisson", "rates");
  Tensor R = f64(rates);
  for (int64_t i = 0; i < R.numel(); ++i)
    EMBER_CHECK(dp(R)[i] >= 0, Error,
                "poisson: invalid Poisson rate, expected rate to be "
                "non-negative, got ",
                dp(R)[i]);
  Tensor out = Tensor::empty(rates.sizes(), DType::Float64);
  kernels::poisson(generator_or_default(gen), dp(R), dp(out), out.numel());
  return to_dtype(out, rates.dtype());
}

Tensor binomial(const Tensor& count, const Tensor& prob, Generator* gen) {
  EMBER_RECORD(binomial, count, prob, gen);
  EMBER_PROFILE_OP("binomial");
  ops::check_defined(count, "binomial");
  ops::check_defined(prob, "binomial");
  EMBER_CHECK(is_floating(count.dtype()), ValueError,
              "binomial only supports floating-point "
              "dtypes for count, got: ",
              dtype_name(count.dtype()));
  EMBER_CHECK(is_floating(prob.dtype()), ValueError,
              "binomial only supports floating-point "
              "dtypes for prob, got: ",
              dtype_name(prob.dtype()));
  Dims shape = broadcast_shapes(count.sizes(), prob.sizes(), "binomial");
  Tensor C = f64(expand(count, shape)), P = f64(expand(prob, shape));
  Tensor out = Tensor::empty(shape, DType::Float64);
  kernels::binomial(generator_or_default(gen), dp(C), dp(P), dp(out), out.numel());
  return to_dtype(out, promote_types(count.dtype(), prob.dtype()));
}

// ---- gamma and Dirichlet --------------------------------------------------------------
Tensor _standard_gamma_grad(const Tensor& alpha, const Tensor& output) {
  EMBER_RECORD(_standard_gamma_grad, alpha, output);
  EMBER_PROFILE_OP("_standard_gamma_grad");
  check_floating(alpha, "_standard_gamma_grad", "alpha");
  check_floating(output, "_standard_gamma_grad", "samples");
  Dims shape = broadcast_shapes(alpha.sizes(), output.sizes(), "_standard_gamma_grad");
  Tensor A = f64(expand(alpha, shape)), X = f64(expand(output, shape));
  Tensor out = Tensor::empty(shape, DType::Float64);
  kernels::standard_gamma_grad(dp(X), dp(A), dp(out), out.numel());
  return to_dtype(out, promote_types(alpha.dtype(), output.dtype()));
}

// Gamma(alpha, 1) samples; reparameterized: d sample / d alpha = _standard_gamma_grad.
Tensor _standard_gamma(const Tensor& alpha, Generator* gen) {
  EMBER_RECORD(_standard_gamma, alpha, gen);
  EMBER_PROFILE_OP("_standard_gamma");
  check_floating(alpha, "_standard_gamma", "concentrations");
  Tensor A = f64(alpha);
  Tensor s = Tensor::empty(alpha.sizes(), DType::Float64);
  kernels::standard_gamma(generator_or_default(gen), dp(A), dp(s), s.numel(),
                          tiny_of(alpha.dtype()));
  Tensor out = to_dtype(s, alpha.dtype());
  if (autograd::any_requires_grad(alpha)) {
    autograd::record("StandardGammaBackward0", {&alpha}, {&out},
                     [sa = SavedTensor(alpha), so = SavedTensor(out, true)](Grads& g,
                                                                            const Node&) -> Grads {
                       return {mul(g[0], _standard_gamma_grad(sa.get(), detach(so.get())))};
                     });
  }
  return out;
}

// Gamma samples normalized along the last dim (torch records no gradient for it).
Tensor _sample_dirichlet(const Tensor& alpha, Generator* gen) {
  EMBER_RECORD(_sample_dirichlet, alpha, gen);
  EMBER_PROFILE_OP("_sample_dirichlet");
  check_floating(alpha, "_sample_dirichlet", "concentrations");
  NoGradGuard no_grad;
  Tensor g = _standard_gamma(alpha, gen);
  if (alpha.dim() == 0) return div(g, g);
  return div(g, sum(g, {-1}, true));
}

// ---- in-place fills -------------------------------------------------------------------
namespace {
Tensor& fill_with(Tensor& t, kernels::Fill kind, double a, double b, Generator* gen,
                  const char* op) {
  Tensor out = Tensor::empty(t.sizes(), DType::Float64);
  kernels::fill(generator_or_default(gen), kind, a, b, dp(out), out.numel());
  return ops::write_random(t, out, op);
}
void check_continuous(const Tensor& t, const char* what, const char* op) {
  ops::check_defined(t, op);
  EMBER_CHECK(is_floating(t.dtype()), Error, what,
              " distribution is a continuous probability "
              "distribution. dtype must be a floating point but you specified ",
              dtype_name(t.dtype()), " (", op, ")");
}
}  // namespace

Tensor& exponential_(Tensor& t, double lambd, Generator* gen) {
  EMBER_RECORD(exponential_, t, lambd, gen);
  EMBER_PROFILE_OP("exponential_");
  check_continuous(t, "Exponential", "exponential_");
  EMBER_CHECK(lambd > 0, Error, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  return fill_with(t, kernels::Fill::Exponential, lambd, 0, gen, "exponential_");
}

Tensor& geometric_(Tensor& t, double p, Generator* gen) {
  EMBER_RECORD(geometric_, t, p, gen);
  EMBER_PROFILE_OP("geometric_");
  ops::check_defined(t, "geometric_");
  EMBER_CHECK(p > 0 && p < 1, Error, "geometric_ expects p to be in (0, 1), but got p=", p);
  return fill_with(t, kernels::Fill::Geometric, p, 0, gen, "geometric_");
}

Tensor& cauchy_(Tensor& t, double median, double sigma, Generator* gen) {
  EMBER_RECORD(cauchy_, t, median, sigma, gen);
  EMBER_PROFILE_OP("cauchy_");
  check_continuous(t, "Cauchy", "cauchy_");
  EMBER_CHECK(sigma > 0, Error, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
  return fill_with(t, kernels::Fill::Cauchy, median, sigma, gen, "cauchy_");
}

Tensor& log_normal_(Tensor& t, double mean, double std, Generator* gen) {
  EMBER_RECORD(log_normal_, t, mean, std, gen);
  EMBER_PROFILE_OP("log_normal_");
  check_continuous(t, "LogNormal", "log_normal_");
  EMBER_CHECK(std > 0, Error, "log_normal_ expects std > 0.0, but found std=", std);
  return fill_with(t, kernels::Fill::LogNormal, mean, std, gen, "log_normal_");
}

// Integers in [from, to); without `to`, up to the largest integer the dtype holds exactly
// (2^24 for float32, 2^53 for float64, as torch), inclusive.
Tensor& random_(Tensor& t, int64_t from, std::optional<int64_t> to, Generator* gen) {
  EMBER_RECORD(random_, t, from, to, gen);
  EMBER_PROFILE_OP("random_");
  ops::check_defined(t, "random_");
  int64_t hi = 0;  // exclusive
  switch (t.dtype()) {
    case DType::Bool: hi = 2; break;
    case DType::UInt8: hi = 256; break;
    case DType::Int8: hi = 128; break;
    case DType::Int16: hi = 32768; break;
    case DType::UInt16: hi = 65536; break;
    case DType::UInt32: hi = int64_t(1) << 32; break;
    case DType::Int32: hi = int64_t(std::numeric_limits<int32_t>::max()) + 1; break;
    case DType::Int64: hi = std::numeric_limits<int64_t>::max(); break;
    case DType::Float32: hi = (int64_t(1) << 24) + 1; break;
    case DType::Float64: hi = (int64_t(1) << 53) + 1; break;
    default: throw_unsupported_dtype(t.dtype());
  }
  if (to) {
    EMBER_CHECK(from < *to, Error,
                "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", *to);
    EMBER_CHECK(is_floating(t.dtype()) || *to - 1 < hi, Error,
                "random_: to - 1 is out of bounds "
                "for ",
                dtype_name(t.dtype()), " (to=", *to, ")");
    hi = *to;
  } else {
    EMBER_CHECK(from < hi, Error,
                "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", hi);
  }
  Tensor v = randint(from, hi, t.sizes(), DType::Int64, gen);
  return ops::write_random(t, v, "random_");
}

}  // namespace ember
