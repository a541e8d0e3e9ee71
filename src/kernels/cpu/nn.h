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
// out = x > 0 ? x : x * slope over Loop{out, x}.
void leaky_relu(DType dt, const Loop& L, double slope);
// gx = x > 0 ? g : g * slope over Loop{gx, g, x}.
void leaky_relu_backward(DType dt, const Loop& L, double slope);
// gx = y > 0 ? g : 0 over Loop{gx, g, y} (ReLU's backward from its output).
void relu_backward(DType dt, const Loop& L);
// mask[i] = 0 with probability p, else scale, for a contiguous mask of n elements. Element
// i's draw is a hash of (seed, i) (splitmix64), so the mask depends on the seed alone, never
// on the thread count, and the work runs in parallel.
void dropout_mask(DType dt, int64_t n, uint64_t seed, double p, double scale, void* mask);

// ---- batch norm: x is a contiguous (n, c, s) block (s = product of the spatial dims) ----
struct ChannelGeom {
  int64_t n, c, s;
};
// Per channel: mean, biased variance and invstd = 1 / sqrt(var + eps), each a contiguous
// (c) array of dtype dt. Two passes (mean, then squared deviations), as PyTorch does.
void batch_norm_stats(DType dt, ChannelGeom g, const void* x, double eps, void* mean, void* var,
                      void* invstd);
// y = (x - mean[c]) * invstd[c] * w[c] + b[c]; w and b may be null (1 and 0). y contiguous.
void batch_norm_apply(DType dt, ChannelGeom g, const void* x, const void* mean, const void* invstd,
                      const void* w, const void* b, void* y);
// Per channel: sum_g[c] = sum of go, sum_gxmu[c] = sum of go * (x - mean[c]). go contiguous.
void batch_norm_backward_reduce(DType dt, ChannelGeom g, const void* go, const void* x,
                                const void* mean, void* sum_g, void* sum_gxmu);
// gx = w[c] * invstd[c] * (go - sum_g[c] / m - (x - mean[c]) * invstd[c]^2 * sum_gxmu[c] / m)
// with m = n * s when `training` (batch statistics), else gx = go * w[c] * invstd[c]
// (sum_g / sum_gxmu unused, may be null). w may be null.
void batch_norm_backward_input(DType dt, ChannelGeom g, const void* go, const void* x,
                               const void* mean, const void* invstd, const void* w,
                               const void* sum_g, const void* sum_gxmu, bool training, void* gx);

// ---- layer norm: x is `rows` contiguous rows of `d` elements ------------------------------
// y = (x - mean) * rstd * w + b per row (w, b of d elements, may be null); mean and rstd
// (rows, dtype dt) are written for the backward.
void layer_norm(DType dt, int64_t rows, int64_t d, const void* x, const void* w, const void* b,
                double eps, void* y, void* mean, void* rstd);
// From go (contiguous rows x d): gx (may be null), gw and gb (d elements each, may be null).
void layer_norm_backward(DType dt, int64_t rows, int64_t d, const void* go, const void* x,
                         const void* mean, const void* rstd, const void* w, void* gx, void* gw,
                         void* gb);

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
