// The attention kernels of attention.h, compiled once per instruction set: attention.cpp
// includes this file for the baseline ISA as namespace `generic`, attention_avx2.cpp again
// under `#pragma GCC target("avx2,fma")` as namespace `avx2` (the scheme of nn_impl.h).
// Define EMBER_ATTENTION_ISA and EMBER_ATTENTION_VEC_BYTES (its vector width) first; no std::
// templates are instantiated here (their inline copies would merge across ISAs at link time), only
// new[] / delete[].
//
// Each head is one task. Small heads (Note [Small attention heads] below) run register-tiled
// products of their own and may keep their probabilities for the backward; larger ones are cut into
// blocks of kBlock query rows. A block's scores against the keys it may see (a kBlock x S buffer
// per thread: never the (L, S) matrix of a head, nor a tensor of all heads) come from one BLAS
// call, the softmax is exact in place (max, exp, a sum in double), and lse = max + log(sum) is
// kept; the backward recomputes the probabilities from lse (FlashAttention's scheme) instead of
// saving them, and adds each block's share of dK and dV with BLAS's beta = 1.
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
// causal head computes the masked half too. Small heads instead run every product on one
// register-tiled kernel (`tile`, below: kR rows x two vectors of vector_ext.h, 64 bytes in the
// AVX-512 copy, 32 in the AVX2 one), query rows kChunk at a time: scores = Q x packed K^T (and
// dP = dO x packed V^T), P x V (and dS x K), and P^T x dO into dV (dS^T x Q into dK), the
// transposed operands read through their strides. A row takes only the keys (or a key only
// the queries) it may see, so a causal head skips its masked half, and the masked keys' values
// are never read: no -inf, no 0 * NaN from a masked row of v. (The BLAS blocks of larger heads
// multiply a block's masked probabilities, 0, by their values, as torch's blocked kernel does:
// NaN there reaches the rows of that block.) Each row's softmax is exact over its whole row
// of at most kSmallS scores (no online rescaling needed). The forward can keep each head's P
// (kept_probs: L <= kKeepL) for the backward, which then skips the scores, their exp and the
// K^T pack; without it the backward recomputes P from lse.
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

// The lanes 0 .. W - 1 as a pack of constants (no std::index_sequence: see the top).
template <int... L>
struct Lanes {};
template <int W>
struct LanesOf;
template <>
struct LanesOf<2> {
  using type = Lanes<0, 1>;
};
template <>
struct LanesOf<4> {
  using type = Lanes<0, 1, 2, 3>;
};
template <>
struct LanesOf<8> {
  using type = Lanes<0, 1, 2, 3, 4, 5, 6, 7>;
};
template <>
struct LanesOf<16> {
  using type = Lanes<0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15>;
};

// One stage of the transpose below for rows a, b = x[i], x[i + B]: a keeps its lanes with
// l & B == 0 and takes b's lane l - B for the others; b takes a's lane l + B for its lanes
// with l & B == 0 and keeps the others. Constant lane indices, so each is one or two shuffle
// instructions (a variable mask took GCC a scalar loop on AVX2).
template <int B, class T, int... L>
inline void swap_blocks(V<T>& a, V<T>& b, Lanes<L...>) {
  constexpr int W = kW<T>;
  const V<T> x = a, y = b;
  a = __builtin_shufflevector(x, y, ((L & B) ? L - B + W : L)...);
  b = __builtin_shufflevector(x, y, ((L & B) ? L + W : L + B)...);
}

template <int B, class T>
inline void transpose_stage(V<T>* x) {
  if constexpr (B < kW<T>) {
    for (int i = 0; i < kW<T>; ++i)
      if (!(i & B)) swap_blocks<B, T>(x[i], x[i + B], typename LanesOf<kW<T>>::type{});
    transpose_stage<2 * B, T>(x);
  }
}

// Transposes the kW x kW block in x[] in registers: log2(kW) stages, stage B swapping the
// B x B sub-blocks off the diagonal of each 2B x 2B block (row i with row i + B).
template <class T>
inline void transpose_block(V<T>* x) {
  transpose_stage<1, T>(x);
}

