// 2-d pooling kernels: max (with argmax indices), average and adaptive average, forward
// and backward. Direct loops, one (n, c) plane at a time, planes split across threads.
// Kernels see pointers and sizes only; src/ops/pool.cpp checks arguments and allocates.
#pragma once
#include <cstdint>

#include "ember/dtype.h"

namespace ember::kernels {

// One pooling's geometry, in elements. Output and gradients are contiguous
// (N, C, ho, wo) / (N, C, H, W); the input may have any strides (in_stride: n, c, h, w).
struct Pool2dGeom {
  int64_t n, c, h, w;
  int64_t ho, wo;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;  // adaptive pooling uses none of these
  int64_t in_stride[4];
};

// out = max over each window (padding never wins; NaN does, as in PyTorch); indices, if not
// null, get the argmax as ih * W + iw (int64). Any dtype but bool.
void max_pool2d_forward(DType dt, const Pool2dGeom& g, const void* in, void* out, int64_t* indices);
// grad_in (contiguous, overwritten) = grad_out scattered to the argmax positions.
void max_pool2d_backward(DType dt, const Pool2dGeom& g, const void* grad_out,
                         const int64_t* indices, void* grad_in);

// Average over each window, divided by divisor_override when not 0, else by the window's size
// counting padding (count_include_pad) or not. float32, float64 and int64 (integer division).
void avg_pool2d_forward(DType dt, const Pool2dGeom& g, bool count_include_pad,
                        int64_t divisor_override, const void* in, void* out);
void avg_pool2d_backward(DType dt, const Pool2dGeom& g, bool count_include_pad,
                         int64_t divisor_override, const void* grad_out, void* grad_in);

// Window (oh, ow) covers rows [floor(oh * H / ho), ceil((oh + 1) * H / ho)) and the same for
// columns, as torch.nn.AdaptiveAvgPool2d. float32 and float64.
void adaptive_avg_pool2d_forward(DType dt, const Pool2dGeom& g, const void* in, void* out);
void adaptive_avg_pool2d_backward(DType dt, const Pool2dGeom& g, const void* grad_out, void* grad_in);

}  // namespace ember::kernels
