// LAPACK through its Fortran symbols (OpenBLAS exports them; no LAPACKE needed). Character
// arguments carry gfortran's hidden length, passed as 1. A batch of small matrices runs in
// parallel over the pool; a large matrix leaves the threads to OpenBLAS.
#include "kernels/cpu/lapack.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "kernels/cpu/parallel.h"

extern "C" {
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda,
             const int* ipiv, float* b, const int* ldb, int* info, size_t);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, size_t);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t);
}

namespace ember::kernels {
namespace {

// Matrices of at most this many elements are spread over the pool one per thread.
constexpr int64_t kSmall = 64 * 64;

template <class F>
void over_batch(int64_t batch, int64_t elems, const F& f) {
  const int64_t grain =
      elems <= kSmall ? std::max<int64_t>(1, kSmall / std::max<int64_t>(elems, 1)) : batch;
  parallel_for(0, batch, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i);
  });
}

template <class T>
void getrf_t(int64_t batch, int64_t n, T* a, int32_t* ipiv, int32_t* info) {
  const int N = int(n), ld = std::max(N, 1);
  over_batch(batch, n * n, [&](int64_t i) {
    int inf = 0;
    if constexpr (sizeof(T) == 4) sgetrf_(&N, &N, a + i * n * n, &ld, ipiv + i * n, &inf);
    else dgetrf_(&N, &N, a + i * n * n, &ld, ipiv + i * n, &inf);
    info[i] = inf;
  });
}

template <class T>
void getrf_rect_t(int64_t batch, int64_t m64, int64_t n64, T* a, int32_t* ipiv, int32_t* info) {
  const int M = int(m64), N = int(n64), ld = std::max(M, 1);
  const int64_t k = std::min(m64, n64);
  over_batch(batch, m64 * n64, [&](int64_t i) {
    int inf = 0;
    if constexpr (sizeof(T) == 4) sgetrf_(&M, &N, a + i * m64 * n64, &ld, ipiv + i * k, &inf);
    else dgetrf_(&M, &N, a + i * m64 * n64, &ld, ipiv + i * k, &inf);
    info[i] = inf;
  });
}

template <class T>
void getrs_t(int64_t batch, int64_t n, int64_t k, const T* lu, int64_t a_step, const int32_t* ipiv,
             T* b, bool trans) {
  const int N = int(n), K = int(k), ld = std::max(N, 1);
  const char tr = trans ? 'T' : 'N';
  over_batch(batch, n * (n + k), [&](int64_t i) {
    int inf = 0;
    const T* A = lu + i * a_step;
    const int32_t* p = ipiv + (a_step ? i : 0) * n;
    if constexpr (sizeof(T) == 4) sgetrs_(&tr, &N, &K, A, &ld, p, b + i * n * k, &ld, &inf, 1);
    else dgetrs_(&tr, &N, &K, A, &ld, p, b + i * n * k, &ld, &inf, 1);
  });
}

template <class T>
void potrf_t(int64_t batch, int64_t n, T* a, int32_t* info) {
  const int N = int(n), ld = std::max(N, 1);
  const char lo = 'L';
  over_batch(batch, n * n, [&](int64_t i) {
    int inf = 0;
    T* A = a + i * n * n;
    if constexpr (sizeof(T) == 4) spotrf_(&lo, &N, A, &ld, &inf, 1);
    else dpotrf_(&lo, &N, A, &ld, &inf, 1);
    info[i] = inf;
    for (int64_t c = 1; c < n; ++c)  // column c's rows above the diagonal
      for (int64_t r = 0; r < c; ++r) A[c * n + r] = T(0);
  });
}

template <class T>
void trsm_t(int64_t batch, int64_t n, int64_t k, const T* a, T* b, bool upper, bool unit) {
  const int N = int(n), K = int(k), ld = std::max(N, 1);
  const auto ul = upper ? CblasUpper : CblasLower;
  const auto dg = unit ? CblasUnit : CblasNonUnit;
  over_batch(batch, n * (n + k), [&](int64_t i) {
    if constexpr (sizeof(T) == 4)
      cblas_strsm(CblasColMajor, CblasLeft, ul, CblasNoTrans, dg, N, K, 1.0f, a + i * n * n, ld,
                  b + i * n * k, ld);
    else
      cblas_dtrsm(CblasColMajor, CblasLeft, ul, CblasNoTrans, dg, N, K, 1.0, a + i * n * n, ld,
                  b + i * n * k, ld);
  });
}

