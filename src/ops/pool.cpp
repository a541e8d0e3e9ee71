// 2-d pooling: max (with indices), average and adaptive average. Argument checks with
// PyTorch's rules, one kernel call (src/kernels/cpu/pool.cpp), and the backward right
// below each forward. The backward kernels are fused (scatter of the gradient into the
// windows), so they are not themselves differentiable: no double backward through a pool.
#include <climits>
#include <utility>

#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "kernels/cpu/pool.h"
#include "ops/iter.h"

namespace ember {
namespace {

using autograd::SavedTensor;
using kernels::Pool2dGeom;
using Pair = std::pair<int64_t, int64_t>;

// One value for both spatial dims, or a pair (torch's _pair).
Pair pair_arg(const char* op, const char* name, IntList v) {
  EMBER_CHECK(v.size() == 1 || v.size() == 2, ValueError, op, ": ", name,
              " must either be a single int, or a tuple of two ints, but got ", v);
  EMBER_CHECK(v[0] <= INT_MAX && v.back() <= INT_MAX, ValueError, op, ": ", name, "=", v,
              " is too large");
  return {v[0], v.back()};
}

Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : clone(detach(t)); }

// 3-d (C, H, W) or 4-d (N, C, H, W); only the batch may be empty (as in PyTorch).
void check_input(const char* op, const Tensor& x) {
  ops::check_defined(x, op);
  const int64_t d = x.dim();
  EMBER_CHECK((d == 3 || d == 4) && x.size(-1) > 0 && x.size(-2) > 0 && x.size(-3) > 0,
              ValueError, op,
              ": expected a 3-d or 4-d (batch mode) input with non-zero sizes except the batch, "
              "but got input of shape ", x.sizes());
  EMBER_CHECK(x.dtype() != DType::Bool, NotImplementedError, op,
              ": not implemented for bool tensors (input of shape ", x.sizes(), ")");
}

// The geometry of x with the window sizes left at 1 (adaptive pooling needs none).
Pool2dGeom geometry(const Tensor& x, int64_t ho, int64_t wo) {
  const bool batched = x.dim() == 4;
  return Pool2dGeom{batched ? x.size(0) : 1, x.size(-3), x.size(-2), x.size(-1), ho, wo,
                    1, 1, 1, 1, 0, 0, 1, 1,
                    {batched ? x.stride(0) : 0, x.stride(-3), x.stride(-2), x.stride(-1)}};
}

Dims out_shape(const Tensor& x, int64_t ho, int64_t wo) {
  Dims s = x.sizes();
  s[s.size() - 2] = ho;
  s[s.size() - 1] = wo;
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
Pool2dGeom window_geometry(const char* op, const Tensor& x, IntList kernel_size, IntList stride,
                           IntList padding, IntList dilation, bool ceil_mode) {
  const Pair k = pair_arg(op, "kernel_size", kernel_size);
  const Pair s = stride.empty() ? k : pair_arg(op, "stride", stride);
  const Pair p = pair_arg(op, "padding", padding), d = pair_arg(op, "dilation", dilation);
  EMBER_CHECK(k.first > 0 && k.second > 0, ValueError, op,
              ": kernel size should be greater than zero, but got kernel_size=", kernel_size);
  EMBER_CHECK(s.first > 0 && s.second > 0, ValueError, op,
              ": stride should be greater than zero, but got stride=", stride);
  EMBER_CHECK(d.first > 0 && d.second > 0, ValueError, op,
              ": dilation should be greater than zero, but got dilation=", dilation);
  EMBER_CHECK(p.first >= 0 && p.second >= 0, ValueError, op,
              ": pad must be non-negative, but got padding=", padding);
  // PyTorch's rule: half the kernel size, not of the dilated kernel.
  EMBER_CHECK(p.first <= k.first / 2 && p.second <= k.second / 2, ValueError, op,
              ": pad should be at most half of kernel size, but got padding=", padding,
              " and kernel_size=", kernel_size);
  Pool2dGeom g = geometry(x, 0, 0);
  g.ho = pooled_size(g.h, k.first, p.first, s.first, d.first, ceil_mode);
  g.wo = pooled_size(g.w, k.second, p.second, s.second, d.second, ceil_mode);
  EMBER_CHECK(g.ho >= 1 && g.wo >= 1, ValueError, op, ": given input of shape ", x.sizes(),
              ", the calculated output size (", g.ho, " x ", g.wo, ") is too small");
  g.kh = k.first, g.kw = k.second, g.sh = s.first, g.sw = s.second;
  g.ph = p.first, g.pw = p.second, g.dh = d.first, g.dw = d.second;
  return g;
}

// The forward of max pooling; indices are computed when asked for or when autograd needs them.
std::pair<Tensor, Tensor> max_pool_impl(const char* op, const Tensor& x, IntList kernel_size,
                                        IntList stride, IntList padding, IntList dilation,
                                        bool ceil_mode, bool want_indices) {
  check_input(op, x);
  const Pool2dGeom g = window_geometry(op, x, kernel_size, stride, padding, dilation, ceil_mode);
  const Dims shape = out_shape(x, g.ho, g.wo);
  Tensor out = Tensor::empty(shape, x.dtype());
  const bool grad = autograd::any_requires_grad(x);
  Tensor idx = want_indices || grad ? Tensor::empty(shape, DType::Int64) : Tensor();
  kernels::max_pool2d_forward(x.dtype(), g, x.data_ptr(), out.data_ptr(),
                              idx.defined() ? idx.data<int64_t>() : nullptr);
  if (grad) {
    autograd::record("MaxPool2DWithIndicesBackward0", {&x}, {&out},
                     [g, shape = Dims(x.sizes()), si = SavedTensor(idx)](Grads& gr, const Node&) -> Grads {
                       const Tensor go = dense(detach(gr[0])), ind = si.get();
                       Tensor gi = Tensor::empty(shape, go.dtype());
                       kernels::max_pool2d_backward(go.dtype(), g, go.data_ptr(),
                                                    ind.data<int64_t>(), gi.data_ptr());
                       return {gi};
                     });
  }
  return {out, idx};
}

}  // namespace

Tensor max_pool2d(const Tensor& input, IntList kernel_size, IntList stride, IntList padding,
                  IntList dilation, bool ceil_mode) {
  EMBER_PROFILE_OP("max_pool2d");
  return max_pool_impl("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode,
                       false).first;
}

std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntList kernel_size,
                                                  IntList stride, IntList padding,
                                                  IntList dilation, bool ceil_mode) {
  EMBER_PROFILE_OP("max_pool2d_with_indices");
  return max_pool_impl("max_pool2d_with_indices", input, kernel_size, stride, padding, dilation,
                       ceil_mode, true);
}

