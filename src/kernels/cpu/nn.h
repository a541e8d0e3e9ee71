// Kernels of the layer ops (src/ops/layers.cpp, src/ops/norm.cpp): activations, dropout,
// batch / layer normalization and embedding rows. Pointers, sizes and strides only; the ops
// layer checks arguments, allocates outputs and records autograd. Float32 / float64 only
// (except embedding_forward, which copies rows of any dtype). GELU's contiguous runs go to
// Highway SIMD (nn_hwy.h); leaky_relu and the normalizations are compiled for the baseline
// ISA and for AVX2 (nn_impl.h) and picked once per process (cpu.h).
//
// Note [Deterministic norm sums]: the per-channel sums of batch norm and the per-column
// sums of layer norm's grad_weight / grad_bias add over many rows. The rows are cut into
// blocks whose number depends on the shape alone (never on the thread count); each block
// sums its rows in order into its own partial (in double), and the partials are added in
// block order. So the result is the same on any number of threads. (Inside a block, short
// runs are summed at SIMD width in the input's type first: Note [Lane sums] in nn_impl.h.)
#pragma once
#include <cstdint>

#include "ember/dtype.h"
#include "kernels/cpu/loop.h"

namespace ember::kernels {

// ---- elementwise activations (Loop operand 0 is the output) ------------------------------
// out = gelu(x) over Loop{out, x}; tanh_approx picks 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715
// x^3))).
void gelu(DType dt, const Loop& L, bool tanh_approx);
// gx = g * gelu'(x) over Loop{gx, g, x}.
void gelu_backward(DType dt, const Loop& L, bool tanh_approx);
// out = silu(x) = x * sigmoid(x) over Loop{out, x}; gx = g * silu'(x) over Loop{gx, g, x}.
void silu(DType dt, const Loop& L);
void silu_backward(DType dt, const Loop& L);
// out = hardswish(x) = x relu6(x + 3) / 6 over Loop{out, x}; gx = its gradient for g over
// Loop{gx, g, x} (0 for x <= -3, g from 3 on, else g (x / 3 + 1/2), NaN for NaN).
void hardswish(DType dt, const Loop& L);
void hardswish_backward(DType dt, const Loop& L);
// grad false: out = softplus(x) over Loop{out, x} (x where beta x > threshold, else
// log1p(exp(beta x)) / beta); grad true: gx = g * d softplus / dx over Loop{gx, g, x}.
void softplus(DType dt, const Loop& L, double beta, double threshold, bool grad);
// mask[i] = 0 with probability p, else scale, for a contiguous mask of n elements. Element
// i's draw is a hash of (seed, i) (splitmix64), so the mask depends on the seed alone, never
// on the thread count, and the work runs in parallel.
void dropout_mask(DType dt, int64_t n, uint64_t seed, double p, double scale, void* mask);

// ---- batch norm: x is a contiguous (n, c, s) block (s = product of the spatial dims) ----
struct ChannelGeom {
  int64_t n, c, s;
};
// The kernels compiled once per instruction set (leaky_relu, relu_backward, batch norm, layer
// norm): nn_isa.h.
#include "kernels/cpu/nn_isa.h"

// ---- embedding --------------------------------------------------------------------------
// Returns the position of the first index outside [0, num) in idx (n entries, int64 or
// int32 when is_int32, contiguous), or -1 when all are in range.
int64_t embedding_find_bad(const void* idx, bool is_int32, int64_t n, int64_t num);
// out[i, :] = weight[idx[i], :] for contiguous out (n, dim); weight rows at stride ws0 and
// columns at ws1 (elements). Indices already checked.
void embedding_forward(DType dt, const void* idx, bool is_int32, int64_t n, int64_t dim,
                       const void* weight, int64_t ws0, int64_t ws1, void* out);
// gw[idx[i], :] += go[i, :] for every i whose index is not padding_idx (pass -1 for none);
// gw (num, dim) contiguous and zeroed, go (n, dim) contiguous. Deterministic: each column
// range adds its rows in order.
void embedding_backward(DType dt, const void* idx, bool is_int32, int64_t n, int64_t dim,
                        const void* go, int64_t padding_idx, void* gw);

}  // namespace ember::kernels
