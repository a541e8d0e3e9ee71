// The general (non-symmetric) eigendecomposition on LAPACK's geev, batched: one workspace
// query per call, the batch in order (O(n^3) QR iterations; OpenBLAS threads inside).
#include <algorithm>
#include <complex>
#include <cstddef>
#include <vector>

#include "kernels/cpu/lapack.h"

extern "C" {
void sgeev_(const char* jobvl, const char* jobvr, const int* n, float* a, const int* lda, float* wr,
            float* wi, float* vl, const int* ldvl, float* vr, const int* ldvr, float* work,
            const int* lwork, int* info, size_t, size_t);
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda,
            double* wr, double* wi, double* vl, const int* ldvl, double* vr, const int* ldvr,
            double* work, const int* lwork, int* info, size_t, size_t);
void cgeev_(const char* jobvl, const char* jobvr, const int* n, std::complex<float>* a,
            const int* lda, std::complex<float>* w, std::complex<float>* vl, const int* ldvl,
            std::complex<float>* vr, const int* ldvr, std::complex<float>* work, const int* lwork,
            float* rwork, int* info, size_t, size_t);
void zgeev_(const char* jobvl, const char* jobvr, const int* n, std::complex<double>* a,
            const int* lda, std::complex<double>* w, std::complex<double>* vl, const int* ldvl,
            std::complex<double>* vr, const int* ldvr, std::complex<double>* work, const int* lwork,
            double* rwork, int* info, size_t, size_t);
}

namespace ember::kernels {
namespace {

// Overloads so the batch loops below are written once per kind (real, complex).
void geev(const char* jv, const int* n, float* a, const int* ld, float* wr, float* wi, float* vr,
          const int* ldv, float* wk, const int* lw, int* info) {
  sgeev_("N", jv, n, a, ld, wr, wi, nullptr, ld, vr, ldv, wk, lw, info, 1, 1);
}
void geev(const char* jv, const int* n, double* a, const int* ld, double* wr, double* wi,
          double* vr, const int* ldv, double* wk, const int* lw, int* info) {
  dgeev_("N", jv, n, a, ld, wr, wi, nullptr, ld, vr, ldv, wk, lw, info, 1, 1);
}
void geev(const char* jv, const int* n, std::complex<float>* a, const int* ld,
          std::complex<float>* w, std::complex<float>* vr, const int* ldv, std::complex<float>* wk,
          const int* lw, float* rw, int* info) {
  cgeev_("N", jv, n, a, ld, w, nullptr, ld, vr, ldv, wk, lw, rw, info, 1, 1);
}
void geev(const char* jv, const int* n, std::complex<double>* a, const int* ld,
          std::complex<double>* w, std::complex<double>* vr, const int* ldv,
          std::complex<double>* wk, const int* lw, double* rw, int* info) {
  zgeev_("N", jv, n, a, ld, w, nullptr, ld, vr, ldv, wk, lw, rw, info, 1, 1);
}

// Real A: LAPACK returns wr/wi and, for a conjugate pair (j, j+1) (wi[j] > 0), the real and
// imaginary parts of eigenvector j in columns j and j+1 (eigenvector j+1 is its conjugate).
template <class T>
void geev_real(int64_t batch, int64_t n64, T* a, std::complex<T>* w, std::complex<T>* v,
               int32_t* info) {
  const int n = int(n64), ld = std::max(n, 1), minus1 = -1;
  const char jobv = v ? 'V' : 'N';
  std::vector<T> wr(static_cast<size_t>(n64)), wi(static_cast<size_t>(n64));
  std::vector<T> vr(v ? static_cast<size_t>(n64 * n64) : 1);
  T wq = 0;
  int inf = 0;
  geev(&jobv, &n, a, &ld, wr.data(), wi.data(), vr.data(), &ld, &wq, &minus1, &inf);
  const int lw = std::max(1, int(wq));
  std::vector<T> work(static_cast<size_t>(lw));
  for (int64_t b = 0; b < batch; ++b) {
    geev(&jobv, &n, a + b * n64 * n64, &ld, wr.data(), wi.data(), vr.data(), &ld, work.data(), &lw,
         &inf);
    info[b] = inf;
    std::complex<T>* wb = w + b * n64;
    for (int64_t j = 0; j < n64; ++j) wb[j] = {wr[size_t(j)], wi[size_t(j)]};
    if (!v) continue;
    std::complex<T>* vb = v + b * n64 * n64;
    for (int64_t j = 0; j < n64; ++j) {
      const T* col = vr.data() + j * n64;
      if (wi[size_t(j)] == T(0) || j + 1 >= n64) {
        for (int64_t i = 0; i < n64; ++i) vb[j * n64 + i] = {col[i], T(0)};
        continue;
      }
      const T* im = col + n64;  // the pair's second column holds the imaginary parts
      for (int64_t i = 0; i < n64; ++i) {
        vb[j * n64 + i] = {col[i], im[i]};
        vb[(j + 1) * n64 + i] = {col[i], -im[i]};
      }
      ++j;
    }
  }
}

template <class T>
void geev_complex(int64_t batch, int64_t n64, std::complex<T>* a, std::complex<T>* w,
                  std::complex<T>* v, int32_t* info) {
  const int n = int(n64), ld = std::max(n, 1), minus1 = -1;
  const char jobv = v ? 'V' : 'N';
  std::vector<T> rwork(size_t(std::max<int64_t>(1, 2 * n64)));
  std::complex<T> wq = 0, dummy = 0;
  int inf = 0;
  geev(&jobv, &n, a, &ld, w, v ? v : &dummy, &ld, &wq, &minus1, rwork.data(), &inf);
  const int lw = std::max(1, int(wq.real()));
  std::vector<std::complex<T>> work(static_cast<size_t>(lw));
  for (int64_t b = 0; b < batch; ++b) {
    geev(&jobv, &n, a + b * n64 * n64, &ld, w + b * n64, v ? v + b * n64 * n64 : &dummy, &ld,
         work.data(), &lw, rwork.data(), &inf);
    info[b] = inf;
  }
}

}  // namespace

void geev_batched(DType dt, int64_t batch, int64_t n, void* a, void* w, void* v, int32_t* info) {
  using c64 = std::complex<float>;
  using c128 = std::complex<double>;
  switch (dt) {
    case DType::Float32:
      return geev_real(batch, n, static_cast<float*>(a), static_cast<c64*>(w), static_cast<c64*>(v),
                       info);
    case DType::Float64:
      return geev_real(batch, n, static_cast<double*>(a), static_cast<c128*>(w),
                       static_cast<c128*>(v), info);
    case DType::Complex64:
      return geev_complex(batch, n, static_cast<c64*>(a), static_cast<c64*>(w),
                          static_cast<c64*>(v), info);
    default:
      return geev_complex(batch, n, static_cast<c128*>(a), static_cast<c128*>(w),
                          static_cast<c128*>(v), info);
  }
}

}  // namespace ember::kernels
