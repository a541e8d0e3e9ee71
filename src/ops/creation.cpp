// Creation ops and random fills.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "autograd/function.h"
#include "ember/complex.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "ember/random.h"
#include "kernels/cpu/elementwise.h"
#include "ops/iter.h"
#include "ops/random_fill.h"

namespace ember {

Tensor empty(IntList shape, DType dtype) {
  EMBER_RECORD(empty, shape, dtype);
  EMBER_PROFILE_OP("empty");
  return Tensor::empty(shape, dtype);
}

Tensor full(IntList shape, Scalar value, std::optional<DType> dtype) {
  EMBER_RECORD(full, shape, value, dtype);
  EMBER_PROFILE_OP("full");
  ops::check_scalar_fits(dtype.value_or(value.default_dtype()), value, "full");
  Tensor t = Tensor::empty(shape, dtype.value_or(value.default_dtype()));
  kernels::fill(t.dtype(), ops::make_loop(t.sizes(), {&t}), value);
  return t;
}

Tensor zeros(IntList shape, DType dtype) { return full(shape, Scalar(int64_t(0)), dtype); }
Tensor ones(IntList shape, DType dtype) { return full(shape, Scalar(int64_t(1)), dtype); }

// A wrapped number: what autograd and the bindings turn a Python scalar into. Unlike
// full() it takes any value (x * 1e300 is inf in float32, as in PyTorch).
Tensor scalar_tensor(Scalar value, std::optional<DType> dtype) {
  Tensor t = Tensor::empty({}, dtype.value_or(value.default_dtype()));
  kernels::fill(t.dtype(), ops::make_loop(t.sizes(), {&t}), value);
  return t;
}

Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<DType> dtype) {
  EMBER_RECORD(arange, start, end, step, dtype);
  EMBER_PROFILE_OP("arange");
  bool floating = start.is_floating() || end.is_floating() || step.is_floating();
  DType dt = dtype.value_or(floating ? default_dtype() : DType::Int64);
  EMBER_CHECK(dt != DType::Bool, TypeError, "arange: not implemented for bool");
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  EMBER_CHECK(std::isfinite(s) && std::isfinite(e) && std::isfinite(st), ValueError,
              "arange: unsupported range: ", s, " -> ", e, " with step ", st);
  EMBER_CHECK(st != 0, ValueError, "arange: step must be nonzero");
  EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), ValueError,
              "arange: upper bound and lower bound inconsistent with step sign (start=", s,
              ", end=", e, ", step=", st, ")");
  // PyTorch's integer rule: the values count from the truncated start by the truncated
  // step; int64 also takes its size from the truncated bounds (arange(2.5, dtype=int64)
  // is [0, 1]) while other integer dtypes use the exact ones (arange(2.5, dtype=int32)
  // is [0, 1, 2]).
  if (!is_floating_point(dt)) {
    floating = false;
    start = Scalar(start.to_int()), end = Scalar(end.to_int()), step = Scalar(step.to_int());
    if (dt == DType::Int64) {
      s = start.to_double(), e = end.to_double(), st = step.to_double();
      EMBER_CHECK(st != 0, ValueError,
                  "arange: step must be nonzero (it truncates to 0 for int64)");
    }
  }
  double nd = std::max(0.0, std::ceil((e - s) / st));
  EMBER_CHECK(nd < 9.2e18, ValueError, "arange: too many elements (", nd, ")");
  int64_t n = int64_t(nd);
  Tensor t = Tensor::empty({n}, dt);
  visit_dtype_or_half(dt, [&]<class T>() {
    T* p = t.data<T>();
    if (!floating) {
      int64_t is = start.to_int(), ist = step.to_int();
      for (int64_t i = 0; i < n; ++i) p[i] = T(is + i * ist);
    } else {
      for (int64_t i = 0; i < n; ++i) p[i] = T(s + double(i) * st);
    }
  });
  return t;
}

