#include "kernels/cpu/blas.h"

#include <cblas.h>
#ifdef EMBER_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

#include <algorithm>
#include <type_traits>

#include "kernels/cpu/blas_half.h"
#include "kernels/cpu/parallel.h"

namespace ember::kernels {
namespace {

// A product of at least this many multiply-adds gets BLAS's threads; smaller products in a
// batch are spread over threads one whole product each instead (OpenBLAS itself stays on
// one thread below roughly this size, so the batch loop would otherwise run serially).
constexpr int64_t kBlasThreadWork = int64_t(1) << 18;
// Multiply-adds worth waking a thread for in the integer loops and the batch loop.
constexpr int64_t kGemmGrain = int64_t(1) << 16;

// Integer arithmetic wraps around on overflow, as in PyTorch; doing it in the unsigned
// type keeps that well defined in C++ (the unsigned type of the promoted product: uint16 * uint16
// would promote to int and overflow it).
template <class T>
inline T mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<decltype(a * b)>;
    return T(U(U(a) * U(b)));
  } else {
    return a * b;
  }
}
template <class T>
inline T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return T(U(U(a) + U(b)));
  } else {
    return a + b;
  }
}

// y[i * inc] = beta * y[i * inc] for i < n; beta == 0 writes zeros without reading y.
template <class T>
void scale(int64_t n, T beta, T* y, int64_t inc) {
  if (beta == T(1)) return;
  for (int64_t i = 0; i < n; ++i) y[i * inc] = beta == T(0) ? T(0) : mul(beta, y[i * inc]);
}

// Row and column strides (elements) of op(A).
inline int64_t row_stride(MatRef r) { return r.trans ? 1 : r.ld; }
inline int64_t col_stride(MatRef r) { return r.trans ? r.ld : 1; }

// The integer product for rows [i0, i1) of C. When op(B)'s rows are contiguous the i-k-j
// order streams them (the inner loop vectorizes); otherwise each C[i, j] is a dot product
// along k, which is then the contiguous direction of B.
template <class T>
struct IntGemm {
  int64_t n, k;
  T alpha, beta;
  const T* A;
  int64_t ars, acs;
  const T* B;
  int64_t brs, bcs;
  T* c;
  int64_t ldc;
};

template <class T>
[[gnu::always_inline]] inline void int_gemm_rows(const IntGemm<T>& g, int64_t i0, int64_t i1) {
  const int64_t n = g.n, k = g.k;
  for (int64_t i = i0; i < i1; ++i) {
    T* __restrict crow = g.c + i * g.ldc;
    scale(n, g.beta, crow, 1);
    if (g.alpha == T(0)) continue;
    const T* __restrict arow = g.A + i * g.ars;
    if (g.bcs == 1 && n > 1) {
      for (int64_t p = 0; p < k; ++p) {
        const T av = mul(g.alpha, arow[p * g.acs]);
        const T* __restrict brow = g.B + p * g.brs;
        for (int64_t j = 0; j < n; ++j) crow[j] = add(crow[j], mul(av, brow[j]));
      }
    } else {
      for (int64_t j = 0; j < n; ++j) {
        const T* __restrict bcol = g.B + j * g.bcs;
        T acc = T(0);
        for (int64_t p = 0; p < k; ++p) acc = add(acc, mul(arow[p * g.acs], bcol[p * g.brs]));
        crow[j] = add(crow[j], mul(g.alpha, acc));
      }
    }
  }
}

