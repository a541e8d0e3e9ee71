// Fused scaled dot-product attention: out = softmax(q k^T * scale [causal]) v for a batch of
// heads, without the (L, S) score matrix as a tensor. Kernels see pointers and sizes only.
#pragma once
#include <cstdint>

#include "ember/dtype.h"

namespace ember::kernels {

// Where the heads of one tensor live: head h starts at element off[h] and its rows are ld
// elements apart (rows contiguous, ld >= a row). So (B, T, H, E).transpose(1, 2) heads reach
// the kernel without a copy, in and out.
struct HeadRows {
  const int64_t* off;
  int64_t ld;
};

// The shapes of one call: `heads` independent heads; q (heads, L, E), k (heads, S, E),
// v (heads, S, Ev), out (heads, L, Ev), lse (heads, L), each through its HeadRows; lse is
// contiguous. The backward's go has out's shape, gq, gk and gv q's, k's and v's (the forward
// ignores those four). causal keeps key j <= query i (upper-left aligned, as torch's
// is_causal). S >= 1.
struct AttentionShape {
  int64_t heads, L, S, E, Ev;
  bool causal;
  double scale;
  HeadRows q, k, v, o, go, gq, gk, gv;
};

// The elements of the probabilities the forward can keep for the backward at these shapes
// (0: it keeps none; small heads only, Note [Small attention heads]): with them the backward
// skips recomputing the scores and their exp.
int64_t attention_kept_probs(DType dt, const AttentionShape& a);

// out and lse (the log of each row's softmax denominator, with its max: what the backward
// needs to recompute the probabilities); probs (attention_kept_probs elements, or null) gets
// the probabilities to keep.
void attention_forward(DType dt, const AttentionShape& a, const void* q, const void* k,
                       const void* v, void* out, void* lse, void* probs);

// gq, gk, gv (any of them null: not wanted) from the output gradient go and the forward's
// q, k, v, out, lse and probs (null if it kept none).
void attention_backward(DType dt, const AttentionShape& a, const void* go, const void* q,
                        const void* k, const void* v, const void* out, const void* lse,
                        const void* probs, void* gq, void* gk, void* gv);

}  // namespace ember::kernels
