// The attention kernels of attention.h, compiled once per instruction set: attention.cpp
// includes this file for the baseline ISA as namespace `generic`, attention_avx2.cpp again
// under `#pragma GCC target("avx2,fma")` as namespace `avx2` (the scheme of nn_impl.h).
// Define EMBER_ATTENTION_ISA and EMBER_ATTENTION_VEC_BYTES (its vector width) first; no std::
// templates are instantiated here (their inline copies would merge across ISAs at link time), only
// new[] / delete[].
//
// Each head is one task. Small heads (Note [Small attention heads] below) run register-blocked
// loops of their own; larger ones are cut into blocks of kBlock query rows. A block's scores
// against the keys it may see (a kBlock x S buffer per thread: never the (L, S) matrix of a head,
// nor a tensor of all heads) come from one BLAS call, the softmax is exact in place (max,
// exp, a sum in double), and lse = max + log(sum) is kept; the backward recomputes the
// probabilities from lse (FlashAttention's scheme) instead of saving them, and adds each
// block's share of dK and dV with BLAS's beta = 1.
#include <cmath>
#include <cstdint>

#include "kernels/cpu/attention.h"
#include "kernels/cpu/blas.h"
#include "kernels/cpu/parallel.h"

#if !defined(EMBER_ATTENTION_ISA) || !defined(EMBER_ATTENTION_VEC_BYTES)
#error "define EMBER_ATTENTION_ISA and EMBER_ATTENTION_VEC_BYTES before including attention_impl.h"
#endif

namespace ember::kernels::EMBER_ATTENTION_ISA {
namespace {

#include "kernels/cpu/branchless.h"  // pick, exp_of: this ISA's own copies

constexpr int64_t kBlock = 64;

template <class T>
constexpr DType dtype_of_v = sizeof(T) == 4 ? DType::Float32 : DType::Float64;

// The keys query i sees: [0, visible).
inline int64_t visible(const AttentionShape& a, int64_t i) {
  return a.causal ? (i + 1 < a.S ? i + 1 : a.S) : a.S;
}

// The max and the sum of a row in kLanes independent lanes, so they vectorize (a single
// running max or sum is a chain the compiler may not reorder); the lanes' sums are added in
// double. NaN scores: the max ignores them, the exp and the sum carry them to the output.
constexpr int kLanes = 8;

template <class T>
T row_max(const T* s, int64_t n) {
  T lane[kLanes];
  for (int l = 0; l < kLanes; ++l) lane[l] = s[0];
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l) lane[l] = s[j + l] > lane[l] ? s[j + l] : lane[l];
  T m = lane[0];
  for (int l = 1; l < kLanes; ++l) m = lane[l] > m ? lane[l] : m;
  for (; j < n; ++j) m = s[j] > m ? s[j] : m;
  return m;
}

template <class T>
double row_sum(const T* s, int64_t n) {
  T lane[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l) lane[l] += s[j + l];
  double sum = 0;
  for (int l = 0; l < kLanes; ++l) sum += double(lane[l]);
  for (; j < n; ++j) sum += double(s[j]);
  return sum;
}

// Columns a block of rows [i0, i0 + rows) needs: the widest row's.
inline int64_t block_cols(const AttentionShape& a, int64_t i0, int64_t rows) {
  return visible(a, i0 + rows - 1);
}

// p (rows x cols, leading dim cols) = scale * q_block k^T: one BLAS call.
template <class T>
void block_scores(const AttentionShape& a, const T* qb, const T* k, int64_t rows, int64_t cols,
                  T* p) {
  gemm(dtype_of_v<T>, rows, cols, a.E, Scalar(a.scale), MatRef{qb, false, a.q.ld},
       MatRef{k, true, a.k.ld}, Scalar(0.0), p, cols);
}

template <class T>
void forward_head(const AttentionShape& a, const T* q, const T* k, const T* v, T* out, T* lse,
                  T* p) {
  for (int64_t i0 = 0; i0 < a.L; i0 += kBlock) {
    const int64_t rows = a.L - i0 < kBlock ? a.L - i0 : kBlock, cols = block_cols(a, i0, rows);
    block_scores(a, q + i0 * a.q.ld, k, rows, cols, p);
    for (int64_t r = 0; r < rows; ++r) {
      T* s = p + r * cols;
      const int64_t n = visible(a, i0 + r);
      const T m = row_max(s, n);
      const T shift = std::isinf(m) ? T(0) : m;  // a row of infinite scores: no inf - inf
      for (int64_t j = 0; j < n; ++j) s[j] = exp_of(T(s[j] - shift));
      const double sum = row_sum(s, n);
      const T inv = T(1.0 / sum);
      for (int64_t j = 0; j < n; ++j) s[j] *= inv;
      for (int64_t j = n; j < cols; ++j) s[j] = T(0);  // masked (causal)
      lse[i0 + r] = T(double(shift) + std::log(sum));
    }
    gemm(dtype_of_v<T>, rows, a.Ev, cols, Scalar(1.0), MatRef{p, false, cols},
         MatRef{v, false, a.v.ld}, Scalar(0.0), out + i0 * a.o.ld, a.o.ld);
  }
}

// Sets rows x n (row stride ld) to zero.
template <class T>
void zero_rows(T* x, int64_t rows, int64_t n, int64_t ld) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t e = 0; e < n; ++e) x[r * ld + e] = T(0);
}