// bt (K x width) = b^T for b's n rows (K wide, ld apart), zero past n.
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

// The softmax of a row's first n scores, in place, over its padded<T>(n) columns (the ones
// past n become 0), on whole vectors. Returns lse = max + log(sum). NaN scores: the max
// ignores them, the exp and the sum carry them to the output.
template <class T>
T softmax_row(T* s, int64_t n) {
  constexpr int64_t W = kW<T>;
  const int64_t cols = padded<T>(n);
  for (int64_t j = n; j < cols; ++j) s[j] = T(-INFINITY);  // exp gives 0 there
  V<T> mx = loadv(s);
  for (int64_t j = W; j < cols; j += W) {
    const V<T> x = loadv(s + j);
    mx = x > mx ? x : mx;
  }
  T lanes[W];  // lanes reduced pairwise: a chain of log2(W) steps, not W
  storev(lanes, mx);
  for (int64_t w = W / 2; w >= 1; w /= 2)
    for (int64_t l = 0; l < w; ++l) lanes[l] = lanes[l + w] > lanes[l] ? lanes[l + w] : lanes[l];
  const T m = lanes[0];
  const T shift = std::isinf(m) ? T(0) : m;  // a row of infinite scores: no inf - inf
  for (int64_t j = 0; j < cols; ++j) s[j] = exp_of(T(s[j] - shift));
  V<T> acc0 = {}, acc1 = {};
  for (int64_t j = 0; j < cols; j += 2 * W) {  // cols is whole pairs of vectors
    acc0 += loadv(s + j);
    acc1 += loadv(s + j + W);
  }
  double sums[W];
  for (int64_t l = 0; l < W; ++l) sums[l] = double(acc0[l]) + double(acc1[l]);
  for (int64_t w = W / 2; w >= 1; w /= 2)
    for (int64_t l = 0; l < w; ++l) sums[l] += sums[l + w];
  const double sum = sums[0];
  const T inv = T(1.0 / sum);
  for (int64_t j = 0; j < cols; ++j) s[j] *= inv;
  return T(shift + std::log(T(sum)));  // logf for float: one ulp of lse, a third of log's time
}

// The products of a small head, each C(i, :) (+)= alpha * sum_p A(i, p) B(p, :) over the keys
// or queries row i may see, on register tiles of kR rows x two vectors (12 accumulators: the
// AVX2 register file holds them with two B vectors and a broadcast; the AVX-512 copy's tiles are
// twice as wide). A(i, p) is read at a[i * ri + p * rp], so Q, dO, P and dS serve as themselves
// and P^T, dS^T without a transpose; B's rows are read in whole vectors (a packed K^T or V^T,
// a padded copy, or a tensor's rows when its width is whole vectors).
template <class T>
struct AOp {
  const T* a;
  int64_t ri, rp;
};

// Row i0 + r of a tile takes p in [lo[r], hi[r]) (both ascending in r): the steps every row
// takes run unchecked, the few on a causal diagonal check each row, so a row never reads
// what it may not see (no 0 * NaN from a masked key's value).
template <int R, int NV, class T>
void tile(AOp<T> A, const T* b, int64_t ldb, const int64_t* lo, const int64_t* hi, T alpha,
          bool add, T* c, int64_t ldc, int64_t ncols) {
  constexpr int64_t W = kW<T>;
  V<T> acc[R][NV] = {};
  auto step = [&](int64_t p, bool checked) __attribute__((always_inline)) {
    V<T> bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = loadv(b + p * ldb + v * W);
    for (int r = 0; r < R; ++r)
      if (!checked || (p >= lo[r] && p < hi[r])) {
        const T x = A.a[r * A.ri + p * A.rp];
        for (int v = 0; v < NV; ++v) acc[r][v] += x * bv[v];
      }
  };
  const int64_t full0 = lo[R - 1], full1 = hi[0];
  if (full0 < full1) {
    for (int64_t p = lo[0]; p < full0; ++p) step(p, true);
    for (int64_t p = full0; p < full1; ++p) step(p, false);
    for (int64_t p = full1; p < hi[R - 1]; ++p) step(p, true);
  } else {
    for (int64_t p = lo[0]; p < hi[R - 1]; ++p) step(p, true);
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) {
      T* d = c + r * ldc + v * W;
      const int64_t valid = ncols - v * W;
      const V<T> y = acc[r][v] * alpha;
      if (valid >= W) {
        storev(d, add ? loadv(d) + y : y);
      } else if (valid > 0) {  // a row's last, partial vector
        T part[W];
        storev(part, y);
        for (int64_t l = 0; l < valid; ++l) d[l] = add ? d[l] + part[l] : part[l];
      }
    }
}

