// The layer kernels compiled once per instruction set from nn_impl.h, declared once for every
// namespace that holds a copy of them: nn.h includes this file inside ember::kernels (the
// entry points, which pick a copy at run time: cpu.h) and nn.cpp inside ember::kernels::avx2
// (nn_avx2.cpp's copy). So it has no include guard and no namespace of its own: include it
// only inside a namespace nested in ember::kernels, after nn.h has declared ChannelGeom.

// ---- activations (Loop operand 0 is the output) -------------------------------------------
// out = x > 0 ? x : x * slope over Loop{out, x}.
void leaky_relu(DType dt, const Loop& L, double slope);
// gx = x > 0 ? g : g * slope over Loop{gx, g, x}.
void leaky_relu_backward(DType dt, const Loop& L, double slope);
// gx = y <= 0 ? +0 : g over Loop{gx, g, y} (ReLU's backward from its output, torch's
// threshold_backward: a NaN y keeps g). Also bfloat16/float16, on their bits.
void relu_backward(DType dt, const Loop& L);

// ---- batch norm (ChannelGeom in nn.h) ------------------------------------------------------
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
