// The direct float32 convolution for stride 1 (conv.cpp picks it; the micro-kernels are in
// conv_hwy.cpp): no im2col and no BLAS. The input is copied into zero-padded planes and
// the taps are read from them at fixed offsets (Note [Padded grid] in conv_hwy.h):
// - forward:     out = w (*) x, one pass per image;
// - grad_input:  a forward-shaped pass over grad_out padded by (kernel extent - 1 - padding)
//                with the weights flipped and transposed (the adjoint of a stride-1
//                convolution is again a stride-1 convolution);
// - grad_weight: per batch chunk, the lane-wise sums of grad_out (on the grid) times each
//                shifted plane, reduced across lanes once per chunk; chunks are added in
//                order (Note [Deterministic convolution gradients] in conv.h).
#pragma once
#include <cstdint>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/parallel.h"

namespace ember::kernels {

// Runs f(slot, i0, i1) for `slots` equal ranges of [0, n): in parallel, one thread per
// slot, when slots > 1 (Note [Convolution threads]).
template <class F>
void for_slots(int64_t slots, int64_t n, const F& f) {
  if (slots <= 1) {
    f(int64_t(0), int64_t(0), n);
    return;
  }
  parallel_for(0, slots, 1, [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) f(s, s * n / slots, (s + 1) * n / slots);
  });
}

// Whether the direct path runs this float32 convolution (stride 1, at least 4 output
// channels per group, a CPU with AVX2 or AVX-512, sizes whose tap offsets fit int32).
bool conv2d_direct_ok(const Conv2dGeom& g);

// Whether the direct backward computes grad_input too: it computes kPackRows input
// channels at a time, wasteful below 4 per group (a first layer's 1 or 3); conv.cpp then
// runs the im2col path for grad_input.
bool conv2d_direct_input_grad_ok(const Conv2dGeom& g);

// Threads over images (one padded copy of an image each) and scratch elements, for the
// forward (backward = false) or the backward.
int64_t conv2d_direct_slots(const Conv2dGeom& g);
int64_t conv2d_direct_workspace(const Conv2dGeom& g, int64_t slots, bool backward);

void conv2d_direct_forward(const Conv2dGeom& g, int64_t slots, const float* in, const float* w,
                           const float* bias, float* out, float* ws);

// Any of gin, gw, gb may be null. gin needs finite weights (a padded zero times inf would
// add NaN where the im2col path adds nothing): conv.cpp checks and falls back.
void conv2d_direct_backward(const Conv2dGeom& g, int64_t slots, const float* in, const float* w,
                            const float* gout, float* gin, float* gw, float* gb, float* ws);

}  // namespace ember::kernels