// Rows i0 .. i0 + R - 1 of C over its columns [0, N), two vectors at a time.
template <int R, class T, class Range>
void row_tiles(int64_t i0, int64_t N, AOp<T> A, const T* b, int64_t ldb, const Range& range,
               T alpha, bool add, T* c, int64_t ldc) {
  constexpr int64_t W = kW<T>;
  int64_t lo[R], hi[R];
  for (int r = 0; r < R; ++r) range(i0 + r, lo[r], hi[r]);
  const AOp<T> Ai{A.a + i0 * A.ri, A.ri, A.rp};
  for (int64_t j = 0; j < N; j += 2 * W)
    if (N - j > W) tile<R, 2>(Ai, b + j, ldb, lo, hi, alpha, add, c + i0 * ldc + j, ldc, N - j);
    else tile<R, 1>(Ai, b + j, ldb, lo, hi, alpha, add, c + i0 * ldc + j, ldc, N - j);
}

constexpr int64_t kR = 6;

// C's rows [0, M): row i over columns [0, cols(i + rows - 1)) of its tile's last row (the
// scores of a causal tile end with its last row's keys), p in range(i).
template <class T, class Range, class Cols>
void product(int64_t M, const Cols& cols, AOp<T> A, const T* b, int64_t ldb, const Range& range,
             T alpha, bool add, T* c, int64_t ldc) {
  int64_t i = 0;
  for (; i + kR <= M; i += kR)
    row_tiles<kR>(i, cols(i + kR - 1), A, b, ldb, range, alpha, add, c, ldc);
  const int64_t N = M > i ? cols(M - 1) : 0;
  switch (M - i) {
    case 5: return row_tiles<5>(i, N, A, b, ldb, range, alpha, add, c, ldc);
    case 4: return row_tiles<4>(i, N, A, b, ldb, range, alpha, add, c, ldc);
    case 3: return row_tiles<3>(i, N, A, b, ldb, range, alpha, add, c, ldc);
    case 2: return row_tiles<2>(i, N, A, b, ldb, range, alpha, add, c, ldc);
    case 1: return row_tiles<1>(i, N, A, b, ldb, range, alpha, add, c, ldc);
    default: return;
  }
}

// n rounded up to whole vectors.
template <class T>
int64_t whole(int64_t n) {
  return (n + kW<T> - 1) / kW<T> * kW<T>;
}

// Rows [0, n) of x (K wide, ld apart) readable in whole vectors: x itself when K is whole
// vectors, else a copy in buf (whole<T>(K) apart, zero past K). Sets ld_out.
template <class T>
const T* readable_rows(const T* x, int64_t ld, int64_t n, int64_t K, T* buf, int64_t& ld_out) {
  if (K % kW<T> == 0) {
    ld_out = ld;
    return x;
  }
  ld_out = whole<T>(K);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t e = 0; e < ld_out; ++e) buf[i * ld_out + e] = e < K ? x[i * ld + e] : T(0);
  return buf;
}

// Query rows per pass: the scores of kChunk rows (and their dP) live in kChunk x width buffers.
constexpr int64_t kChunk = 64;

// A small head's buffer, in elements: K^T and V^T packed, P and dP of one chunk, padded
// copies of K, V, and of a chunk of Q and dO, and dK, dV accumulated over the chunks.
template <class T>
int64_t small_head_buffer(const AttentionShape& a) {
  const int64_t width = packed_width<T>(a.S), EP = whole<T>(a.E), EvP = whole<T>(a.Ev);
  return (a.E + a.Ev + 2 * kChunk) * width + (a.S + kChunk) * (EP + EvP) + a.S * (EP + EvP);
}

