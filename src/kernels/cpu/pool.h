// 2-d and 3-d pooling kernels: max (with argmax indices), average and adaptive average,
// forward and backward. Direct loops, one (n, c) plane (or volume) at a time, planes split
// across threads. Kernels see pointers and sizes only; src/ops/pool.cpp checks arguments
// and allocates.
#pragma once
#include <cstdint>

#include "ember/dtype.h"

namespace ember::kernels {

// One pooling's geometry, in elements. Output and gradients are contiguous
// (N, C, ho, wo) / (N, C, H, W); the input may have any strides (in_stride: n, c, h, w).
// 3-d pooling adds a depth dim after the channels (N, C, D, H, W); 2-d pooling keeps the
// depth defaults (one plane, windows of depth 1).
struct Pool2dGeom {
  int64_t n, c, h, w;
  int64_t ho, wo;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;  // adaptive pooling uses none of these
  int64_t in_stride[4];
  int64_t d = 1, od = 1, kd = 1, sd = 1, pd = 0, dd = 1;  // depth: input, output, window
  int64_t in_stride_d = 0;                                // input stride of the depth dim
};

// out = max over each window (padding never wins; NaN does, as in PyTorch); indices, if not
// null, get the argmax as (iz * H + ih) * W + iw (int64). Any dtype but bool; bfloat16 and
// float16 compare as float32.
void max_pool2d_forward(DType dt, const Pool2dGeom& g, const void* in, void* out, int64_t* indices);
// grad_in (contiguous, overwritten) = grad_out scattered to the argmax positions. Floating
// dtypes; bfloat16/float16 round each sum, so only for windows that share no element.
void max_pool2d_backward(DType dt, const Pool2dGeom& g, const void* grad_out,
                         const int64_t* indices, void* grad_in);

// Average over each window, divided by divisor_override when not 0, else by the window's size
// counting padding (count_include_pad) or not. float32, float64 and int64 (integer division).
void avg_pool2d_forward(DType dt, const Pool2dGeom& g, bool count_include_pad,
                        int64_t divisor_override, const void* in, void* out);
void avg_pool2d_backward(DType dt, const Pool2dGeom& g, bool count_include_pad,
                         int64_t divisor_override, const void* grad_out, void* grad_in);

// Window (oh, ow) covers rows [floor(oh * H / ho), ceil((oh + 1) * H / ho)) and the same for
// columns (and planes), as torch.nn.AdaptiveAvgPool2d/3d. float32 and float64.
void adaptive_avg_pool2d_forward(DType dt, const Pool2dGeom& g, const void* in, void* out);
void adaptive_avg_pool2d_backward(DType dt, const Pool2dGeom& g, const void* grad_out,
                                  void* grad_in);

}  // namespace ember::kernels
