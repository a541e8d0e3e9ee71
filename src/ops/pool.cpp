// 2-d and 3-d pooling: max (with indices), average and adaptive average. Argument checks
// with PyTorch's rules, one kernel call (src/kernels/cpu/pool.cpp), and the backward right
// below each forward. The backward kernels are fused (scatter of the gradient into the
// windows), so they are not themselves differentiable: no double backward through a pool.
// Errors: see src/ops/spatial.h (2-d: ValueError, 3-d: RuntimeError as PyTorch's).
#include <climits>
#include <string>
#include <utility>

#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/pool.h"
#include "ops/iter.h"
#include "ops/spatial.h"

namespace ember {
namespace {

using autograd::SavedTensor;
using kernels::Pool2dGeom;
using ops::Dim3;
using ops::spatial_arg;
using ops::spatial_str;

Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : clone(detach(t)); }

// (nd + 1)-d (C, *) or (nd + 2)-d (N, C, *); only the batch may be empty (as in PyTorch).
void check_input(int nd, const char* op, const Tensor& x) {
  ops::check_defined(x, op);
  const int64_t d = x.dim();
  bool ok = d == nd + 1 || d == nd + 2;
  for (int64_t i = 1; ok && i <= nd + 1; ++i) ok = x.size(-i) > 0;
  SPATIAL_CHECK(nd, ok, op, ": expected a ", nd + 1, "-d or ", nd + 2,
                "-d (batch mode) input with non-zero sizes except the batch, but got input of "
                "shape ",
                x.sizes());
  EMBER_CHECK(x.dtype() != DType::Bool, NotImplementedError, op,
              ": not implemented for bool tensors (input of shape ", x.sizes(), ")");
}

// The geometry of x with the window sizes left at 1 (adaptive pooling needs none).
Pool2dGeom geometry(int nd, const Tensor& x, const Dim3& out) {
  const bool batched = x.dim() == nd + 2;
  Pool2dGeom g{batched ? x.size(0) : 1,
               x.size(-nd - 1),
               x.size(-2),
               x.size(-1),
               out[1],
               out[2],
               1,
               1,
               1,
               1,
               0,
               0,
               1,
               1,
               {batched ? x.stride(0) : 0, x.stride(-nd - 1), x.stride(-2), x.stride(-1)}};
  if (nd == 3) g.d = x.size(-3), g.od = out[0], g.in_stride_d = x.stride(-3);
  return g;
}

// x's leading (batch and channel) sizes, then the nd output sizes.
Dims out_shape(int nd, const Tensor& x, const Dim3& out) {
  Dims s;
  for (int64_t i = 0; i < x.dim() - nd; ++i) s.push_back(x.size(i));
  for (int i = 3 - nd; i < 3; ++i) s.push_back(out[size_t(i)]);
  return s;
}

// PyTorch's pooling_output_shape: floor (or ceil) division, and with ceil_mode the last
// window must start inside the input or its left padding.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil_mode) {
  const int64_t num = in + 2 * pad - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
  if (ceil_mode && (out - 1) * s >= in + pad) --out;
  return out;
}

// Checks the window arguments and fills in the geometry of a (max or avg) pooling.
Pool2dGeom window_geometry(int nd, const char* op, const Tensor& x, IntList kernel_size,
                           IntList stride, IntList padding, IntList dilation, bool ceil_mode) {
  const Dim3 k = spatial_arg(nd, op, "kernel_size", kernel_size, 1);
  const Dim3 s = stride.empty() ? k : spatial_arg(nd, op, "stride", stride, 1);
  const Dim3 p = spatial_arg(nd, op, "padding", padding, 0);
  const Dim3 d = spatial_arg(nd, op, "dilation", dilation, 1);
  Dim3 out;
  for (size_t i = 0; i < 3; ++i) {
    SPATIAL_CHECK(nd, k[i] > 0, op,
                  ": kernel size should be greater than zero, but got kernel_size=", kernel_size);
    SPATIAL_CHECK(nd, s[i] > 0, op,
                  ": stride should be greater than zero, but got stride=", stride);
    SPATIAL_CHECK(nd, d[i] > 0, op,
                  ": dilation should be greater than zero, but got dilation=", dilation);
    SPATIAL_CHECK(nd, p[i] >= 0, op, ": pad must be non-negative, but got padding=", padding);
    // PyTorch's rule: half the kernel size in 2-d, half the dilated kernel size in 3-d.
    const int64_t half = nd == 3 ? ((k[i] - 1) * d[i] + 1) / 2 : k[i] / 2;
    SPATIAL_CHECK(nd, p[i] <= half, op,
                  ": pad should be at most half of kernel size, but got padding=", padding,
                  " and kernel_size=", kernel_size);
  }
  Pool2dGeom g = geometry(nd, x, {0, 0, 0});
  const Dim3 in{g.d, g.h, g.w};
  bool ok = true;
  for (size_t i = 0; i < 3; ++i) {
    out[i] = nd == 2 && i == 0 ? 1 : pooled_size(in[i], k[i], p[i], s[i], d[i], ceil_mode);
    ok &= out[i] >= 1;
  }
  SPATIAL_CHECK(nd, ok, op, ": given input of shape ", x.sizes(), ", the calculated output size ",
                spatial_str(nd, out, " x "), " is too small");
  g.od = out[0], g.ho = out[1], g.wo = out[2];
  g.kd = k[0], g.kh = k[1], g.kw = k[2], g.sd = s[0], g.sh = s[1], g.sw = s[2];
  g.pd = p[0], g.ph = p[1], g.pw = p[2], g.dd = d[0], g.dh = d[1], g.dw = d[2];
  return g;
}