template <class T>
void lu_det_t(int64_t batch, int64_t n, const T* lu, const int32_t* ipiv, T* sign, T* logabs,
              T* det) {
  for (int64_t i = 0; i < batch; ++i) {
    const T* A = lu + i * n * n;
    T s = 1, l = 0;
    for (int64_t j = 0; j < n; ++j) {
      const T u = A[j * n + j];
      if (ipiv[i * n + j] != j + 1) s = -s;
      if (u < 0) s = -s;
      l += std::log(std::abs(u));
    }
    if (l == -std::numeric_limits<T>::infinity()) s = 0;  // an exactly zero pivot: singular
    if (std::isnan(l)) s = std::numeric_limits<T>::quiet_NaN();
    if (sign) sign[i] = s;
    if (logabs) logabs[i] = l;
    if (det) {
      T dd = 1;  // the pivots' product, signed by the row swaps (no log/exp round trip)
      for (int64_t j = 0; j < n; ++j) {
        dd *= A[j * n + j];
        if (ipiv[i * n + j] != j + 1) dd = -dd;
      }
      det[i] = dd;
    }
  }
}

}  // namespace

#define EMBER_LAPACK_DISPATCH(dt, call_f, call_d) \
  do {                                            \
    if ((dt) == DType::Float32) {                 \
      call_f;                                     \
    } else {                                      \
      call_d;                                     \
    }                                             \
  } while (0)

void getrf_batched(DType dt, int64_t batch, int64_t n, void* a, int32_t* ipiv, int32_t* info) {
  if (n == 0) {
    for (int64_t i = 0; i < batch; ++i) info[i] = 0;
    return;
  }
  EMBER_LAPACK_DISPATCH(dt, getrf_t(batch, n, static_cast<float*>(a), ipiv, info),
                        getrf_t(batch, n, static_cast<double*>(a), ipiv, info));
}

void getrf_rect_batched(DType dt, int64_t batch, int64_t m, int64_t n, void* a, int32_t* ipiv,
                        int32_t* info) {
  if (m == 0 || n == 0) {
    for (int64_t i = 0; i < batch; ++i) info[i] = 0;
    return;
  }
  EMBER_LAPACK_DISPATCH(dt, getrf_rect_t(batch, m, n, static_cast<float*>(a), ipiv, info),
                        getrf_rect_t(batch, m, n, static_cast<double*>(a), ipiv, info));
}

void lu_permutation(int64_t batch, int64_t m, int64_t k, const int32_t* ipiv, int64_t* perm) {
  for (int64_t b = 0; b < batch; ++b) {
    int64_t* p = perm + b * m;
    for (int64_t i = 0; i < m; ++i) p[i] = i;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t j = int64_t(ipiv[b * k + i]) - 1;
      if (j >= 0 && j < m) std::swap(p[i], p[j]);
    }
  }
}

void getrs_batched(DType dt, int64_t batch, int64_t n, int64_t k, const void* lu, int64_t a_step,
                   const int32_t* ipiv, void* b, bool trans) {
  if (n == 0 || k == 0) return;
  EMBER_LAPACK_DISPATCH(dt,
                        getrs_t(batch, n, k, static_cast<const float*>(lu), a_step, ipiv,
                                static_cast<float*>(b), trans),
                        getrs_t(batch, n, k, static_cast<const double*>(lu), a_step, ipiv,
                                static_cast<double*>(b), trans));
}

void potrf_batched(DType dt, int64_t batch, int64_t n, void* a, int32_t* info) {
  if (n == 0) {
    for (int64_t i = 0; i < batch; ++i) info[i] = 0;
    return;
  }
  EMBER_LAPACK_DISPATCH(dt, potrf_t(batch, n, static_cast<float*>(a), info),
                        potrf_t(batch, n, static_cast<double*>(a), info));
}

void trsm_batched(DType dt, int64_t batch, int64_t n, int64_t k, const void* a, void* b, bool upper,
                  bool unit) {
  if (n == 0 || k == 0) return;
  EMBER_LAPACK_DISPATCH(dt,
                        trsm_t(batch, n, k, static_cast<const float*>(a), static_cast<float*>(b),
                               upper, unit),
                        trsm_t(batch, n, k, static_cast<const double*>(a), static_cast<double*>(b),
                               upper, unit));
}

void lu_det(DType dt, int64_t batch, int64_t n, const void* lu, const int32_t* ipiv, void* sign,
            void* logabs, void* det) {
  EMBER_LAPACK_DISPATCH(dt,
                        lu_det_t(batch, n, static_cast<const float*>(lu), ipiv,
                                 static_cast<float*>(sign), static_cast<float*>(logabs),
                                 static_cast<float*>(det)),
                        lu_det_t(batch, n, static_cast<const double*>(lu), ipiv,
                                 static_cast<double*>(sign), static_cast<double*>(logabs),
                                 static_cast<double*>(det)));
}

}  // namespace ember::kernels