// P (rows [c0, c1), width apart) = the softmax's probabilities of the chunk: scores against
// the packed K^T, then each row's softmax (forward: lse written) or exp(s - lse) (backward).
template <class T>
void chunk_probabilities(const AttentionShape& a, int64_t c0, int64_t c1, const T* q, const T* kt,
                         int64_t width, T* lse, const T* lse_in, T* p) {
  auto all_e = [&](int64_t, int64_t& lo, int64_t& hi) { lo = 0, hi = a.E; };
  auto cols = [&](int64_t i) { return padded<T>(visible(a, c0 + i)); };
  product(c1 - c0, cols, AOp<T>{q + c0 * a.q.ld, a.q.ld, 1}, kt, width, all_e, T(a.scale), false, p,
          width);
  for (int64_t i = c0; i < c1; ++i) {
    T* s = p + (i - c0) * width;
    const int64_t n = visible(a, i);
    if (lse) {
      lse[i] = softmax_row(s, n);
    } else {
      const T l = lse_in[i];
      const int64_t cols = padded<T>(n);
      for (int64_t j = n; j < cols; ++j) s[j] = T(-INFINITY);
      for (int64_t j = 0; j < cols; ++j) s[j] = exp_of(T(s[j] - l));
    }
  }
}

template <class T>
void forward_small_head(const AttentionShape& a, const T* q, const T* k, const T* v, T* out, T* lse,
                        T* buf, T* keep) {
  const int64_t width = packed_width<T>(a.S);
  T* kt = buf;
  T* p = kt + a.E * width;
  T* vcopy = p + kChunk * width;
  int64_t ldv;
  pack_transposed(k, a.k.ld, a.S, a.E, width, kt);
  const T* vr = readable_rows(v, a.v.ld, a.S, a.Ev, vcopy, ldv);
  for (int64_t c0 = 0; c0 < a.L; c0 += kChunk) {
    const int64_t c1 = a.L - c0 < kChunk ? a.L : c0 + kChunk;
    T* pc = keep ? keep + c0 * width : p;  // kept probabilities are written in place
    chunk_probabilities(a, c0, c1, q, kt, width, lse, static_cast<const T*>(nullptr), pc);
    // out = P V, row i over its visible keys
    auto keys = [&](int64_t i, int64_t& lo, int64_t& hi) { lo = 0, hi = visible(a, c0 + i); };
    product(
        c1 - c0, [&](int64_t) { return a.Ev; }, AOp<T>{pc, width, 1}, vr, ldv, keys, T(1), false,
        out + c0 * a.o.ld, a.o.ld);
  }
}

// Rows [0, n) of x (K wide, ld apart) to y (ldy apart).
template <class T>
void copy_rows(const T* x, int64_t ld, int64_t n, int64_t K, T* y, int64_t ldy) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t e = 0; e < K; ++e) y[i * ldy + e] = x[i * ld + e];
}

