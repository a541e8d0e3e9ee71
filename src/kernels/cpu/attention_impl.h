// The attention kernels of attention.h, compiled once per instruction set: attention.cpp
// includes this file for the baseline ISA as namespace `generic`, attention_avx2.cpp again
// under `#pragma GCC target("avx2,fma")` as namespace `avx2` (the scheme of nn_impl.h).
// Define EMBER_ATTENTION_ISA first; no std:: templates are instantiated here (their inline
// copies would merge across ISAs at link time), only new[] / delete[].
//
// Each head is one task, cut into blocks of kBlock query rows. A block's scores against
// the keys it may see (a kBlock x S buffer per thread: never the (L, S) matrix of a head,
// nor a tensor of all heads) come from one BLAS call, the softmax is exact in place (max,
// exp, a sum in double), and lse = max + log(sum) is kept; the backward recomputes the
// probabilities from lse (FlashAttention's scheme) instead of saving them, and adds each
// block's share of dK and dV with BLAS's beta = 1.
#include <cmath>
#include <cstdint>

#include "kernels/cpu/attention.h"
#include "kernels/cpu/blas.h"
#include "kernels/cpu/parallel.h"

#ifndef EMBER_ATTENTION_ISA
#error "define EMBER_ATTENTION_ISA before including attention_impl.h"
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
  gemm(dtype_of_v<T>, rows, cols, a.E, Scalar(a.scale), MatRef{qb, false, a.q_ld},
       MatRef{k, true, a.k_ld}, Scalar(0.0), p, cols);
}

template <class T>
void forward_head(const AttentionShape& a, const T* q, const T* k, const T* v, T* out, T* lse,
                  T* p) {
  for (int64_t i0 = 0; i0 < a.L; i0 += kBlock) {
    const int64_t rows = a.L - i0 < kBlock ? a.L - i0 : kBlock, cols = block_cols(a, i0, rows);
    block_scores(a, q + i0 * a.q_ld, k, rows, cols, p);
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
         MatRef{v, false, a.v_ld}, Scalar(0.0), out + i0 * a.Ev, a.Ev);
  }
}

template <class T>
void backward_head(const AttentionShape& a, const T* go, const T* q, const T* k, const T* v,
                   const T* out, const T* lse, T* gq, T* gk, T* gv, T* p, T* dp) {
  const DType dt = dtype_of_v<T>;
  const int64_t E = a.E, Ev = a.Ev;
  if (gk)
    for (int64_t x = 0; x < a.S * E; ++x) gk[x] = T(0);
  if (gv)
    for (int64_t x = 0; x < a.S * Ev; ++x) gv[x] = T(0);
  for (int64_t i0 = 0; i0 < a.L; i0 += kBlock) {
    const int64_t rows = a.L - i0 < kBlock ? a.L - i0 : kBlock, cols = block_cols(a, i0, rows);
    const T* qb = q + i0 * a.q_ld;
    const T* gob = go + i0 * Ev;
    block_scores(a, qb, k, rows, cols, p);
    for (int64_t r = 0; r < rows; ++r) {  // p = exp(s - lse), 0 where masked
      T* s = p + r * cols;
      const int64_t n = visible(a, i0 + r);
      const T l = lse[i0 + r];
      for (int64_t j = 0; j < n; ++j) s[j] = exp_of(T(s[j] - l));
      for (int64_t j = n; j < cols; ++j) s[j] = T(0);
    }
    if (gv)  // dV += p^T dO
      gemm(dt, cols, Ev, rows, Scalar(1.0), MatRef{p, true, cols}, MatRef{gob, false, Ev},
           Scalar(1.0), gv, Ev);
    if (!gq && !gk) continue;
    // dp = dO v^T, then d score = p (dp - D) scale with D = rowsum(dO o) = rowsum(p dp)
    gemm(dt, rows, cols, Ev, Scalar(1.0), MatRef{gob, false, Ev}, MatRef{v, true, a.v_ld},
         Scalar(0.0), dp, cols);
    for (int64_t r = 0; r < rows; ++r) {
      const T* gr = gob + r * Ev;
      const T* orow = out + (i0 + r) * Ev;
      T prod[kLanes] = {};
      int64_t e = 0;
      for (; e + kLanes <= Ev; e += kLanes)
        for (int l = 0; l < kLanes; ++l) prod[l] += gr[e + l] * orow[e + l];
      double D = 0;
      for (int l = 0; l < kLanes; ++l) D += double(prod[l]);
      for (; e < Ev; ++e) D += double(gr[e]) * double(orow[e]);
      const T Dt = T(D), scale = T(a.scale);
      T* d = dp + r * cols;
      const T* s = p + r * cols;
      for (int64_t j = 0; j < cols; ++j) d[j] = s[j] * (d[j] - Dt) * scale;
    }
    if (gq)  // dQ = ds k
      gemm(dt, rows, E, cols, Scalar(1.0), MatRef{dp, false, cols}, MatRef{k, false, a.k_ld},
           Scalar(0.0), gq + i0 * E, E);
    if (gk)  // dK += ds^T q
      gemm(dt, cols, E, rows, Scalar(1.0), MatRef{dp, true, cols}, MatRef{qb, false, a.q_ld},
           Scalar(1.0), gk, E);
  }
}

// Heads split over threads; each thread's block buffers come from new[] (no std:: template
// in this file, see the top).
template <class T>
void forward(const AttentionShape& a, const T* q, const T* k, const T* v, T* out, T* lse) {
  const int64_t work = a.L * a.S * (a.E + a.Ev);
  parallel_for(0, a.heads, work >= kGrain ? 1 : kGrain / (work + 1), [&](int64_t h0, int64_t h1) {
    T* buf = new T[kBlock * a.S];
    for (int64_t h = h0; h < h1; ++h)
      forward_head(a, q + a.q_off[h], k + a.k_off[h], v + a.v_off[h], out + h * a.L * a.Ev,
                   lse + h * a.L, buf);
    delete[] buf;
  });
}

template <class T>
void backward(const AttentionShape& a, const T* go, const T* q, const T* k, const T* v,
              const T* out, const T* lse, T* gq, T* gk, T* gv) {
  const int64_t work = a.L * a.S * (a.E + a.Ev);
  parallel_for(0, a.heads, work >= kGrain ? 1 : kGrain / (work + 1), [&](int64_t h0, int64_t h1) {
    T* buf = new T[2 * kBlock * a.S];
    for (int64_t h = h0; h < h1; ++h) {
      const int64_t qo = h * a.L * a.E, ko = h * a.S * a.E, vo = h * a.S * a.Ev,
                    oo = h * a.L * a.Ev;
      backward_head(a, go + oo, q + a.q_off[h], k + a.k_off[h], v + a.v_off[h], out + oo,
                    lse + h * a.L, gq ? gq + qo : nullptr, gk ? gk + ko : nullptr,
                    gv ? gv + vo : nullptr, buf, buf + kBlock * a.S);
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