// The forward of max pooling; indices are computed when asked for or when autograd needs them.
std::pair<Tensor, Tensor> max_pool_impl(int nd, const char* op, const Tensor& x,
                                        IntList kernel_size, IntList stride, IntList padding,
                                        IntList dilation, bool ceil_mode, bool want_indices) {
  check_input(nd, op, x);
  const Pool2dGeom g =
      window_geometry(nd, op, x, kernel_size, stride, padding, dilation, ceil_mode);
  // bfloat16/float16: the maximum is one of the inputs, so the kernel runs on the 16-bit values
  // (compared as float32), and so does the backward when no two windows share an element
  // (each input gets 0 + one gradient, exact: the CNN's 2 x 2 pools, no float32 copies either
  // way). Overlapping windows go through float32 (differentiable casts, Note [Half losses] in
  // loss.cpp), so that shared elements sum their gradients in float32 and round once.
  const auto disjoint = [](int64_t s, int64_t k, int64_t d, int64_t o) {
    return o == 1 || s >= (k - 1) * d + 1;
  };
  if (is_half(x.dtype()) &&
      !(disjoint(g.sd, g.kd, g.dd, g.od) && disjoint(g.sh, g.kh, g.dh, g.ho) &&
        disjoint(g.sw, g.kw, g.dw, g.wo))) {
    auto [out, idx] = max_pool_impl(nd, op, to_dtype(x, DType::Float32), kernel_size, stride,
                                    padding, dilation, ceil_mode, want_indices);
    return {to_dtype(out, x.dtype()), idx};
  }
  const Dims shape = out_shape(nd, x, {g.od, g.ho, g.wo});
  Tensor out = Tensor::empty(shape, x.dtype());
  const bool grad = autograd::any_requires_grad(x);
  Tensor idx = want_indices || grad ? Tensor::empty(shape, DType::Int64) : Tensor();
  kernels::max_pool2d_forward(x.dtype(), g, x.data_ptr(), out.data_ptr(),
                              idx.defined() ? idx.data<int64_t>() : nullptr);
  if (grad) {
    autograd::record(nd == 3 ? "MaxPool3DWithIndicesBackward0" : "MaxPool2DWithIndicesBackward0",
                     {&x}, {&out},
                     [g, shape = Dims(x.sizes()), si = SavedTensor(idx)](Grads& gr,
                                                                         const Node&) -> Grads {
                       const Tensor go = dense(detach(gr[0])), ind = si.get();
                       Tensor gi = Tensor::empty(shape, go.dtype());
                       kernels::max_pool2d_backward(go.dtype(), g, go.data_ptr(),
                                                    ind.data<int64_t>(), gi.data_ptr());
                       return {gi};
                     });
  }
  return {out, idx};
}

Tensor avg_pool_impl(int nd, const char* op, const Tensor& input, IntList kernel_size,
                     IntList stride, IntList padding, bool ceil_mode, bool count_include_pad,
                     std::optional<int64_t> divisor_override) {
  check_input(nd, op, input);
  const DType dt = input.dtype();
  if (is_half(dt))
    return to_dtype(avg_pool_impl(nd, op, to_dtype(input, DType::Float32), kernel_size, stride,
                                  padding, ceil_mode, count_include_pad, divisor_override),
                    dt);
  EMBER_CHECK(is_floating(dt) || dt == DType::Int64, NotImplementedError, op,
              ": not implemented for ", dtype_name(dt), " tensors (input of shape ", input.sizes(),
              ")");
  SPATIAL_CHECK(nd, !divisor_override || *divisor_override != 0, op, ": divisor must be not zero");
  const Pool2dGeom g = window_geometry(nd, op, input, kernel_size, stride, padding, {1}, ceil_mode);
  const int64_t div = divisor_override.value_or(0);
  Tensor out = Tensor::empty(out_shape(nd, input, {g.od, g.ho, g.wo}), dt);
  kernels::avg_pool2d_forward(dt, g, count_include_pad, div, input.data_ptr(), out.data_ptr());
  if (autograd::any_requires_grad(input)) {
    autograd::record(nd == 3 ? "AvgPool3DBackward0" : "AvgPool2DBackward0", {&input}, {&out},
                     [g, shape = Dims(input.sizes()), count_include_pad,
                      div](Grads& gr, const Node&) -> Grads {
                       const Tensor go = dense(detach(gr[0]));
                       Tensor gi = Tensor::empty(shape, go.dtype());
                       kernels::avg_pool2d_backward(go.dtype(), g, count_include_pad, div,
                                                    go.data_ptr(), gi.data_ptr());
                       return {gi};
                     });
  }
  return out;
}