// rowsum(dO o) of one row, lanes summed in double.
template <class T>
double row_dot(const T* x, const T* y, int64_t n) {
  T prod[kLanes] = {};
  int64_t e = 0;
  for (; e + kLanes <= n; e += kLanes)
    for (int l = 0; l < kLanes; ++l) prod[l] += x[e + l] * y[e + l];
  double D = 0;
  for (int l = 0; l < kLanes; ++l) D += double(prod[l]);
  for (; e < n; ++e) D += double(x[e]) * double(y[e]);
  return D;
}

template <class T>
void backward_head(const AttentionShape& a, const T* go, const T* q, const T* k, const T* v,
                   const T* out, const T* lse, T* gq, T* gk, T* gv, T* p, T* dp) {
  const DType dt = dtype_of_v<T>;
  const int64_t E = a.E, Ev = a.Ev;
  if (gk) zero_rows(gk, a.S, E, a.gk.ld);
  if (gv) zero_rows(gv, a.S, Ev, a.gv.ld);
  for (int64_t i0 = 0; i0 < a.L; i0 += kBlock) {
    const int64_t rows = a.L - i0 < kBlock ? a.L - i0 : kBlock, cols = block_cols(a, i0, rows);
    const T* qb = q + i0 * a.q.ld;
    const T* gob = go + i0 * a.go.ld;
    block_scores(a, qb, k, rows, cols, p);
    for (int64_t r = 0; r < rows; ++r) {  // p = exp(s - lse), 0 where masked
      T* s = p + r * cols;
      const int64_t n = visible(a, i0 + r);
      const T l = lse[i0 + r];
      for (int64_t j = 0; j < n; ++j) s[j] = exp_of(T(s[j] - l));
      for (int64_t j = n; j < cols; ++j) s[j] = T(0);
    }
    if (gv)  // dV += p^T dO
      gemm(dt, cols, Ev, rows, Scalar(1.0), MatRef{p, true, cols}, MatRef{gob, false, a.go.ld},
           Scalar(1.0), gv, a.gv.ld);
    if (!gq && !gk) continue;
    // dp = dO v^T, then d score = p (dp - D) scale with D = rowsum(dO o) = rowsum(p dp)
    gemm(dt, rows, cols, Ev, Scalar(1.0), MatRef{gob, false, a.go.ld}, MatRef{v, true, a.v.ld},
         Scalar(0.0), dp, cols);
    for (int64_t r = 0; r < rows; ++r) {
      const T Dt = T(row_dot(gob + r * a.go.ld, out + (i0 + r) * a.o.ld, Ev)), scale = T(a.scale);
      T* d = dp + r * cols;
      const T* s = p + r * cols;
      for (int64_t j = 0; j < cols; ++j) d[j] = s[j] * (d[j] - Dt) * scale;
    }
    if (gq)  // dQ = ds k
      gemm(dt, rows, E, cols, Scalar(1.0), MatRef{dp, false, cols}, MatRef{k, false, a.k.ld},
           Scalar(0.0), gq + i0 * a.gq.ld, a.gq.ld);
    if (gk)  // dK += ds^T q
      gemm(dt, cols, E, rows, Scalar(1.0), MatRef{dp, true, cols}, MatRef{qb, false, a.q.ld},
           Scalar(1.0), gk, a.gk.ld);
  }
}