Tensor linspace(double start, double end, int64_t steps, DType dtype) {
  EMBER_RECORD(linspace, start, end, steps, dtype);
  EMBER_PROFILE_OP("linspace");
  EMBER_CHECK(steps >= 0, ValueError, "linspace: number of steps must be non-negative, got ",
              steps);
  Tensor t = Tensor::empty({steps}, dtype);
  double step = steps > 1 ? (end - start) / double(steps - 1) : 0.0;
  int64_t half = steps / 2;
  visit_dtype_or_half(dtype, [&]<class T>() {
    T* p = t.data<T>();
    // Like PyTorch: the first half counts up from start, the second down from end, so
    // both ends are exact.
    if constexpr (is_half_v<T>) {
      // torch's scalar loop in the half type itself: bounds, step and each product and sum
      // rounded to T (c10's BFloat16/Half operators), so the same values.
      auto r = [](float v) { return float(T(v)); };
      const float s0 = r(float(start)), e0 = r(float(end));
      const float st = steps > 1 ? r(r(e0 - s0) / r(float(steps - 1))) : 0.0f;
      for (int64_t i = 0; i < steps; ++i)
        p[i] = i < half ? T(s0 + r(st * r(float(i)))) : T(e0 - r(st * r(float(steps - 1 - i))));
    } else {
      for (int64_t i = 0; i < steps; ++i)
        p[i] = i < half ? T(start + step * double(i)) : T(end - step * double(steps - 1 - i));
    }
    if (steps == 1) p[0] = T(start);  // one step is the start, as in PyTorch
  });
  return t;
}