template <class T>
void backward_small_head(const AttentionShape& a, const T* go, const T* q, const T* k, const T* v,
                         const T* out, const T* lse, const T* kept, T* gq, T* gk, T* gv, T* buf) {
  const int64_t width = packed_width<T>(a.S), EP = whole<T>(a.E), EvP = whole<T>(a.Ev);
  T* kt = buf;
  T* vt = kt + a.E * width;
  T* p = vt + a.Ev * width;
  T* dp = p + kChunk * width;
  T* kcopy = dp + kChunk * width;
  T* qcopy = kcopy + a.S * EP;
  T* gocopy = qcopy + kChunk * EP;
  T* dk = gocopy + kChunk * EvP;  // dK, dV: S x EP, S x EvP, summed over the chunks
  T* dv = dk + a.S * EP;
  for (int64_t e = 0; e < a.S * (EP + EvP); ++e) dk[e] = T(0);
  if (!kept) pack_transposed(k, a.k.ld, a.S, a.E, width, kt);
  int64_t ldk = 0, ldq, ldgo;
  const T* kr = gq ? readable_rows(k, a.k.ld, a.S, a.E, kcopy, ldk) : k;
  if (gq || gk) pack_transposed(v, a.v.ld, a.S, a.Ev, width, vt);
  for (int64_t c0 = 0; c0 < a.L; c0 += kChunk) {
    const int64_t c1 = a.L - c0 < kChunk ? a.L : c0 + kChunk, rows = c1 - c0;
    const T* qc = q + c0 * a.q.ld;
    const T* goc = go + c0 * a.go.ld;
    if (!kept) chunk_probabilities(a, c0, c1, q, kt, width, static_cast<T*>(nullptr), lse, p);
    const T* pc = kept ? kept + c0 * width : p;
    // The chunk's queries that see key i: [first, rows), relative to c0; keys past the
    // chunk's last visible one get nothing from it.
    const int64_t seen = visible(a, c1 - 1);
    auto queries = [&](int64_t i, int64_t& lo, int64_t& hi) {
      lo = a.causal ? (i - c0 > 0 ? (i - c0 < rows ? i - c0 : rows) : 0) : 0, hi = rows;
    };
    auto keys = [&](int64_t i, int64_t& lo, int64_t& hi) { lo = 0, hi = visible(a, c0 + i); };
    if (gv) {  // dV += P^T dO
      const T* gor = readable_rows(goc, a.go.ld, rows, a.Ev, gocopy, ldgo);
      product(
          seen, [&](int64_t) { return a.Ev; }, AOp<T>{pc, 1, width}, gor, ldgo, queries, T(1), true,
          dv, EvP);
    }
    if (!gq && !gk) continue;
    // dP = dO V^T, then dS = P (dP - D) scale with D = rowsum(dO o) = rowsum(P dP)
    auto all_ev = [&](int64_t, int64_t& lo, int64_t& hi) { lo = 0, hi = a.Ev; };
    auto cols = [&](int64_t i) { return padded<T>(visible(a, c0 + i)); };
    product(rows, cols, AOp<T>{goc, a.go.ld, 1}, vt, width, all_ev, T(1), false, dp, width);
    for (int64_t i = c0; i < c1; ++i) {
      const T Dt = T(row_dot(go + i * a.go.ld, out + i * a.o.ld, a.Ev)), scale = T(a.scale);
      T* d = dp + (i - c0) * width;
      const T* s = pc + (i - c0) * width;
      const int64_t n = visible(a, i), cols = padded<T>(n);
      for (int64_t j = 0; j < cols; ++j) d[j] = s[j] * (d[j] - Dt) * scale;
      for (int64_t j = n; j < cols; ++j) d[j] = T(0);  // masked: no 0 * NaN from dP
    }
    if (gq)  // dQ = dS K
      product(
          rows, [&](int64_t) { return a.E; }, AOp<T>{dp, width, 1}, kr, ldk, keys, T(1), false,
          gq + c0 * a.gq.ld, a.gq.ld);
    if (gk) {  // dK += dS^T Q
      const T* qr = readable_rows(qc, a.q.ld, rows, a.E, qcopy, ldq);
      product(
          seen, [&](int64_t) { return a.E; }, AOp<T>{dp, 1, width}, qr, ldq, queries, T(1), true,
          dk, EP);
    }
  }
  if (gk) copy_rows(dk, EP, a.S, a.E, gk, a.gk.ld);
  if (gv) copy_rows(dv, EvP, a.S, a.Ev, gv, a.gv.ld);
}

// Heads split over threads; each thread's buffers come from new[] (no std:: template in this
// file, see the top).
// Query rows up to which the forward keeps a small head's probabilities (L x width each).
constexpr int64_t kKeepL = 1024;

template <class T>
int64_t kept_probs(const AttentionShape& a) {
  return small_heads(a) && a.L <= kKeepL ? a.heads * a.L * packed_width<T>(a.S) : 0;
}