// Note [Small attention heads]: at nanoGPT's shapes (64 queries, 64 keys, 32 wide) a head's
// seven products are each a few microseconds, mostly BLAS's call and packing overhead, and a
// causal head computes the masked half too. Small heads instead go through three loops on
// fixed-width vectors (vector_ext.h: 64 bytes in the AVX-512 copy, 32 in the AVX2 one), kR query
// rows at a time: scores = rows x packed K^T (and dP = dO rows x packed V^T), rows of P x V (and dS
// x K), and the accumulation of P^T dO into dV (dS^T Q into dK). Row r of a block sees only its own
// keys j < n[r] in the last two, so a causal head skips its masked half, and the masked keys'
// values are never read: no -inf, no 0 * NaN from a masked row of v. (The BLAS blocks of larger
// heads multiply a block's masked probabilities, 0, by their values, as torch's blocked kernel
// does: NaN there reaches the rows of that block.)
constexpr int64_t kR = 4;
constexpr int64_t kSmallS = 256, kSmallE = 128;

#define EMBER_VECTOR_BYTES EMBER_ATTENTION_VEC_BYTES
#include "kernels/cpu/vector_ext.h"
#undef EMBER_VECTOR_BYTES

// The baseline copy (16-byte vectors) keeps BLAS: its loops took 2.5x BLAS's time at nanoGPT's
// shapes, where the AVX2 copy's match BLAS and the AVX-512 copy's take 0.6-0.8x.
inline bool small_heads(const AttentionShape& a) {
  return EMBER_ATTENTION_VEC_BYTES >= 32 && a.S <= kSmallS && a.E <= kSmallE && a.Ev <= kSmallE;
}
// Rows of scores are padded to whole units of two vectors and of kLanes (powers of two).
template <class T>
constexpr int64_t kPad = 2 * kW<T> > kLanes ? 2 * kW<T> : kLanes;
template <class T>
int64_t padded(int64_t n) {
  return (n + kPad<T> - 1) / kPad<T> * kPad<T>;
}
// The packed transposes' row length.
template <class T>
int64_t packed_width(int64_t S) {
  return padded<T>(S);
}

// bt (K x width) = b^T for b's n rows (K wide, ld apart), zero past n.
// The integer vector __builtin_shuffle takes for V<T>.
template <class T>
struct MaskOf;
template <>
struct MaskOf<float> {
  typedef int32_t type __attribute__((vector_size(EMBER_ATTENTION_VEC_BYTES)));
};
template <>
struct MaskOf<double> {
  typedef int64_t type __attribute__((vector_size(EMBER_ATTENTION_VEC_BYTES)));
};

// Lanes of a and b picked by m (m[l] < W: a's lane m[l], else b's lane m[l] - W).
// GCC's __builtin_shuffle takes a variable mask; clang has no such builtin (its
// __builtin_shufflevector wants constants), so its copy (the sanitizer build) picks lane by lane.
template <class T, class M>
V<T> shuffle2(V<T> a, V<T> b, M m) {
#if defined(__clang__)
  V<T> r;
  for (int l = 0; l < kW<T>; ++l) r[l] = m[l] < kW<T> ? a[m[l]] : b[m[l] - kW<T>];
  return r;
#else
  return __builtin_shuffle(a, b, m);
#endif
}