// The build targets baseline x86-64; these loops get AVX2 / AVX-512 versions chosen at
// load time (integer multiplies are where SSE2 falls far behind).
#define EMBER_INT_GEMM_ROWS(T)                                                              \
  [[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3",                                  \
                       "default")]] void int_gemm_rows_##T(const IntGemm<T>& g, int64_t i0, \
                                                           int64_t i1) {                    \
    int_gemm_rows<T>(g, i0, i1);                                                            \
  }
EMBER_INT_GEMM_ROWS(uint8_t)
EMBER_INT_GEMM_ROWS(int8_t)
EMBER_INT_GEMM_ROWS(int16_t)
EMBER_INT_GEMM_ROWS(int32_t)
EMBER_INT_GEMM_ROWS(int64_t)
#undef EMBER_INT_GEMM_ROWS

template <class T>
void gemm_loop(int64_t m, int64_t n, int64_t k, T alpha, MatRef a, MatRef b, T beta, T* c,
               int64_t ldc) {
  const IntGemm<T> g{n,
                     k,
                     alpha,
                     beta,
                     static_cast<const T*>(a.ptr),
                     row_stride(a),
                     col_stride(a),
                     static_cast<const T*>(b.ptr),
                     row_stride(b),
                     col_stride(b),
                     c,
                     ldc};
  parallel_for(0, m, std::max<int64_t>(1, kGemmGrain / std::max<int64_t>(1, n * k)),
               [&](int64_t i0, int64_t i1) {
                 if constexpr (std::is_same_v<T, uint8_t>) int_gemm_rows_uint8_t(g, i0, i1);
                 else if constexpr (std::is_same_v<T, int8_t>) int_gemm_rows_int8_t(g, i0, i1);
                 else if constexpr (std::is_same_v<T, int16_t>) int_gemm_rows_int16_t(g, i0, i1);
                 else if constexpr (std::is_same_v<T, int32_t>) int_gemm_rows_int32_t(g, i0, i1);
                 else int_gemm_rows_int64_t(g, i0, i1);
               });
}

inline CBLAS_TRANSPOSE op(bool trans) { return trans ? CblasTrans : CblasNoTrans; }

// Note [float32 gemm]: float32 products of at least kDnnlMacs multiply-adds (and more than one
// row and column) run oneDNN's sgemm when ember was built with it, the rest OpenBLAS's. On this
// machine (Sapphire Rapids, one thread) oneDNN 2.6 took 10-25% less time than OpenBLAS 0.3.21
// on a GPT's shapes (768x128 by 128x512: 555 against 608 us; 768x128 by 128x128: 125 against
// 156) and scaled better to two threads, while below ~128^3 its dispatch costs more than it
// saves (4x128 by 128x2: 0.39 against 0.11 us). Both use libgomp's one pool. Results differ
// from OpenBLAS's in the last bits (another summation order), as torch's MKL does; each is
// deterministic for a given thread count. Except for a transposed A (op(A) = A^T, B as
// stored: a weight gradient x^T g) with more than kDnnlMaxTransRows rows of C: there oneDNN
// took 1.14-1.9x OpenBLAS's time (one thread; m = 800, 2048, 8192, 33278 with n = 128-512,
// k = 700-768; word_language_model's decoder gradient 33278x700 by 700x200: 242 against 184
// ms), while at m <= 512 (a GPT's weight gradients) it stays 7-22% faster.
constexpr int64_t kDnnlMacs = int64_t(1) << 21;
constexpr int64_t kDnnlMaxTransRows = 512;

void sgemm(int64_t m, int64_t n, int64_t k, float alpha, MatRef a, MatRef b, float beta, float* c,
           int64_t ldc) {
  const int M = int(m), N = int(n), K = int(k), lda = int(a.ld), ldb = int(b.ld), LDC = int(ldc);
  const auto* A = static_cast<const float*>(a.ptr);
  const auto* B = static_cast<const float*>(b.ptr);
#ifdef EMBER_HAVE_DNNL
  if (m > 1 && n > 1 && m * n * k >= kDnnlMacs && !(a.trans && !b.trans && m > kDnnlMaxTransRows) &&
      dnnl_sgemm(a.trans ? 'T' : 'N', b.trans ? 'T' : 'N', M, N, K, alpha, A, lda, B, ldb, beta, c,
                 LDC) == dnnl_success)
    return;
#endif
  cblas_sgemm(CblasRowMajor, op(a.trans), op(b.trans), M, N, K, alpha, A, lda, B, ldb, beta, c,
              LDC);
}

template <class T>
void gemm_typed(int64_t m, int64_t n, int64_t k, Scalar alpha_s, MatRef a, MatRef b, Scalar beta_s,
                T* c, int64_t ldc) {
  const T alpha = alpha_s.to<T>(), beta = beta_s.to<T>();
  if (m == 0 || n == 0) return;
  if (k == 0 || alpha == T(0)) {  // BLAS would not read A and B either
    for (int64_t i = 0; i < m; ++i) scale(n, beta, c + i * ldc, 1);
    return;
  }
  const int M = int(m), N = int(n), K = int(k), lda = int(a.ld), ldb = int(b.ld), LDC = int(ldc);
  if constexpr (std::is_same_v<T, float>) {
    sgemm(m, n, k, alpha, a, b, beta, c, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, op(a.trans), op(b.trans), M, N, K, alpha,
                static_cast<const double*>(a.ptr), lda, static_cast<const double*>(b.ptr), ldb,
                beta, c, LDC);
  } else if constexpr (std::is_same_v<T, complex64_t>) {
    cblas_cgemm(CblasRowMajor, op(a.trans), op(b.trans), M, N, K, &alpha, a.ptr, lda, b.ptr, ldb,
                &beta, c, LDC);
  } else if constexpr (std::is_same_v<T, complex128_t>) {
    cblas_zgemm(CblasRowMajor, op(a.trans), op(b.trans), M, N, K, &alpha, a.ptr, lda, b.ptr, ldb,
                &beta, c, LDC);
  } else {
    gemm_loop<T>(m, n, k, alpha, a, b, beta, c, ldc);
  }
}

template <class T>
void gemv_typed(int64_t m, int64_t n, Scalar alpha_s, MatRef a, const T* x, int64_t incx,
                Scalar beta_s, T* y, int64_t incy) {
  const T alpha = alpha_s.to<T>(), beta = beta_s.to<T>();
  if (m == 0) return;
  if (n == 0 || alpha == T(0)) {
    scale(m, beta, y, incy);
    return;
  }
  // cblas_?gemv takes the stored matrix's shape: (m, n) as is, or (n, m) to transpose.
  const int rows = int(a.trans ? n : m), cols = int(a.trans ? m : n);
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemv(CblasRowMajor, op(a.trans), rows, cols, alpha, static_cast<const float*>(a.ptr),
                int(a.ld), x, int(incx), beta, y, int(incy));
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemv(CblasRowMajor, op(a.trans), rows, cols, alpha, static_cast<const double*>(a.ptr),
                int(a.ld), x, int(incx), beta, y, int(incy));
  } else if constexpr (std::is_same_v<T, complex64_t>) {
    cblas_cgemv(CblasRowMajor, op(a.trans), rows, cols, &alpha, a.ptr, int(a.ld), x, int(incx),
                &beta, y, int(incy));
  } else if constexpr (std::is_same_v<T, complex128_t>) {
    cblas_zgemv(CblasRowMajor, op(a.trans), rows, cols, &alpha, a.ptr, int(a.ld), x, int(incx),
                &beta, y, int(incy));
  } else {
    // x as an (n, 1) matrix with row stride incx; y as (m, 1) with row stride incy.
    gemm_loop<T>(m, 1, n, alpha, a, MatRef{x, false, incx}, beta, y, incy);
  }
}

template <class T>
T dot_typed(int64_t n, const T* x, int64_t incx, const T* y, int64_t incy) {
  if constexpr (std::is_floating_point_v<T>) {
    // BLAS counts in int: a longer vector goes in pieces.
    constexpr int64_t kPiece = int64_t(1) << 30;
    T acc = T(0);
    for (int64_t s = 0; s < n; s += kPiece) {
      const int len = int(std::min(kPiece, n - s));
      const T *xs = x + s * incx, *ys = y + s * incy;
      if constexpr (std::is_same_v<T, float>) acc += cblas_sdot(len, xs, int(incx), ys, int(incy));
      else acc += cblas_ddot(len, xs, int(incx), ys, int(incy));
    }
    return acc;
  } else {
    T acc = T(0);
    for (int64_t i = 0; i < n; ++i) acc = add(acc, mul(x[i * incx], y[i * incy]));
    return acc;
  }
}

// Calls f.template operator()<T>() for the dtypes with a matrix product (bool has none;
// complex's dot is the plain loop of dot_typed: unconjugated, as torch.dot;
// the ops layer rejects it before any kernel runs).
template <class F>
void visit_matmul_dtype(DType dt, F&& f) {
  switch (dt) {
    case DType::Float32: f.template operator()<float>(); break;
    case DType::Float64: f.template operator()<double>(); break;
    case DType::Int64: f.template operator()<int64_t>(); break;
    case DType::Int32: f.template operator()<int32_t>(); break;
    case DType::UInt8: f.template operator()<uint8_t>(); break;
    case DType::Int8: f.template operator()<int8_t>(); break;
    case DType::Int16: f.template operator()<int16_t>(); break;
    case DType::Complex64: f.template operator()<complex64_t>(); break;    // cgemm/cgemv
    case DType::Complex128: f.template operator()<complex128_t>(); break;  // zgemm/zgemv
    case DType::Bool:
    case DType::BFloat16:
    case DType::Float16: break;  // half: blas_half.h
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64: throw_unsupported_dtype(dt);  // torch has no "dot" for them either
  }
}

MatRef shifted(MatRef r, int64_t bytes) {
  r.ptr = static_cast<const char*>(r.ptr) + bytes;
  return r;
}

}  // namespace