Tensor avg_pool2d(const Tensor& input, IntList kernel_size, IntList stride, IntList padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  EMBER_PROFILE_OP("avg_pool2d");
  const char* op = "avg_pool2d";
  check_input(op, input);
  const DType dt = input.dtype();
  EMBER_CHECK(is_floating(dt) || dt == DType::Int64, NotImplementedError, op,
              ": not implemented for ", dtype_name(dt), " tensors (input of shape ", input.sizes(), ")");
  EMBER_CHECK(!divisor_override || *divisor_override != 0, ValueError, op,
              ": divisor must be not zero");
  const Pool2dGeom g = window_geometry(op, input, kernel_size, stride, padding, {1, 1}, ceil_mode);
  const int64_t div = divisor_override.value_or(0);
  Tensor out = Tensor::empty(out_shape(input, g.ho, g.wo), dt);
  kernels::avg_pool2d_forward(dt, g, count_include_pad, div, input.data_ptr(), out.data_ptr());
  if (autograd::any_requires_grad(input)) {
    autograd::record("AvgPool2DBackward0", {&input}, {&out},
                     [g, shape = Dims(input.sizes()), count_include_pad, div](Grads& gr, const Node&) -> Grads {
                       const Tensor go = dense(detach(gr[0]));
                       Tensor gi = Tensor::empty(shape, go.dtype());
                       kernels::avg_pool2d_backward(go.dtype(), g, count_include_pad, div,
                                                    go.data_ptr(), gi.data_ptr());
                       return {gi};
                     });
  }
  return out;
}

Tensor adaptive_avg_pool2d(const Tensor& input, IntList output_size) {
  EMBER_PROFILE_OP("adaptive_avg_pool2d");
  const char* op = "adaptive_avg_pool2d";
  check_input(op, input);
  EMBER_CHECK(is_floating(input.dtype()), NotImplementedError, op, ": not implemented for ",
              dtype_name(input.dtype()), " tensors (input of shape ", input.sizes(), ")");
  const Pair o = pair_arg(op, "output_size", output_size);
  EMBER_CHECK(o.first >= 0 && o.second >= 0, ValueError, op,
              ": elements of output_size must be greater than or equal to 0, but got ", output_size);
  const Pool2dGeom g = geometry(input, o.first, o.second);
  Tensor out = Tensor::empty(out_shape(input, g.ho, g.wo), input.dtype());
  kernels::adaptive_avg_pool2d_forward(input.dtype(), g, input.data_ptr(), out.data_ptr());
  if (autograd::any_requires_grad(input)) {
    autograd::record("AdaptiveAvgPool2DBackward0", {&input}, {&out},
                     [g, shape = Dims(input.sizes())](Grads& gr, const Node&) -> Grads {
                       const Tensor go = dense(detach(gr[0]));
                       Tensor gi = Tensor::empty(shape, go.dtype());
                       kernels::adaptive_avg_pool2d_backward(go.dtype(), g, go.data_ptr(), gi.data_ptr());
                       return {gi};
                     });
  }
  return out;
}

}  // namespace ember