// Transposes the kW x kW block in x[] in registers: log2(kW) stages, stage B swapping the
// B x B sub-blocks off the diagonal of each 2B x 2B block (row i with row i + B).
template <class T>
inline void transpose_block(V<T>* x) {
  constexpr int W = kW<T>;
  using M = typename MaskOf<T>::type;
  for (int B = 1; B < W; B *= 2) {
    M lo, hi;  // lo: row i keeps its lanes l & B == 0, takes row i + B's l - B for the others
    for (int l = 0; l < W; ++l) {
      lo[l] = (l & B) ? l - B + W : l;
      hi[l] = (l & B) ? l + W : l + B;
    }
    for (int i = 0; i < W; ++i)
      if (!(i & B)) {
        const V<T> a = x[i], b = x[i + B];
        x[i] = shuffle2<T>(a, b, lo);
        x[i + B] = shuffle2<T>(a, b, hi);
      }
  }
}

template <class T>
void pack_transposed(const T* b, int64_t ld, int64_t n, int64_t K, int64_t width, T* bt) {
  constexpr int64_t W = kW<T>;
  const int64_t nw = n / W * W, Kw = K / W * W;
  for (int64_t j0 = 0; j0 < nw; j0 += W)  // whole W x W blocks through registers
    for (int64_t e0 = 0; e0 < Kw; e0 += W) {
      V<T> x[W];
      for (int64_t i = 0; i < W; ++i) x[i] = loadv(b + (j0 + i) * ld + e0);
      transpose_block<T>(x);
      for (int64_t i = 0; i < W; ++i) storev(bt + (e0 + i) * width + j0, x[i]);
    }
  for (int64_t j = 0; j < n; ++j)  // the edges one by one
    for (int64_t e = j < nw ? Kw : 0; e < K; ++e) bt[e * width + j] = b[j * ld + e];
  for (int64_t e = 0; e < K; ++e)
    for (int64_t j = n; j < width; ++j) bt[e * width + j] = T(0);
}

