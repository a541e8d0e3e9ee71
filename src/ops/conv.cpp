// 2-d convolution and its adjoint (conv_transpose2d): argument checks naming the op and the
// shapes, then one kernel call
// (src/kernels/cpu/conv.cpp: the direct path for float32 stride 1, else im2col + one GEMM
// per image and group). The backward sits
// right below the forward and calls the fused backward kernel.
#include <climits>
#include <utility>

#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "kernels/cpu/conv.h"
#include "ops/iter.h"

namespace ember {
namespace {

using autograd::SavedTensor;
using Pair = std::pair<int64_t, int64_t>;

// One value for both spatial dims, or a pair (torch's _pair).
Pair pair_arg(const char* op, const char* name, IntList v) {
  EMBER_CHECK(v.size() == 1 || v.size() == 2, ValueError, op, ": expected ", name,
              " to be a single integer value or a list of 2 values, but got ", name, "=", v);
  EMBER_CHECK(v[0] <= INT_MAX && v.back() <= INT_MAX, ValueError, op, ": ", name, "=", v,
              " is too large");
  return {v[0], v.back()};
}

// The spatial arguments, resolved: padding before and after each dim may differ ("same").
struct ConvArgs {
  Pair stride, pad_before, pad_after, dilation;
  int64_t groups;
};

// A tensor the kernel can read densely; the copy (if any) is not recorded by autograd,
// since the op records its own node against the original tensor.
Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : clone(detach(t)); }

void check_tensors(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias) {
  ops::check_defined(input, op);
  ops::check_defined(weight, op);
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, ValueError, op,
              ": expected a 3-d (unbatched) or 4-d (batched) input, but got input of shape ",
              input.sizes());
  EMBER_CHECK(weight.dim() == 4, ValueError, op,
              ": expected a 4-d weight (out_channels, in_channels / groups, kH, kW), but got "
              "weight of shape ", weight.sizes());
  EMBER_CHECK(input.dtype() != DType::Bool, NotImplementedError, op,
              ": not implemented for bool tensors (input of shape ", input.sizes(), ")");
  EMBER_CHECK(input.dtype() == weight.dtype(), TypeError, op, ": input (", dtype_name(input.dtype()),
              ") and weight (", dtype_name(weight.dtype()), ") should have the same dtype");
  if (bias.defined()) {
    EMBER_CHECK(input.dtype() == bias.dtype(), TypeError, op, ": input (", dtype_name(input.dtype()),
                ") and bias (", dtype_name(bias.dtype()), ") should have the same dtype");
  }
}

void check_args(const char* op, const ConvArgs& a) {
  EMBER_CHECK(a.stride.first > 0 && a.stride.second > 0, ValueError, op,
              ": non-positive stride is not supported, got stride=(", a.stride.first, ", ",
              a.stride.second, ")");
  EMBER_CHECK(a.pad_before.first >= 0 && a.pad_before.second >= 0, ValueError, op,
              ": negative padding is not supported, got padding=(", a.pad_before.first, ", ",
              a.pad_before.second, ")");
  EMBER_CHECK(a.dilation.first > 0 && a.dilation.second > 0, ValueError, op,
              ": non-positive dilation is not supported, got dilation=(", a.dilation.first, ", ",
              a.dilation.second, ")");
  EMBER_CHECK(a.groups > 0, ValueError, op, ": non-positive groups is not supported, got groups=",
              a.groups);
}