void gemm(DType dt, int64_t m, int64_t n, int64_t k, Scalar alpha, MatRef a, MatRef b, Scalar beta,
          void* c, int64_t ldc) {
  if (is_half(dt)) return gemm_half(dt, m, n, k, alpha, a, b, beta, c, ldc);
  visit_matmul_dtype(dt, [&]<class T>() {
    gemm_typed<T>(m, n, k, alpha, a, b, beta, static_cast<T*>(c), ldc);
  });
}

void gemm_batched(DType dt, int64_t batch, int64_t m, int64_t n, int64_t k, Scalar alpha, MatRef a,
                  const int64_t* a_off, MatRef b, const int64_t* b_off, Scalar beta, void* c,
                  int64_t ldc, int64_t c_stride) {
  if (batch == 0 || m == 0 || n == 0) return;
  const int64_t c_bytes = c_stride * int64_t(itemsize(dt));
  auto run = [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      gemm(dt, m, n, k, alpha, shifted(a, a_off[i]), shifted(b, b_off[i]), beta,
           static_cast<char*>(c) + i * c_bytes, ldc);
  };
  const int64_t work = m * n * std::max<int64_t>(k, 1);
  if (work >= kBlasThreadWork) run(0, batch);
  else parallel_for(0, batch, std::max<int64_t>(1, kGemmGrain / work), run);
}

void gemv(DType dt, int64_t m, int64_t n, Scalar alpha, MatRef a, const void* x, int64_t incx,
          Scalar beta, void* y, int64_t incy) {
  if (is_half(dt)) return gemv_half(dt, m, n, alpha, a, x, incx, beta, y, incy);
  visit_matmul_dtype(dt, [&]<class T>() {
    gemv_typed<T>(m, n, alpha, a, static_cast<const T*>(x), incx, beta, static_cast<T*>(y), incy);
  });
}

void dot(DType dt, int64_t n, const void* x, int64_t incx, const void* y, int64_t incy, void* out) {
  if (is_half(dt)) return dot_half(dt, n, x, incx, y, incy, out);
  visit_matmul_dtype(dt, [&]<class T>() {
    *static_cast<T*>(out) =
        dot_typed<T>(n, static_cast<const T*>(x), incx, static_cast<const T*>(y), incy);
  });
}

}  // namespace ember::kernels