template <class T>
void forward(const AttentionShape& a, const T* q, const T* k, const T* v, T* out, T* lse,
             T* probs) {
  const int64_t work = a.L * a.S * (a.E + a.Ev);
  const bool small = small_heads(a);
  const int64_t need = small ? small_head_buffer<T>(a) : kBlock * a.S;
  parallel_for(0, a.heads, work >= kGrain ? 1 : kGrain / (work + 1), [&](int64_t h0, int64_t h1) {
    T* buf = new T[need];
    for (int64_t h = h0; h < h1; ++h) {
      const T *qh = q + a.q.off[h], *kh = k + a.k.off[h], *vh = v + a.v.off[h];
      T* ph = probs ? probs + h * a.L * packed_width<T>(a.S) : nullptr;
      if (small) forward_small_head(a, qh, kh, vh, out + a.o.off[h], lse + h * a.L, buf, ph);
      else forward_head(a, qh, kh, vh, out + a.o.off[h], lse + h * a.L, buf);
    }
    delete[] buf;
  });
}

template <class T>
void backward(const AttentionShape& a, const T* go, const T* q, const T* k, const T* v,
              const T* out, const T* lse, const T* probs, T* gq, T* gk, T* gv) {
  const int64_t work = a.L * a.S * (a.E + a.Ev);
  const bool small = small_heads(a);
  const int64_t need = small ? small_head_buffer<T>(a) : 2 * kBlock * a.S;
  parallel_for(0, a.heads, work >= kGrain ? 1 : kGrain / (work + 1), [&](int64_t h0, int64_t h1) {
    T* buf = new T[need];
    for (int64_t h = h0; h < h1; ++h) {
      const T *goh = go + a.go.off[h], *qh = q + a.q.off[h], *kh = k + a.k.off[h],
              *vh = v + a.v.off[h], *oh = out + a.o.off[h], *lh = lse + h * a.L;
      T* gqh = gq ? gq + a.gq.off[h] : nullptr;
      T* gkh = gk ? gk + a.gk.off[h] : nullptr;
      T* gvh = gv ? gv + a.gv.off[h] : nullptr;
      const T* ph = probs ? probs + h * a.L * packed_width<T>(a.S) : nullptr;
      if (small) backward_small_head(a, goh, qh, kh, vh, oh, lh, ph, gqh, gkh, gvh, buf);
      else backward_head(a, goh, qh, kh, vh, oh, lh, gqh, gkh, gvh, buf, buf + kBlock * a.S);
    }
    delete[] buf;
  });
}

}  // namespace

int64_t attention_kept_probs(DType dt, const AttentionShape& a) {
  return dt == DType::Float32 ? kept_probs<float>(a) : kept_probs<double>(a);
}

void attention_forward(DType dt, const AttentionShape& a, const void* q, const void* k,
                       const void* v, void* out, void* lse, void* probs) {
  if (dt == DType::Float32)
    forward(a, static_cast<const float*>(q), static_cast<const float*>(k),
            static_cast<const float*>(v), static_cast<float*>(out), static_cast<float*>(lse),
            static_cast<float*>(probs));
  else
    forward(a, static_cast<const double*>(q), static_cast<const double*>(k),
            static_cast<const double*>(v), static_cast<double*>(out), static_cast<double*>(lse),
            static_cast<double*>(probs));
}

void attention_backward(DType dt, const AttentionShape& a, const void* go, const void* q,
                        const void* k, const void* v, const void* out, const void* lse,
                        const void* probs, void* gq, void* gk, void* gv) {
  if (dt == DType::Float32)
    backward(a, static_cast<const float*>(go), static_cast<const float*>(q),
             static_cast<const float*>(k), static_cast<const float*>(v),
             static_cast<const float*>(out), static_cast<const float*>(lse),
             static_cast<const float*>(probs), static_cast<float*>(gq), static_cast<float*>(gk),
             static_cast<float*>(gv));
  else
    backward(a, static_cast<const double*>(go), static_cast<const double*>(q),
             static_cast<const double*>(k), static_cast<const double*>(v),
             static_cast<const double*>(out), static_cast<const double*>(lse),
             static_cast<const double*>(probs), static_cast<double*>(gq), static_cast<double*>(gk),
             static_cast<double*>(gv));
}

}  // namespace ember::kernels::EMBER_ATTENTION_ISA