// Checks the shapes against each other and returns the kernel's geometry.
kernels::Conv2dGeom geometry(const char* op, const Tensor& x, const Tensor& weight,
                             const Tensor& bias, const ConvArgs& a) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const int64_t o = weight.size(0), kh = weight.size(2), kw = weight.size(3), g = a.groups;
  EMBER_CHECK(o >= 1 && o % g == 0, ValueError, op, ": given groups=", g,
              ", expected weight to be at least ", g, " and divisible by ", g,
              " at dimension 0, but got weight of shape ", weight.sizes());
  EMBER_CHECK(c % g == 0, ValueError, op, ": given groups=", g, ", the ", c,
              " channels of the input of shape ", x.sizes(), " are not divisible by ", g);
  EMBER_CHECK(weight.size(1) * g == c, ValueError, op, ": given groups=", g, ", weight of shape ",
              weight.sizes(), " expects input of shape ", x.sizes(), " to have ", weight.size(1) * g,
              " channels, but got ", c, " channels instead");
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == o), ValueError, op,
              ": given weight of shape ", weight.sizes(), ", expected bias to be 1-d with ", o,
              " elements, but got bias of shape ", bias.defined() ? bias.sizes() : Dims{});
  EMBER_CHECK(kh >= 1 && kw >= 1, ValueError, op, ": kernel size must be positive, but got weight of shape ",
              weight.sizes());
  const int64_t ekh = (kh - 1) * a.dilation.first + 1, ekw = (kw - 1) * a.dilation.second + 1;
  const int64_t ph = h + a.pad_before.first + a.pad_after.first;
  const int64_t pw = w + a.pad_before.second + a.pad_after.second;
  EMBER_CHECK(ph >= ekh && pw >= ekw, ValueError, op, ": calculated padded input size per channel: (",
              ph, " x ", pw, "). Kernel size: (", ekh, " x ", ekw,
              "). Kernel size can't be greater than actual input size (input of shape ", x.sizes(),
              ", weight of shape ", weight.sizes(), ")");
  kernels::Conv2dGeom geo{n, c, h, w, o, kh, kw, g, a.stride.first, a.stride.second,
                          a.pad_before.first, a.pad_before.second, a.dilation.first,
                          a.dilation.second, (ph - ekh) / a.stride.first + 1,
                          (pw - ekw) / a.stride.second + 1, {}};
  for (int d = 0; d < 4; ++d) geo.in_stride[d] = x.stride(d);
  // BLAS counts in int: the GEMM sizes and leading dimensions must fit.
  // The column buffer (c * kh * kw, ho * wo) per thread must be addressable.
  const double kg = double(c / g) * double(kh * kw), p = double(geo.ho) * double(geo.wo);
  EMBER_CHECK(kg <= INT_MAX && p <= INT_MAX && o <= INT_MAX && kg * g * p < 0x1p56,
              ValueError, op,
              ": input of shape ", x.sizes(), " and weight of shape ", weight.sizes(),
              " are too large for BLAS");
  return geo;
}

// grad_out -> (grad_input, grad_weight, grad_bias), only those asked for. A fused kernel,
// not built from ember ops: the result is not itself differentiable (no double backward
// through a convolution; create_graph still works for everything else in the graph).
std::vector<Tensor> conv2d_backward(const kernels::Conv2dGeom& geo, const Tensor& x,
                                    const Tensor& weight, const Tensor& grad_out, bool need_in,
                                    bool need_w, bool need_b) {
  const DType dt = x.dtype();
  const Tensor go = dense(detach(grad_out)), w = dense(weight);
  Tensor gi, gw, gb;
  if (need_in) gi = Tensor::empty({geo.n, geo.c, geo.h, geo.w}, dt);
  if (need_w) gw = Tensor::empty(weight.sizes(), dt);
  if (need_b) gb = Tensor::empty({geo.o}, dt);
  const kernels::Conv2dPlan plan = kernels::conv2d_plan(dt, geo, true, need_w || need_b);
  Tensor ws = Tensor::empty({plan.workspace}, dt);
  kernels::conv2d_backward(dt, geo, plan, x.data_ptr(), w.data_ptr(), go.data_ptr(),
                           need_in ? gi.data_ptr() : nullptr, need_w ? gw.data_ptr() : nullptr,
                           need_b ? gb.data_ptr() : nullptr, ws.data_ptr());
  return {gi, gw, gb};
}

