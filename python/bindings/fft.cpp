// torch.fft's primitives as _C._fft_c2c / _fft_r2c / _fft_c2r (include/ember/fft.h), on
// complex values as a trailing dim of 2; python/ember/fft.py builds torch.fft's names on them.
// `norm` is 0 (none), 1 (1/sqrt(n)) or 2 (1/n).
#include "common.h"
#include "ember/fft.h"

#include <nanobind/stl/vector.h>

namespace ember::py {
namespace {

FftNorm norm_of(int norm) {
  if (norm < 0 || norm > 2) throw ValueError(detail::cat("fft: invalid normalization code ", norm));
  return FftNorm(norm);
}

}  // namespace

void bind_fft(nb::module_& m) {
  m.def(
      "_fft_c2c",
      [](const Tensor& x, const std::vector<int64_t>& dim, int norm, bool forward) {
        return fft_c2c(x, dim, norm_of(norm), forward);
      },
      nb::arg("input"), nb::arg("dim"), nb::arg("normalization"), nb::arg("forward"));
  m.def(
      "_fft_r2c",
      [](const Tensor& x, const std::vector<int64_t>& dim, int norm, bool onesided) {
        return fft_r2c(x, dim, norm_of(norm), onesided);
      },
      nb::arg("input"), nb::arg("dim"), nb::arg("normalization"), nb::arg("onesided"));
  m.def(
      "_fft_c2r",
      [](const Tensor& x, const std::vector<int64_t>& dim, int norm, int64_t n) {
        return fft_c2r(x, dim, norm_of(norm), n);
      },
      nb::arg("input"), nb::arg("dim"), nb::arg("normalization"), nb::arg("last_dim_size"));
}

}  // namespace ember::py
