// Batched 1-D discrete Fourier transforms on raw buffers (ember.fft's kernels). Complex values
// are interleaved (re, im) pairs, the layout of std::complex<T> and of view_as_real. Each call
// transforms `batch` contiguous rows; src/ops/fft.cpp moves the transformed dim last, and does a
// multi-dim transform as successive 1-D passes.
//
// The transforms come from KISS FFT (Debian libkissfft-dev, BSD-3-Clause; its header-only C++
// template kissfft<T>, so float and double alike), a mixed-radix FFT. A length whose largest
// prime factor is big (kissfft's generic butterfly is O(n p) there) runs as Bluestein's chirp-z
// transform on a power-of-two kissfft plan, so a prime length costs O(n log n), not O(n^2).
// Plans are cached by (length, direction, type). Rows are shared among the threads; each row
// is transformed whole by one thread, so the result does not depend on the thread count.
#pragma once
#include <cstdint>

namespace ember::kernels {

// out[r, k] = scale * sum_j in[r, j] * exp(-+2 pi i j k / n) (- when forward), for each row r;
// in and out hold batch * n complex values (2 * batch * n T's) and must not overlap.
template <class T>
void fft_c2c(const T* in, T* out, int64_t batch, int64_t n, bool forward, T scale);

// The forward transform of real rows of length n, its first n / 2 + 1 (complex) values:
// in holds batch * n T's, out batch * (n / 2 + 1) complex values.
template <class T>
void fft_r2c(const T* in, T* out, int64_t batch, int64_t n, T scale);

// The inverse of fft_r2c: real rows of length n from the first n / 2 + 1 values of a
// Hermitian-symmetric spectrum (in: batch * (n / 2 + 1) complex values; the imaginary parts of
// the zero-frequency value, and of the Nyquist value when n is even, are ignored, as
// PyTorch's). Unnormalized: out = scale * sum_k X[k] exp(+2 pi i j k / n) over the full spectrum.
template <class T>
void fft_c2r(const T* in, T* out, int64_t batch, int64_t n, T scale);

}  // namespace ember::kernels