// input is 4-d here; the public conv2d adds and removes the batch dim of a 3-d input.
Tensor conv2d_4d(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                 const ConvArgs& a) {
  const kernels::Conv2dGeom geo = geometry(op, input, weight, bias, a);
  const DType dt = input.dtype();
  Tensor out = Tensor::empty({geo.n, geo.o, geo.ho, geo.wo}, dt);
  const Tensor w = dense(weight), b = bias.defined() ? dense(bias) : bias;
  const kernels::Conv2dPlan plan = kernels::conv2d_plan(dt, geo, false, false);
  Tensor ws = Tensor::empty({plan.workspace}, dt);
  kernels::conv2d_forward(dt, geo, plan, input.data_ptr(), w.data_ptr(),
                          b.defined() ? b.data_ptr() : nullptr, out.data_ptr(), ws.data_ptr());

  const bool has_bias = bias.defined();
  if (autograd::any_requires_grad(input, weight) || (has_bias && autograd::any_requires_grad(bias))) {
    std::vector<Tensor> inputs{input, weight};
    if (has_bias) inputs.push_back(bias);
    autograd::record("ConvolutionBackward0", inputs, {out},
                     [geo, has_bias, sx = SavedTensor(input), sw = SavedTensor(weight)](
                         Grads& g, const Node& n) -> Grads {
                       std::vector<Tensor> r =
                           conv2d_backward(geo, sx.get(), sw.get(), g[0], n.needs_input_grad(0),
                                           n.needs_input_grad(1), has_bias && n.needs_input_grad(2));
                       if (!has_bias) r.pop_back();
                       return r;
                     });
  }
  return out;
}

Tensor conv2d_any(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvArgs& a) {
  const char* op = "conv2d";
  if (input.dim() == 4) return conv2d_4d(op, input, weight, bias, a);
  return squeeze(conv2d_4d(op, unsqueeze(input, 0), weight, bias, a), {0});
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
              IntList padding, IntList dilation, int64_t groups) {
  EMBER_PROFILE_OP("conv2d");
  const char* op = "conv2d";
  check_tensors(op, input, weight, bias);
  const Pair pad = pair_arg(op, "padding", padding);
  ConvArgs a{pair_arg(op, "stride", stride), pad, pad, pair_arg(op, "dilation", dilation), groups};
  check_args(op, a);
  return conv2d_any(input, weight, bias, a);
}

