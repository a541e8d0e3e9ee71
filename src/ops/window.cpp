// window(): the checks, then kernels/cpu/window fills a fresh tensor (no temporaries, so
// hamming_window(2**31) needs its 8 GB and nothing more).
#include "ember/window.h"

#include <cmath>

#include "ember/profiler.h"
#include "kernels/cpu/window.h"

namespace ember {

// the kernel's enum lists the kinds in the public enum's order
static_assert(int(WindowKind::CosineSum) == int(kernels::Window::CosineSum) &&
              int(WindowKind::Kaiser) == int(kernels::Window::Kaiser) &&
              int(WindowKind::Sine) == int(kernels::Window::Sine));

Tensor window(WindowKind kind, int64_t length, double denom, const std::vector<double>& params,
              DType dtype) {
  EMBER_PROFILE_OP("window");
  EMBER_CHECK(length >= 0, ValueError, "window: length must be non-negative, got ", length);
  EMBER_CHECK(dtype == DType::Float32 || dtype == DType::Float64, ValueError,
              "window: expects float32 or float64, got ", dtype_name(dtype));
  // Gaussian and Exponential use denom only for their centre; the others divide by it
  const bool divides = kind != WindowKind::Gaussian && kind != WindowKind::Exponential;
  EMBER_CHECK(std::isfinite(denom) && (divides ? denom > 0 || length == 0 : denom >= 0), ValueError,
              "window: denom must be ", divides ? "positive" : "non-negative", " and finite, got ",
              denom);
  const size_t want = kind == WindowKind::Exponential                              ? 2
                      : kind == WindowKind::Kaiser || kind == WindowKind::Gaussian ? 1
                      : kind == WindowKind::CosineSum ? std::max<size_t>(params.size(), 1)
                                                      : 0;
  EMBER_CHECK(params.size() == want, ValueError, "window: expected ", want,
              " parameters for this kind, got ", params.size());
  if (kind == WindowKind::Kaiser)
    EMBER_CHECK(!(params[0] < 0), ValueError, "window: kaiser's beta must be non-negative, got ",
                params[0]);
  if (kind == WindowKind::Gaussian || kind == WindowKind::Exponential)
    EMBER_CHECK(params.back() > 0, ValueError, "window: std or tau must be positive, got ",
                params.back());
  Tensor t = Tensor::empty({length}, dtype);
  kernels::window(static_cast<kernels::Window>(kind), dtype, t.data_ptr(), length, denom,
                  params.data(), int64_t(params.size()));
  return t;
}

}  // namespace ember
