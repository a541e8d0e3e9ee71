// Fused scaled dot-product attention: out = softmax(q k^T * scale [causal]) v for a batch of
// heads, without the (L, S) score matrix as a tensor. Kernels see pointers and sizes only.
#pragma once
#include <cstdint>

#include "ember/dtype.h"

namespace ember::kernels {

// The shapes of one call: `heads` independent heads; q (heads, L, E), k (heads, S, E),
// v (heads, S, Ev), out (heads, L, Ev), lse (heads, L). out, lse and the gradients are
// contiguous; q, k and v may be views whose rows are contiguous: head h of q starts at
// element q_off[h] and its rows are q_ld elements apart (the same for k and v), so
// (B, T, H, E).transpose(1, 2) heads reach the kernel without a copy. causal keeps key
// j <= query i (upper-left aligned, as torch's is_causal). S >= 1.
struct AttentionShape {
  int64_t heads, L, S, E, Ev;
  bool causal;
  double scale;
  const int64_t *q_off, *k_off, *v_off;
  int64_t q_ld, k_ld, v_ld;
};

// out and lse (the log of each row's softmax denominator, with its max: what the backward
// needs to recompute the probabilities).
void attention_forward(DType dt, const AttentionShape& a, const void* q, const void* k,
                       const void* v, void* out, void* lse);

// gq, gk, gv (any of them null: not wanted) from the output gradient go and the forward's
// q, k, v, out, lse.
void attention_backward(DType dt, const AttentionShape& a, const void* go, const void* q,
                        const void* k, const void* v, const void* out, const void* lse, void* gq,
                        void* gk, void* gv);

}  // namespace ember::kernels