Tensor adaptive_avg_pool_impl(int nd, const char* op, const Tensor& input, IntList output_size) {
  check_input(nd, op, input);
  if (is_half(input.dtype()))
    return to_dtype(adaptive_avg_pool_impl(nd, op, to_dtype(input, DType::Float32), output_size),
                    input.dtype());
  EMBER_CHECK(is_floating(input.dtype()), NotImplementedError, op, ": not implemented for ",
              dtype_name(input.dtype()), " tensors (input of shape ", input.sizes(), ")");
  const Dim3 o = spatial_arg(nd, op, "output_size", output_size, 1);
  SPATIAL_CHECK(nd, o[0] >= 0 && o[1] >= 0 && o[2] >= 0, op,
                ": elements of output_size must be greater than or equal to 0, but got ",
                output_size);
  const Pool2dGeom g = geometry(nd, input, o);
  Tensor out = Tensor::empty(out_shape(nd, input, o), input.dtype());
  kernels::adaptive_avg_pool2d_forward(input.dtype(), g, input.data_ptr(), out.data_ptr());
  if (autograd::any_requires_grad(input)) {
    autograd::record(nd == 3 ? "AdaptiveAvgPool3DBackward0" : "AdaptiveAvgPool2DBackward0",
                     {&input}, {&out},
                     [g, shape = Dims(input.sizes())](Grads& gr, const Node&) -> Grads {
                       const Tensor go = dense(detach(gr[0]));
                       Tensor gi = Tensor::empty(shape, go.dtype());
                       kernels::adaptive_avg_pool2d_backward(go.dtype(), g, go.data_ptr(),
                                                             gi.data_ptr());
                       return {gi};
                     });
  }
  return out;
}

}  // namespace

Tensor max_pool2d(const Tensor& input, IntList kernel_size, IntList stride, IntList padding,
                  IntList dilation, bool ceil_mode) {
  EMBER_RECORD(max_pool2d, input, kernel_size, stride, padding, dilation, ceil_mode);
  EMBER_PROFILE_OP("max_pool2d");
  return max_pool_impl(2, "max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode,
                       false)
      .first;
}

std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntList kernel_size,
                                                  IntList stride, IntList padding, IntList dilation,
                                                  bool ceil_mode) {
  EMBER_RECORD(max_pool2d_with_indices, input, kernel_size, stride, padding, dilation, ceil_mode);
  EMBER_PROFILE_OP("max_pool2d_with_indices");
  return max_pool_impl(2, "max_pool2d_with_indices", input, kernel_size, stride, padding, dilation,
                       ceil_mode, true);
}

Tensor max_pool3d(const Tensor& input, IntList kernel_size, IntList stride, IntList padding,
                  IntList dilation, bool ceil_mode) {
  EMBER_RECORD(max_pool3d, input, kernel_size, stride, padding, dilation, ceil_mode);
  EMBER_PROFILE_OP("max_pool3d");
  return max_pool_impl(3, "max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode,
                       false)
      .first;
}

std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, IntList kernel_size,
                                                  IntList stride, IntList padding, IntList dilation,
                                                  bool ceil_mode) {
  EMBER_RECORD(max_pool3d_with_indices, input, kernel_size, stride, padding, dilation, ceil_mode);
  EMBER_PROFILE_OP("max_pool3d_with_indices");
  return max_pool_impl(3, "max_pool3d_with_indices", input, kernel_size, stride, padding, dilation,
                       ceil_mode, true);
}

Tensor avg_pool2d(const Tensor& input, IntList kernel_size, IntList stride, IntList padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  EMBER_RECORD(avg_pool2d, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
               divisor_override);
  EMBER_PROFILE_OP("avg_pool2d");
  return avg_pool_impl(2, "avg_pool2d", input, kernel_size, stride, padding, ceil_mode,
                       count_include_pad, divisor_override);
}

Tensor avg_pool3d(const Tensor& input, IntList kernel_size, IntList stride, IntList padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  EMBER_RECORD(avg_pool3d, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
               divisor_override);
  EMBER_PROFILE_OP("avg_pool3d");
  return avg_pool_impl(3, "avg_pool3d", input, kernel_size, stride, padding, ceil_mode,
                       count_include_pad, divisor_override);
}

Tensor adaptive_avg_pool2d(const Tensor& input, IntList output_size) {
  EMBER_RECORD(adaptive_avg_pool2d, input, output_size);
  EMBER_PROFILE_OP("adaptive_avg_pool2d");
  return adaptive_avg_pool_impl(2, "adaptive_avg_pool2d", input, output_size);
}

Tensor adaptive_avg_pool3d(const Tensor& input, IntList output_size) {
  EMBER_RECORD(adaptive_avg_pool3d, input, output_size);
  EMBER_PROFILE_OP("adaptive_avg_pool3d");
  return adaptive_avg_pool_impl(3, "adaptive_avg_pool3d", input, output_size);
}

}  // namespace ember