// conv_transpose2d is the adjoint of conv2d: the input gradient of the conv2d whose input has
// the transposed conv's output shape, with the transposed conv's input as its grad_out. So the
// forward runs conv2d's backward kernel (one GEMM + col2im per image), and the backward runs
// conv2d's forward (grad_input) and its weight gradient (grad_weight), instead of a convolution
// over an input with (stride - 1) zeros between neighbours, which does stride_h * stride_w
// times the work. output_padding (< stride) adds rows/columns after the input only.
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, IntList stride, IntList padding,
                        IntList output_padding, int64_t groups, IntList dilation) {
  EMBER_PROFILE_OP("conv_transpose2d");
  const char* op = "conv_transpose2d";
  ops::check_defined(input, op);
  ops::check_defined(weight, op);
  EMBER_CHECK(input.dim() == 4 && weight.dim() == 4, ValueError, op,
              ": expected a 4-d input and a 4-d weight, but got input of shape ", input.sizes(),
              " and weight of shape ", weight.sizes());
  EMBER_CHECK(is_floating(input.dtype()) && input.dtype() == weight.dtype(), TypeError, op,
              ": expected floating-point input and weight of one dtype, but got ",
              dtype_name(input.dtype()), " and ", dtype_name(weight.dtype()));
  const Pair pad = pair_arg(op, "padding", padding), opad = pair_arg(op, "output_padding", output_padding);
  ConvArgs a{pair_arg(op, "stride", stride), pad, pad, pair_arg(op, "dilation", dilation), groups};
  check_args(op, a);
  EMBER_CHECK(opad.first >= 0 && opad.second >= 0 && opad.first < a.stride.first &&
                  opad.second < a.stride.second,
              ValueError, op, ": output_padding=(", opad.first, ", ", opad.second,
              ") must be non-negative and smaller than stride=(", a.stride.first, ", ",
              a.stride.second, ")");
  EMBER_CHECK(weight.size(0) == input.size(1), ValueError, op, ": weight of shape ", weight.sizes(),
              " expects input of shape ", input.sizes(), " to have ", weight.size(0), " channels");
  const int64_t n = input.size(0), h = input.size(2), w = input.size(3);
  const int64_t ho = (h - 1) * a.stride.first - 2 * pad.first +
                     a.dilation.first * (weight.size(2) - 1) + opad.first + 1;
  const int64_t wo = (w - 1) * a.stride.second - 2 * pad.second +
                     a.dilation.second * (weight.size(3) - 1) + opad.second + 1;
  EMBER_CHECK(ho > 0 && wo > 0 && h > 0 && w > 0, ValueError, op, ": input of shape ", input.sizes(),
              " and weight of shape ", weight.sizes(), " give an empty output (", ho, " x ", wo, ")");
  const DType dt = input.dtype();
  Tensor out = Tensor::empty({n, weight.size(1) * groups, ho, wo}, dt);
  const kernels::Conv2dGeom geo = geometry(op, out, weight, Tensor(), a);  // out: the conv's input
  EMBER_CHECK(geo.ho == h && geo.wo == w, Error, op, ": internal: adjoint geometry ", geo.ho, "x",
              geo.wo, " != input ", h, "x", w);
  const Tensor x = dense(input), wt = dense(weight);
  {
    const kernels::Conv2dPlan plan = kernels::conv2d_plan(dt, geo, true, false);
    Tensor ws = Tensor::empty({plan.workspace}, dt);
    kernels::conv2d_backward(dt, geo, plan, out.data_ptr(), wt.data_ptr(), x.data_ptr(),
                             out.data_ptr(), nullptr, nullptr, ws.data_ptr());
  }
  if (autograd::any_requires_grad(input, weight)) {
    autograd::record("ConvolutionBackward0", {input, weight}, {out},
                     [geo, dt, sx = SavedTensor(input), sw = SavedTensor(weight)](
                         Grads& g, const Node& node) -> Grads {
                       const Tensor gy = dense(detach(g[0])), wt = dense(sw.get());
                       Tensor gx, gw;
                       if (node.needs_input_grad(0)) {  // conv2d(grad_out, weight)
                         gx = Tensor::empty({geo.n, geo.o, geo.ho, geo.wo}, dt);
                         const kernels::Conv2dPlan plan = kernels::conv2d_plan(dt, geo, false, false);
                         Tensor ws = Tensor::empty({plan.workspace}, dt);
                         kernels::conv2d_forward(dt, geo, plan, gy.data_ptr(), wt.data_ptr(), nullptr,
                                                 gx.data_ptr(), ws.data_ptr());
                       }
                       if (node.needs_input_grad(1)) {  // conv2d's weight grad of (grad_out, input)
                         const Tensor x = dense(detach(sx.get()));
                         gw = Tensor::empty(wt.sizes(), dt);
                         const kernels::Conv2dPlan plan = kernels::conv2d_plan(dt, geo, true, true);
                         Tensor ws = Tensor::empty({plan.workspace}, dt);
                         kernels::conv2d_backward(dt, geo, plan, gy.data_ptr(), wt.data_ptr(),
                                                  x.data_ptr(), nullptr, gw.data_ptr(), nullptr,
                                                  ws.data_ptr());
                       }
                       return {gx, gw};
                     });
  }
  return out;
}

// "same": total padding dilation * (k - 1) per dim, the odd one after the input (PyTorch's
// choice), so the output keeps the input's size.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
              PaddingMode padding, IntList dilation, int64_t groups) {
  EMBER_PROFILE_OP("conv2d");
  const char* op = "conv2d";
  check_tensors(op, input, weight, bias);
  ConvArgs a{pair_arg(op, "stride", stride), {0, 0}, {0, 0}, pair_arg(op, "dilation", dilation), groups};
  check_args(op, a);
  if (padding == PaddingMode::Same) {
    EMBER_CHECK(a.stride.first == 1 && a.stride.second == 1, ValueError, op,
                ": padding='same' is not supported for strided convolutions");
    const int64_t th = a.dilation.first * (weight.size(2) - 1);
    const int64_t tw = a.dilation.second * (weight.size(3) - 1);
    a.pad_before = {th / 2, tw / 2};
    a.pad_after = {th - th / 2, tw - tw / 2};
  }
  return conv2d_any(input, weight, bias, a);
}

}  // namespace ember
