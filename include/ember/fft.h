// ember::fft — discrete Fourier transforms: the three primitives torch.fft is built from
// (torch's _fft_c2c, _fft_r2c, _fft_c2r), with their gradients. python/ember/fft.py maps
// torch.fft's 22 functions (n/s, dim, norm, padding and trimming, hfft's conjugates) onto them.
//
// Complex values travel as a trailing dim of size 2 holding (re, im): view_as_real's layout,
// so a complex64 signal of shape (4, 8) is a float32 tensor of shape (4, 8, 2) here, and
// `dims` count the complex tensor's dims (not the trailing 2):
//
//   Tensor x = randn({4, 8});                                      // real signals
//   Tensor X = fft_r2c(x, {1}, FftNorm::None, /*onesided=*/true);  // (4, 5, 2): rfft
//   Tensor y = fft_c2r(X, {1}, FftNorm::ByN, 8);                   // (4, 8): irfft(X) == x
//
// Multi-dim transforms are successive 1-D passes, each batched over the other dims (KISS FFT,
// src/kernels/cpu/fft.h). float32 and float64 only; bad dims, sizes or dtypes raise Error
// naming the op.
#pragma once
#include <cstdint>

#include "ember/tensor.h"

namespace ember {

// How a transform is scaled, by the number n of points of the signal (the product of the
// transformed sizes): not at all, by 1/sqrt(n), or by 1/n (torch's fft_norm_mode).
enum class FftNorm : uint8_t { None, ByRootN, ByN };

// Complex-to-complex transform of x (*, 2) over `dims`, forward (exp(-2 pi i jk/n)) or inverse.
Tensor fft_c2c(const Tensor& x, IntList dims, FftNorm norm, bool forward);
// Forward transform of real x over `dims` (complex result, trailing 2); with onesided the last
// of `dims` keeps only its first n / 2 + 1 frequencies (the rest are their conjugates).
Tensor fft_r2c(const Tensor& x, IntList dims, FftNorm norm, bool onesided);
// Inverse of a onesided r2c: x (*, 2) holds at least last_dim_size / 2 + 1 frequencies along
// the last of `dims`; the result is real with last_dim_size points there (inverse transform
// over the other dims first).
Tensor fft_c2r(const Tensor& x, IntList dims, FftNorm norm, int64_t last_dim_size);

}  // namespace ember