// n rounded up to whole kLanes (the padded rows hold at least that many columns).
inline int64_t lanes_cover(int64_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

// The softmax of a row's first n scores, in place, over lanes_cover(n) columns (the ones
// past n become 0), so the loops have no remainder and vectorize. Returns lse = max +
// log(sum). NaN scores: the max ignores them, the exp and the sum carry them to the output.
template <class T>
T softmax_row(T* s, int64_t n) {
  const int64_t cols = lanes_cover(n);
  T lane[kLanes];
  for (int l = 0; l < kLanes; ++l) lane[l] = T(-INFINITY);
  for (int64_t j = 0; j < cols; j += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const T x = pick(j + l < n, s[j + l], T(-INFINITY));
      lane[l] = pick(x > lane[l], x, lane[l]);  // pick: GCC vectorizes it, not a float ?:
    }
  T m = lane[0];
  for (int l = 1; l < kLanes; ++l) m = lane[l] > m ? lane[l] : m;
  const T shift = std::isinf(m) ? T(0) : m;  // a row of infinite scores: no inf - inf
  for (int64_t j = 0; j < cols; ++j) s[j] = pick(j < n, exp_of(T(s[j] - shift)), T(0));
  const double sum = row_sum(s, cols);
  const T inv = T(1.0 / sum);
  for (int64_t j = 0; j < cols; ++j) s[j] *= inv;
  return T(double(shift) + std::log(sum));
}

// c[r][j] = scale * sum_e x_r[e] bt[e][j], rows r < R of x (ldx apart), j < cols (a multiple
// of two vectors; bt's rows are ldb apart).
template <int R, class T>
void rows_by_packed(const T* x, int64_t ldx, const T* bt, int64_t ldb, int64_t K, int64_t cols,
                    T scale, T* c, int64_t ldc) {
  constexpr int64_t W = kW<T>;
  for (int64_t j = 0; j < cols; j += 2 * W) {
    V<T> acc0[R] = {}, acc1[R] = {};
    for (int64_t e = 0; e < K; ++e) {
      const V<T> b0 = loadv(bt + e * ldb + j), b1 = loadv(bt + e * ldb + j + W);
      for (int r = 0; r < R; ++r) {
        acc0[r] += x[r * ldx + e] * b0;
        acc1[r] += x[r * ldx + e] * b1;
      }
    }
    for (int r = 0; r < R; ++r) {
      storev(c + r * ldc + j, acc0[r] * scale);
      storev(c + r * ldc + j + W, acc1[r] * scale);
    }
  }
}

// c_r = sum_{j < n[r]} p[r][j] b_j for rows r < R (n ascending), b_j the rows of b, N wide.
template <int R, class T>
void p_by_rows(const T* p, int64_t ldp, const int64_t* n, const T* b, int64_t ldb, int64_t N, T* c,
               int64_t ldc) {
  constexpr int64_t W = kW<T>;
  int64_t x = 0;
  for (; x + W <= N; x += W) {
    V<T> acc[R] = {};
    int64_t j = 0;
    for (; j < n[0]; ++j) {
      const V<T> bv = loadv(b + j * ldb + x);
      for (int r = 0; r < R; ++r) acc[r] += p[r * ldp + j] * bv;
    }
    for (; j < n[R - 1]; ++j) {
      const V<T> bv = loadv(b + j * ldb + x);
      for (int r = 1; r < R; ++r)
        if (j < n[r]) acc[r] += p[r * ldp + j] * bv;
    }
    for (int r = 0; r < R; ++r) storev(c + r * ldc + x, acc[r]);
  }
  for (; x < N; ++x)  // a tail narrower than a vector
    for (int r = 0; r < R; ++r) {
      T s = T(0);
      for (int64_t j = 0; j < n[r]; ++j) s += p[r * ldp + j] * b[j * ldb + x];
      c[r * ldc + x] = s;
    }
}

// c_j += sum_{r: j < n[r]} p[r][j] x_r for the rows c_j of c, x_r the rows r < R of x.
template <int R, class T>
void add_pt_by_rows(const T* p, int64_t ldp, const int64_t* n, const T* x, int64_t ldx, int64_t N,
                    T* c, int64_t ldc) {
  constexpr int64_t W = kW<T>;
  int64_t e = 0;
  for (; e + W <= N; e += W) {
    V<T> xv[R];
    for (int r = 0; r < R; ++r) xv[r] = loadv(x + r * ldx + e);
    int64_t j = 0;
    for (; j < n[0]; ++j) {
      V<T> cv = loadv(c + j * ldc + e);
      for (int r = 0; r < R; ++r) cv += p[r * ldp + j] * xv[r];
      storev(c + j * ldc + e, cv);
    }
    for (; j < n[R - 1]; ++j) {
      V<T> cv = loadv(c + j * ldc + e);
      for (int r = 1; r < R; ++r)
        if (j < n[r]) cv += p[r * ldp + j] * xv[r];
      storev(c + j * ldc + e, cv);
    }
  }
  for (; e < N; ++e)
    for (int r = 0; r < R; ++r)
      for (int64_t j = 0; j < n[r]; ++j) c[j * ldc + e] += p[r * ldp + j] * x[r * ldx + e];
}

// The visible keys of rows i0 .. i0 + R - 1, and the columns their scores need.
template <int R, class T>
int64_t block_limits(const AttentionShape& a, int64_t i0, int64_t* n) {
  for (int r = 0; r < R; ++r) n[r] = visible(a, i0 + r);
  return padded<T>(n[R - 1]);
}

// One block of R query rows of a small head, forward. kt: K^T packed; p: R x width.
template <int R, class T>
void forward_rows(const AttentionShape& a, int64_t i0, const T* q, const T* kt, int64_t width,
                  const T* v, T* out, T* lse, T* p) {
  int64_t n[R];
  const int64_t cols = block_limits<R, T>(a, i0, n);
  rows_by_packed<R>(q + i0 * a.q.ld, a.q.ld, kt, width, a.E, cols, T(a.scale), p, width);
  for (int r = 0; r < R; ++r) lse[i0 + r] = softmax_row(p + r * width, n[r]);
  p_by_rows<R>(p, width, n, v, a.v.ld, a.Ev, out + i0 * a.o.ld, a.o.ld);
}

template <class T>
void forward_small_head(const AttentionShape& a, const T* q, const T* k, const T* v, T* out, T* lse,
                        T* buf) {
  const int64_t width = packed_width<T>(a.S);
  T* kt = buf;
  T* p = buf + a.E * width;
  pack_transposed(k, a.k.ld, a.S, a.E, width, kt);
  int64_t i0 = 0;
  for (; i0 + kR <= a.L; i0 += kR) forward_rows<kR>(a, i0, q, kt, width, v, out, lse, p);
  for (; i0 < a.L; ++i0) forward_rows<1>(a, i0, q, kt, width, v, out, lse, p);
}

// One block of R query rows of a small head, backward. kt, vt: K^T, V^T packed; p, dp:
// R x width.
template <int R, class T>
void backward_rows(const AttentionShape& a, int64_t i0, const T* go, const T* q, const T* k,
                   const T* kt, const T* vt, int64_t width, const T* out, const T* lse, T* gq,
                   T* gk, T* gv, T* p, T* dp) {
  int64_t n[R];
  const int64_t cols = block_limits<R, T>(a, i0, n);
  const T* qb = q + i0 * a.q.ld;
  const T* gob = go + i0 * a.go.ld;
  rows_by_packed<R>(qb, a.q.ld, kt, width, a.E, cols, T(a.scale), p, width);
  for (int r = 0; r < R; ++r) {  // p = exp(s - lse)
    T* s = p + r * width;
    const T l = lse[i0 + r];
    const int64_t cover = lanes_cover(n[r]);
    for (int64_t j = 0; j < cover; ++j) s[j] = pick(j < n[r], exp_of(T(s[j] - l)), T(0));
  }
  if (gv) add_pt_by_rows<R>(p, width, n, gob, a.go.ld, a.Ev, gv, a.gv.ld);  // dV += p^T dO
  if (!gq && !gk) return;
  // dp = dO v^T, then d score = p (dp - D) scale with D = rowsum(dO o) = rowsum(p dp)
  rows_by_packed<R>(gob, a.go.ld, vt, width, a.Ev, cols, T(1), dp, width);
  for (int r = 0; r < R; ++r) {
    const T Dt = T(row_dot(gob + r * a.go.ld, out + (i0 + r) * a.o.ld, a.Ev)), scale = T(a.scale);
    T* d = dp + r * width;
    const T* s = p + r * width;
    for (int64_t j = 0, cover = lanes_cover(n[r]); j < cover; ++j)
      d[j] = s[j] * (d[j] - Dt) * scale;
  }
  if (gq) p_by_rows<R>(dp, width, n, k, a.k.ld, a.E, gq + i0 * a.gq.ld, a.gq.ld);  // dQ = ds k
  if (gk) add_pt_by_rows<R>(dp, width, n, qb, a.q.ld, a.E, gk, a.gk.ld);           // dK += ds^T q
}

template <class T>
void backward_small_head(const AttentionShape& a, const T* go, const T* q, const T* k, const T* v,
                         const T* out, const T* lse, T* gq, T* gk, T* gv, T* buf) {
  const int64_t width = packed_width<T>(a.S);
  T* kt = buf;
  T* vt = kt + a.E * width;
  T* p = vt + a.Ev * width;
  T* dp = p + kR * width;
  if (gk) zero_rows(gk, a.S, a.E, a.gk.ld);
  if (gv) zero_rows(gv, a.S, a.Ev, a.gv.ld);
  pack_transposed(k, a.k.ld, a.S, a.E, width, kt);
  if (gq || gk) pack_transposed(v, a.v.ld, a.S, a.Ev, width, vt);
  int64_t i0 = 0;
  for (; i0 + kR <= a.L; i0 += kR)
    backward_rows<kR>(a, i0, go, q, k, kt, vt, width, out, lse, gq, gk, gv, p, dp);
  for (; i0 < a.L; ++i0)
    backward_rows<1>(a, i0, go, q, k, kt, vt, width, out, lse, gq, gk, gv, p, dp);
}

// Heads split over threads; each thread's buffers come from new[] (no std:: template in this
// file, see the top).
template <class T>
void forward(const AttentionShape& a, const T* q, const T* k, const T* v, T* out, T* lse) {
  const int64_t work = a.L * a.S * (a.E + a.Ev);
  const bool small = small_heads(a);
  const int64_t width = packed_width<T>(a.S);
  const int64_t need = small ? (a.E + kR) * width : kBlock * a.S;
  parallel_for(0, a.heads, work >= kGrain ? 1 : kGrain / (work + 1), [&](int64_t h0, int64_t h1) {
    T* buf = new T[need];
    for (int64_t h = h0; h < h1; ++h) {
      const T *qh = q + a.q.off[h], *kh = k + a.k.off[h], *vh = v + a.v.off[h];
      if (small) forward_small_head(a, qh, kh, vh, out + a.o.off[h], lse + h * a.L, buf);
      else forward_head(a, qh, kh, vh, out + a.o.off[h], lse + h * a.L, buf);
    }
    delete[] buf;
  });
}

template <class T>
void backward(const AttentionShape& a, const T* go, const T* q, const T* k, const T* v,
              const T* out, const T* lse, T* gq, T* gk, T* gv) {
  const int64_t work = a.L * a.S * (a.E + a.Ev);
  const bool small = small_heads(a);
  const int64_t width = packed_width<T>(a.S);
  const int64_t need = small ? (a.E + a.Ev + 2 * kR) * width : 2 * kBlock * a.S;
  parallel_for(0, a.heads, work >= kGrain ? 1 : kGrain / (work + 1), [&](int64_t h0, int64_t h1) {
    T* buf = new T[need];
    for (int64_t h = h0; h < h1; ++h) {
      const T *goh = go + a.go.off[h], *qh = q + a.q.off[h], *kh = k + a.k.off[h],
              *vh = v + a.v.off[h], *oh = out + a.o.off[h], *lh = lse + h * a.L;
      T* gqh = gq ? gq + a.gq.off[h] : nullptr;
      T* gkh = gk ? gk + a.gk.off[h] : nullptr;
      T* gvh = gv ? gv + a.gv.off[h] : nullptr;
      if (small) backward_small_head(a, goh, qh, kh, vh, oh, lh, gqh, gkh, gvh, buf);
      else backward_head(a, goh, qh, kh, vh, oh, lh, gqh, gkh, gvh, buf, buf + kBlock * a.S);
    }
    delete[] buf;
  });
}

}  // namespace

