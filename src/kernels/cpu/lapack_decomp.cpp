// LAPACK's decompositions (syevd, gesdd, geqrf, orgqr), batched. Each asks LAPACK for its
// workspace size once per call and runs the batch in order with one workspace: these are
// O(n^3) iterative routines where OpenBLAS's own threads do the parallel work.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "kernels/cpu/lapack.h"

extern "C" {
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w,
             float* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t,
             size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
             double* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t,
             size_t);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s,
             float* u, const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork,
             int* iwork, int* info, size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s,
             double* u, const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork,
             int* iwork, int* info, size_t);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work,
             const int* lwork, int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau,
             float* work, const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
             double* work, const int* lwork, int* info);
void ssytrf_(const char* uplo, const int* n, float* a, const int* lda, int* ipiv, float* work,
             const int* lwork, int* info, size_t);
void dsytrf_(const char* uplo, const int* n, double* a, const int* lda, int* ipiv, double* work,
             const int* lwork, int* info, size_t);
void ssytrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda,
             const int* ipiv, float* b, const int* ldb, int* info, size_t);
void dsytrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, size_t);
}

namespace ember::kernels {
namespace {

// Overloads so each routine is written once for float and double.
void syevd(const char* j, const char* u, const int* n, float* a, const int* lda, float* w,
           float* wk, const int* lw, int* iw, const int* liw, int* info) {
  ssyevd_(j, u, n, a, lda, w, wk, lw, iw, liw, info, 1, 1);
}
void syevd(const char* j, const char* u, const int* n, double* a, const int* lda, double* w,
           double* wk, const int* lw, int* iw, const int* liw, int* info) {
  dsyevd_(j, u, n, a, lda, w, wk, lw, iw, liw, info, 1, 1);
}
void gesdd(const char* j, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
           const int* ldu, float* vt, const int* ldvt, float* wk, const int* lw, int* iw,
           int* info) {
  sgesdd_(j, m, n, a, lda, s, u, ldu, vt, ldvt, wk, lw, iw, info, 1);
}
void gesdd(const char* j, const int* m, const int* n, double* a, const int* lda, double* s,
           double* u, const int* ldu, double* vt, const int* ldvt, double* wk, const int* lw,
           int* iw, int* info) {
  dgesdd_(j, m, n, a, lda, s, u, ldu, vt, ldvt, wk, lw, iw, info, 1);
}
void geqrf(const int* m, const int* n, float* a, const int* lda, float* tau, float* wk,
           const int* lw, int* info) {
  sgeqrf_(m, n, a, lda, tau, wk, lw, info);
}
void geqrf(const int* m, const int* n, double* a, const int* lda, double* tau, double* wk,
           const int* lw, int* info) {
  dgeqrf_(m, n, a, lda, tau, wk, lw, info);
}
void orgqr(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau,
           float* wk, const int* lw, int* info) {
  sorgqr_(m, n, k, a, lda, tau, wk, lw, info);
}
void orgqr(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
           double* wk, const int* lw, int* info) {
  dorgqr_(m, n, k, a, lda, tau, wk, lw, info);
}

void sytrf(const int* n, float* a, const int* lda, int* ipiv, float* wk, const int* lw, int* info) {
  ssytrf_("L", n, a, lda, ipiv, wk, lw, info, 1);
}
void sytrf(const int* n, double* a, const int* lda, int* ipiv, double* wk, const int* lw,
           int* info) {
  dsytrf_("L", n, a, lda, ipiv, wk, lw, info, 1);
}
void sytrs(const int* n, const int* k, const float* a, const int* lda, const int* ipiv, float* b,
           int* info) {
  ssytrs_("L", n, k, a, lda, ipiv, b, lda, info, 1);
}
void sytrs(const int* n, const int* k, const double* a, const int* lda, const int* ipiv, double* b,
           int* info) {
  dsytrs_("L", n, k, a, lda, ipiv, b, lda, info, 1);
}

template <class T>
int lwork_of(T query) {
  return std::max(1, int(query));
}

template <class T>
void syevd_t(int64_t batch, int64_t n64, T* a, T* w, int32_t* info, bool vectors, bool lower) {
  const int n = int(n64), ld = std::max(n, 1), minus1 = -1;
  const char jobz = vectors ? 'V' : 'N', uplo = lower ? 'L' : 'U';
  T wq = 0;
  int iq = 0, inf = 0;
  syevd(&jobz, &uplo, &n, a, &ld, w, &wq, &minus1, &iq, &minus1, &inf);
  const int lw = lwork_of(wq), liw = std::max(1, iq);
  std::vector<T> work(static_cast<size_t>(lw));
  std::vector<int> iwork(static_cast<size_t>(liw));
  for (int64_t i = 0; i < batch; ++i) {
    syevd(&jobz, &uplo, &n, a + i * n64 * n64, &ld, w + i * n64, work.data(), &lw, iwork.data(),
          &liw, &inf);
    info[i] = inf;
  }
}

template <class T>
void gesdd_t(int64_t batch, int64_t m64, int64_t n64, T* a, T* s, T* u, T* vt, int32_t* info,
             bool full) {
  const int m = int(m64), n = int(n64), k = std::min(m, n), minus1 = -1;
  const char jobz = !u ? 'N' : full ? 'A' : 'S';
  const int ucols = full ? m : k, vtrows = full ? n : k;
  const int lda = std::max(m, 1), ldu = std::max(m, 1), ldvt = std::max(vtrows, 1);
  T dummy = 0, wq = 0;
  int inf = 0;
  std::vector<int> iwork(size_t(std::max(1, 8 * k)));
  gesdd(&jobz, &m, &n, a, &lda, s, u ? u : &dummy, &ldu, vt ? vt : &dummy, &ldvt, &wq, &minus1,
        iwork.data(), &inf);
  const int lw = lwork_of(wq);
  std::vector<T> work(static_cast<size_t>(lw));
  for (int64_t i = 0; i < batch; ++i) {
    gesdd(&jobz, &m, &n, a + i * m64 * n64, &lda, s + i * k, u ? u + i * m64 * ucols : &dummy, &ldu,
          vt ? vt + i * int64_t(vtrows) * n64 : &dummy, &ldvt, work.data(), &lw, iwork.data(),
          &inf);
    info[i] = inf;
  }
}

template <class T>
void geqrf_t(int64_t batch, int64_t m64, int64_t n64, T* a, T* tau) {
  const int m = int(m64), n = int(n64), ld = std::max(m, 1), minus1 = -1;
  const int64_t k = std::min(m64, n64);
  T wq = 0;
  int inf = 0;
  geqrf(&m, &n, a, &ld, tau, &wq, &minus1, &inf);
  const int lw = lwork_of(wq);
  std::vector<T> work(static_cast<size_t>(lw));
  for (int64_t i = 0; i < batch; ++i)
    geqrf(&m, &n, a + i * m64 * n64, &ld, tau + i * k, work.data(), &lw, &inf);
}

template <class T>
void orgqr_t(int64_t batch, int64_t m64, int64_t cols64, int64_t k64, T* q, const T* tau) {
  const int m = int(m64), cols = int(cols64), k = int(k64), ld = std::max(m, 1), minus1 = -1;
  T wq = 0;
  int inf = 0;
  orgqr(&m, &cols, &k, q, &ld, tau, &wq, &minus1, &inf);
  const int lw = lwork_of(wq);
  std::vector<T> work(static_cast<size_t>(lw));
  for (int64_t i = 0; i < batch; ++i)
    orgqr(&m, &cols, &k, q + i * m64 * cols64, &ld, tau + i * k64, work.data(), &lw, &inf);
}

template <class T>
void sytrf_t(int64_t batch, int64_t n64, T* a, int32_t* ipiv, int32_t* info) {
  const int n = int(n64), ld = std::max(n, 1), minus1 = -1;
  T wq = 0;
  int inf = 0;
  sytrf(&n, a, &ld, ipiv, &wq, &minus1, &inf);
  const int lw = lwork_of(wq);
  std::vector<T> work(static_cast<size_t>(lw));
  for (int64_t i = 0; i < batch; ++i) {
    T* A = a + i * n64 * n64;
    sytrf(&n, A, &ld, ipiv + i * n64, work.data(), &lw, &inf);
    info[i] = inf;
    for (int64_t c = 1; c < n64; ++c)  // the strictly upper part is not part of the result
      for (int64_t r = 0; r < c; ++r) A[c * n64 + r] = T(0);
  }
}

template <class T>
void sytrs_t(int64_t batch, int64_t n64, int64_t k64, const T* a, const int32_t* ipiv, T* b) {
  const int n = int(n64), k = int(k64), ld = std::max(n, 1);
  int inf = 0;
  for (int64_t i = 0; i < batch; ++i)
    sytrs(&n, &k, a + i * n64 * n64, &ld, ipiv + i * n64, b + i * n64 * k64, &inf);
}

}  // namespace

void sytrf_batched(DType dt, int64_t batch, int64_t n, void* a, int32_t* ipiv, int32_t* info) {
  if (n == 0) {
    std::fill(info, info + batch, 0);
    return;
  }
  if (dt == DType::Float32) sytrf_t(batch, n, static_cast<float*>(a), ipiv, info);
  else sytrf_t(batch, n, static_cast<double*>(a), ipiv, info);
}

void sytrs_batched(DType dt, int64_t batch, int64_t n, int64_t k, const void* ld,
                   const int32_t* ipiv, void* b) {
  if (n == 0 || k == 0) return;
  if (dt == DType::Float32)
    sytrs_t(batch, n, k, static_cast<const float*>(ld), ipiv, static_cast<float*>(b));
  else sytrs_t(batch, n, k, static_cast<const double*>(ld), ipiv, static_cast<double*>(b));
}

void syevd_batched(DType dt, int64_t batch, int64_t n, void* a, void* w, int32_t* info,
                   bool vectors, bool lower) {
  if (batch == 0) return;
  if (n == 0) {
    std::fill(info, info + batch, 0);
    return;
  }
  if (dt == DType::Float32)
    syevd_t(batch, n, static_cast<float*>(a), static_cast<float*>(w), info, vectors, lower);
  else syevd_t(batch, n, static_cast<double*>(a), static_cast<double*>(w), info, vectors, lower);
}

void gesdd_batched(DType dt, int64_t batch, int64_t m, int64_t n, void* a, void* s, void* u,
                   void* vt, int32_t* info, bool full) {
  if (batch == 0) return;
  if (m == 0 || n == 0) {  // nothing to decompose; full U/V^T of an empty side are identities
    std::fill(info, info + batch, 0);
    return;
  }
  if (dt == DType::Float32)
    gesdd_t(batch, m, n, static_cast<float*>(a), static_cast<float*>(s), static_cast<float*>(u),
            static_cast<float*>(vt), info, full);
  else
    gesdd_t(batch, m, n, static_cast<double*>(a), static_cast<double*>(s), static_cast<double*>(u),
            static_cast<double*>(vt), info, full);
}

void geqrf_batched(DType dt, int64_t batch, int64_t m, int64_t n, void* a, void* tau) {
  if (batch == 0 || m == 0 || n == 0) return;
  if (dt == DType::Float32) geqrf_t(batch, m, n, static_cast<float*>(a), static_cast<float*>(tau));
  else geqrf_t(batch, m, n, static_cast<double*>(a), static_cast<double*>(tau));
}

void orgqr_batched(DType dt, int64_t batch, int64_t m, int64_t cols, int64_t k, void* q,
                   const void* tau) {
  if (batch == 0 || m == 0 || cols == 0) return;
  if (dt == DType::Float32)
    orgqr_t(batch, m, cols, k, static_cast<float*>(q), static_cast<const float*>(tau));
  else orgqr_t(batch, m, cols, k, static_cast<double*>(q), static_cast<const double*>(tau));
}

}  // namespace ember::kernels