Tensor eye(int64_t n, int64_t m, DType dtype) {
  EMBER_RECORD(eye, n, m, dtype);
  EMBER_PROFILE_OP("eye");
  EMBER_CHECK(n >= 0, ValueError, "eye: n must be non-negative, got ", n);
  EMBER_CHECK(m >= -1, ValueError, "eye: m must be non-negative, got ", m);
  if (m == -1) m = n;  // the default: square
  Tensor t = zeros({n, m}, dtype);
  visit_dtype_or_half(dtype, [&]<class T>() {
    T* p = t.data<T>();
    for (int64_t i = 0; i < std::min(n, m); ++i) p[i * m + i] = T(1);
  });
  return t;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

Tensor& uniform_(Tensor& t, double low, double high, Generator* gen) {
  ops::check_defined(t, "uniform_");
  EMBER_CHECK(is_floating_point(t.dtype()), NotImplementedError, "uniform_: not implemented for ",
              dtype_name(t.dtype()));
  EMBER_CHECK(low <= high, Error,
              "uniform_ expects to return a [from, to) range, but found from=", low,
              " > to=", high);
  autograd::check_inplace(t, "uniform_");
  if (is_half(t.dtype())) {  // drawn in float32, rounded once (as torch's reduced-float fill)
    Tensor f = Tensor::empty(t.sizes(), DType::Float32);
    uniform_(f, low, high, gen);
    return ops::write_random(t, to_dtype(f, t.dtype()), "uniform_");
  }
  // straight into t when it is contiguous and in no graph; else through ops::write_random
  const bool direct = t.is_contiguous() && !autograd::any_requires_grad(t);
  Tensor c = direct ? t : Tensor::empty(t.sizes(), t.dtype());
  visit_floating(t.dtype(), [&]<class T>() {
    generator_or_default(gen).uniform(c.data<T>(), c.numel(), low, high);
  });
  if (!direct) return ops::write_random(t, c, "uniform_");
  t.bump_version();
  return t;
}

Tensor& normal_(Tensor& t, double mean, double std, Generator* gen) {
  EMBER_RECORD(normal_, t, mean, std, gen);
  EMBER_PROFILE_OP("normal_");
  ops::check_defined(t, "normal_");
  EMBER_CHECK(is_floating_point(t.dtype()), NotImplementedError, "normal_: not implemented for ",
              dtype_name(t.dtype()));
  EMBER_CHECK(std >= 0, Error, "normal expects std >= 0.0, but found std ", std);
  autograd::check_inplace(t, "normal_");
  if (is_half(t.dtype())) {  // drawn in float32, rounded once (as torch's reduced-float fill)
    Tensor f = Tensor::empty(t.sizes(), DType::Float32);
    normal_(f, mean, std, gen);
    return ops::write_random(t, to_dtype(f, t.dtype()), "normal_");
  }
  // straight into t when it is contiguous and in no graph; else through ops::write_random
  const bool direct = t.is_contiguous() && !autograd::any_requires_grad(t);
  Tensor c = direct ? t : Tensor::empty(t.sizes(), t.dtype());
  visit_floating(t.dtype(), [&]<class T>() {
    generator_or_default(gen).normal(c.data<T>(), c.numel(), mean, std);
  });
  if (!direct) return ops::write_random(t, c, "normal_");
  t.bump_version();
  return t;
}

namespace {
void check_float_dtype(const char* op, DType dtype) {
  EMBER_CHECK(is_floating_point(dtype), NotImplementedError, op, ": not implemented for ",
              dtype_name(dtype));
}

// A complex draw as torch's: the real and imaginary parts from one real stream, interleaved
// (a [..., 2] real tensor viewed as complex).
Tensor complex_draw(IntList shape, DType dtype, const std::function<void(Tensor&)>& fill) {
  Dims pairs(shape);
  pairs.push_back(2);
  Tensor t = Tensor::empty(pairs, dtype == DType::Complex64 ? DType::Float32 : DType::Float64);
  fill(t);
  return view_as_complex(t);
}
}  // namespace

Tensor rand(IntList shape, DType dtype, Generator* gen) {
  EMBER_RECORD(rand, shape, dtype, gen);
  EMBER_PROFILE_OP("rand");
  if (is_complex(dtype))  // each part uniform in [0, 1)
    return complex_draw(shape, dtype, [&](Tensor& t) { uniform_(t, 0.0, 1.0, gen); });
  check_float_dtype("rand", dtype);
  Tensor t = Tensor::empty(shape, dtype);
  return uniform_(t, 0.0, 1.0, gen);
}

Tensor randn(IntList shape, DType dtype, Generator* gen) {
  EMBER_RECORD(randn, shape, dtype, gen);
  EMBER_PROFILE_OP("randn");
  if (is_complex(dtype))  // each part N(0, 1/2): E|z|^2 = 1, as torch's complex normal
    return complex_draw(shape, dtype, [&](Tensor& t) { normal_(t, 0.0, std::sqrt(0.5), gen); });
  check_float_dtype("randn", dtype);
  Tensor t = Tensor::empty(shape, dtype);
  return normal_(t, 0.0, 1.0, gen);
}

Tensor randint(int64_t low, int64_t high, IntList shape, DType dtype, Generator* gen) {
  EMBER_RECORD(randint, low, high, shape, dtype, gen);
  EMBER_PROFILE_OP("randint");
  EMBER_CHECK(low < high, ValueError, "randint: expects low < high, got low=", low, " high=", high);
  if (is_integral(dtype, false)) {  // as torch: [low, high - 1] must fit the dtype
    auto bounds = []<class T>() {
      using L = std::numeric_limits<T>;
      const int64_t top = std::is_same_v<T, uint64_t> ? std::numeric_limits<int64_t>::max()
                                                      : int64_t(L::max());  // high is an int64
      return std::pair<int64_t, int64_t>(int64_t(L::lowest()), top);
    };
    auto [lo, hi] =
        is_wide_unsigned(dtype) ? visit_wide_unsigned(dtype, bounds) : visit_dtype(dtype, bounds);
    EMBER_CHECK(low >= lo, Error, "randint: from=", low, " is out of bounds for ",
                dtype_name(dtype), " (", lo, " to ", hi, ")");
    EMBER_CHECK(high - 1 <= hi, Error, "randint: to - 1=", high - 1, " is out of bounds for ",
                dtype_name(dtype), " (", lo, " to ", hi, ")");
  }
  Tensor t = Tensor::empty(shape, DType::Int64);
  generator_or_default(gen).randint(t.data<int64_t>(), t.numel(), low, high);
  return to_dtype(t, dtype);
}

Tensor randperm(int64_t n, DType dtype, Generator* gen) {
  EMBER_RECORD(randperm, n, dtype, gen);
  EMBER_PROFILE_OP("randperm");
  EMBER_CHECK(n >= 0, ValueError, "randperm: n must be non-negative, got ", n);
  Tensor t = arange(Scalar(int64_t(0)), Scalar(n), Scalar(int64_t(1)), DType::Int64);
  int64_t* p = t.data<int64_t>();
  Generator& g = generator_or_default(gen);
  auto lock = g.lock();
  for (int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates
    int64_t j = int64_t(g.next_u64() % uint64_t(i + 1));
    std::swap(p[i], p[j]);
  }
  return to_dtype(t, dtype);
}

}  // namespace ember