void attention_forward(DType dt, const AttentionShape& a, const void* q, const void* k,
                       const void* v, void* out, void* lse) {
  if (dt == DType::Float32)
    forward(a, static_cast<const float*>(q), static_cast<const float*>(k),
            static_cast<const float*>(v), static_cast<float*>(out), static_cast<float*>(lse));
  else
    forward(a, static_cast<const double*>(q), static_cast<const double*>(k),
            static_cast<const double*>(v), static_cast<double*>(out), static_cast<double*>(lse));
}

void attention_backward(DType dt, const AttentionShape& a, const void* go, const void* q,
                        const void* k, const void* v, const void* out, const void* lse, void* gq,
                        void* gk, void* gv) {
  if (dt == DType::Float32)
    backward(a, static_cast<const float*>(go), static_cast<const float*>(q),
             static_cast<const float*>(k), static_cast<const float*>(v),
             static_cast<const float*>(out), static_cast<const float*>(lse),
             static_cast<float*>(gq), static_cast<float*>(gk), static_cast<float*>(gv));
  else
    backward(a, static_cast<const double*>(go), static_cast<const double*>(q),
             static_cast<const double*>(k), static_cast<const double*>(v),
             static_cast<const double*>(out), static_cast<const double*>(lse),
             static_cast<double*>(gq), static_cast<double*>(gk), static_cast<double*>(gv));
}

}  // namespace ember::kernels::EMBER_ATTENTION_ISA
