// 2-d and 3-d convolution and their adjoints (conv_transpose2d/3d): argument checks naming
// the op and the shapes, then one kernel call (src/kernels/cpu/conv.cpp: the direct path for
// float32 stride-1 2-d convolutions, else im2col (vol2col in 3-d) + one GEMM per image and
// group). The backward sits right below the forward and calls the fused backward kernel.
// Errors: see src/ops/spatial.h.
#include <climits>
#include <string>

#include "autograd/function.h"
#include "ember/autocast.h"
#include "ember/interpreter_lock.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/conv.h"
#include "kernels/cpu/conv_dnnl.h"
#include "ops/iter.h"
#include "ops/spatial.h"

namespace ember {
namespace {

using autograd::SavedTensor;
using ops::Dim3;
using ops::spatial_arg;
using ops::spatial_fail;
using ops::spatial_str;

// The spatial arguments, resolved: padding before and after each dim may differ ("same").
struct ConvArgs {
  Dim3 stride, pad_before, pad_after, dilation;
  int64_t groups;
};

ConvArgs conv_args(int nd, const char* op, IntList stride, IntList padding, IntList dilation,
                   int64_t groups) {
  const Dim3 pad = spatial_arg(nd, op, "padding", padding, 0);
  return {spatial_arg(nd, op, "stride", stride, 1), pad, pad,
          spatial_arg(nd, op, "dilation", dilation, 1), groups};
}

// A tensor the kernel can read densely; the copy (if any) is not recorded by autograd,
// since the op records its own node against the original tensor.
Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : clone(detach(t)); }

void check_tensors(int nd, const char* op, const Tensor& input, const Tensor& weight,
                   const Tensor& bias) {
  ops::check_defined(input, op);
  ops::check_defined(weight, op);
  SPATIAL_CHECK(nd, input.dim() == nd + 1 || input.dim() == nd + 2, op, ": expected a ", nd + 1,
                "-d (unbatched) or ", nd + 2, "-d (batched) input, but got input of shape ",
                input.sizes());
  SPATIAL_CHECK(
      nd, weight.dim() == nd + 2, op, ": expected a ", nd + 2,
      "-d weight (out_channels, in_channels / groups, *kernel_size), but got weight of shape ",
      weight.sizes());
  EMBER_CHECK(input.dtype() != DType::Bool, NotImplementedError, op,
              ": not implemented for bool tensors (input of shape ", input.sizes(), ")");
  if (input.dtype() != weight.dtype())
    spatial_fail(nd, true,
                 detail::cat(op, ": input (", dtype_name(input.dtype()), ") and weight (",
                             dtype_name(weight.dtype()), ") should have the same dtype"));
  if (bias.defined() && input.dtype() != bias.dtype())
    spatial_fail(nd, true,
                 detail::cat(op, ": input (", dtype_name(input.dtype()), ") and bias (",
                             dtype_name(bias.dtype()), ") should have the same dtype"));
}

void check_args(int nd, const char* op, const ConvArgs& a) {
  for (int i = 0; i < 3; ++i) {
    SPATIAL_CHECK(nd, a.stride[i] > 0, op,
                  ": non-positive stride is not supported, got stride=", spatial_str(nd, a.stride));
    SPATIAL_CHECK(nd, a.pad_before[i] >= 0, op, ": negative padding is not supported, got padding=",
                  spatial_str(nd, a.pad_before));
    SPATIAL_CHECK(nd, a.dilation[i] > 0, op,
                  ": non-positive dilation is not supported, got dilation=",
                  spatial_str(nd, a.dilation));
  }
  SPATIAL_CHECK(nd, a.groups > 0, op,
                ": non-positive groups is not supported, got groups=", a.groups);
}

// Checks the shapes of x (batched: nd + 2 dims) and weight against each other and returns
// the kernel's geometry.
// Multiply-adds of one convolution (WithoutInterpreterLock's work).
int64_t conv_work(const kernels::Conv2dGeom& g) {
  return g.n * g.o * g.od * g.ho * g.wo * (g.c / g.groups) * g.kd * g.kh * g.kw;
}

kernels::Conv2dGeom geometry(int nd, const char* op, const Tensor& x, const Tensor& weight,
                             const Tensor& bias, const ConvArgs& a) {
  const int64_t n = x.size(0), c = x.size(1), o = weight.size(0), g = a.groups;
  const Dim3 in{nd == 3 ? x.size(2) : 1, x.size(-2), x.size(-1)};
  const Dim3 k{nd == 3 ? weight.size(2) : 1, weight.size(-2), weight.size(-1)};
  SPATIAL_CHECK(nd, o >= 1 && o % g == 0, op, ": given groups=", g,
                ", expected weight to be at least ", g, " and divisible by ", g,
                " at dimension 0, but got weight of shape ", weight.sizes());
  SPATIAL_CHECK(nd, c % g == 0, op, ": given groups=", g, ", the ", c,
                " channels of the input of shape ", x.sizes(), " are not divisible by ", g);
  SPATIAL_CHECK(nd, weight.size(1) * g == c, op, ": given groups=", g, ", weight of shape ",
                weight.sizes(), " expects input of shape ", x.sizes(), " to have ",
                weight.size(1) * g, " channels, but got ", c, " channels instead");
  SPATIAL_CHECK(nd, !bias.defined() || (bias.dim() == 1 && bias.size(0) == o), op,
                ": given weight of shape ", weight.sizes(), ", expected bias to be 1-d with ", o,
                " elements, but got bias of shape ", bias.defined() ? bias.sizes() : Dims{});
  Dim3 ek, padded, out;
  for (size_t i = 0; i < 3; ++i) {
    SPATIAL_CHECK(nd, k[i] >= 1, op, ": kernel size must be positive, but got weight of shape ",
                  weight.sizes());
    ek[i] = (k[i] - 1) * a.dilation[i] + 1;
    padded[i] = in[i] + a.pad_before[i] + a.pad_after[i];
  }
  for (size_t i = 0; i < 3; ++i) {
    SPATIAL_CHECK(nd, padded[i] >= ek[i], op,
                  ": calculated padded input size per channel: ", spatial_str(nd, padded, " x "),
                  ". Kernel size: ", spatial_str(nd, ek, " x "),
                  ". Kernel size can't be greater than actual input size (input of shape ",
                  x.sizes(), ", weight of shape ", weight.sizes(), ")");
    out[i] = (padded[i] - ek[i]) / a.stride[i] + 1;
  }
  kernels::Conv2dGeom geo{n,
                          c,
                          in[1],
                          in[2],
                          o,
                          k[1],
                          k[2],
                          g,
                          a.stride[1],
                          a.stride[2],
                          a.pad_before[1],
                          a.pad_before[2],
                          a.dilation[1],
                          a.dilation[2],
                          out[1],
                          out[2],
                          {x.stride(0), x.stride(1), x.stride(-2), x.stride(-1)}};
  geo.d = in[0], geo.kd = k[0], geo.sd = a.stride[0], geo.pd = a.pad_before[0];
  geo.dd = a.dilation[0], geo.od = out[0], geo.in_stride_d = nd == 3 ? x.stride(2) : 0;
  // BLAS counts in int: the GEMM sizes and leading dimensions must fit.
  // The column buffer (c * kd * kh * kw, od * ho * wo) per thread must be addressable.
  const double kg = double(c / g) * double(k[0] * k[1] * k[2]);
  const double p = double(out[0]) * double(out[1]) * double(out[2]);
  SPATIAL_CHECK(nd, kg <= INT_MAX && p <= INT_MAX && o <= INT_MAX && kg * g * p < 0x1p56, op,
                ": input of shape ", x.sizes(), " and weight of shape ", weight.sizes(),
                " are too large for BLAS");
  return geo;
}

// The output shape (N, O, [od,] ho, wo) of a geometry.
Dims out_sizes(int nd, const kernels::Conv2dGeom& geo) {
  if (nd == 3) return {geo.n, geo.o, geo.od, geo.ho, geo.wo};
  return {geo.n, geo.o, geo.ho, geo.wo};
}

// geo's input strides for a contiguous input.
void contiguous_strides(kernels::Conv2dGeom& geo) {
  const int64_t hw = geo.h * geo.w, dhw = geo.d * hw;
  geo.in_stride[0] = geo.c * dhw, geo.in_stride[1] = dhw, geo.in_stride[2] = geo.w;
  geo.in_stride[3] = 1, geo.in_stride_d = geo.d > 1 || geo.kd > 1 || geo.od > 1 ? hw : 0;
}

// oneDNN reads a dense input only (Note [Convolution on oneDNN] in conv_dnnl.cpp): a strided
// input of a geometry it runs is copied, and geo's input strides become the copy's.
Tensor routed_input(const Tensor& x, kernels::Conv2dGeom& geo) {
  if (x.is_contiguous() || !kernels::conv_dnnl_preferred(x.dtype(), geo)) return x;
  contiguous_strides(geo);
  return clone(detach(x));
}

// Note [bfloat16 convolution]: a bfloat16 convolution (or conv_transpose) runs on oneDNN's
// bfloat16 primitives (AVX-512 BF16 / AMX: products of bfloat16 values summed in float32, each
// output rounded once, as torch's CPU convolution) when oneDNN takes all three passes of its
// geometry; otherwise, and for float16, it computes in float32 through differentiable casts
// (Note [Half losses] in loss.cpp), which rounds the same way but reads and writes twice the
// bytes.
bool native_half(DType dt, kernels::Conv2dGeom geo) {
  if (dt != DType::BFloat16) return false;
  contiguous_strides(geo);  // routed_input makes it so
  return kernels::conv2d_plan(dt, geo, false, false).dnnl &&
         kernels::conv2d_plan(dt, geo, true, true).dnnl;
}

// grad_out -> (grad_input, grad_weight, grad_bias), only those asked for. A fused kernel,
// not built from ember ops: the result is not itself differentiable (no double backward
// through a convolution; create_graph still works for everything else in the graph).
std::vector<Tensor> conv_backward(kernels::Conv2dGeom geo, const Tensor& input,
                                  const Tensor& weight, const Tensor& grad_out, bool need_in,
                                  bool need_w, bool need_b) {
  const DType dt = input.dtype();
  const Tensor x = need_w ? routed_input(input, geo) : input;
  const Tensor go = dense(detach(grad_out)), w = dense(weight);
  Tensor gi, gw, gb;
  if (need_in) gi = Tensor::empty(x.sizes(), dt);
  if (need_w) gw = Tensor::empty(weight.sizes(), dt);
  if (need_b) gb = Tensor::empty({geo.o}, dt);
  const kernels::Conv2dPlan plan = kernels::conv2d_plan(dt, geo, true, need_w || need_b);
  Tensor ws = Tensor::empty({plan.workspace}, dt);
  WithoutInterpreterLock unlocked(conv_work(geo));
  kernels::conv2d_backward(dt, geo, plan, x.data_ptr(), w.data_ptr(), go.data_ptr(),
                           need_in ? gi.data_ptr() : nullptr, need_w ? gw.data_ptr() : nullptr,
                           need_b ? gb.data_ptr() : nullptr, ws.data_ptr());
  return {gi, gw, gb};
}

// input is batched here; conv_any adds and removes the batch dim of an unbatched input.
Tensor conv_batched(int nd, const char* op, const Tensor& input, const Tensor& weight,
                    const Tensor& bias, const ConvArgs& a) {
  const DType dt = input.dtype();
  kernels::Conv2dGeom geo = geometry(nd, op, input, weight, bias, a);
  if (is_half(dt) && !native_half(dt, geo)) {  // Note [bfloat16 convolution]
    auto f32 = [](const Tensor& t) { return t.defined() ? to_dtype(t, DType::Float32) : t; };
    return to_dtype(conv_batched(nd, op, f32(input), f32(weight), f32(bias), a), dt);
  }
  Tensor out = Tensor::empty(out_sizes(nd, geo), dt);
  const kernels::Conv2dGeom saved_geo = geo;  // the strides of the input autograd saves
  const Tensor x = routed_input(input, geo);
  const Tensor w = dense(weight), b = bias.defined() ? dense(bias) : bias;
  const kernels::Conv2dPlan plan = kernels::conv2d_plan(dt, geo, false, false);
  Tensor ws = Tensor::empty({plan.workspace}, dt);
  {
    WithoutInterpreterLock unlocked(conv_work(geo));
    kernels::conv2d_forward(dt, geo, plan, x.data_ptr(), w.data_ptr(),
                            b.defined() ? b.data_ptr() : nullptr, out.data_ptr(), ws.data_ptr());
  }

  const bool has_bias = bias.defined();
  if (autograd::any_requires_grad(input, weight) ||
      (has_bias && autograd::any_requires_grad(bias))) {
    std::vector<Tensor> inputs{input, weight};
    if (has_bias) inputs.push_back(bias);
    autograd::record("ConvolutionBackward0", inputs, {out},
                     [geo = saved_geo, has_bias, sx = SavedTensor(input),
                      sw = SavedTensor(weight)](Grads& g, const Node& n) -> Grads {
                       std::vector<Tensor> r =
                           conv_backward(geo, sx.get(), sw.get(), g[0], n.needs_input_grad(0),
                                         n.needs_input_grad(1), has_bias && n.needs_input_grad(2));
                       if (!has_bias) r.pop_back();
                       return r;
                     });
  }
  return out;
}

Tensor conv_any(int nd, const char* op, const Tensor& input, const Tensor& weight,
                const Tensor& bias, const ConvArgs& a) {
  if (input.dim() == nd + 2) return conv_batched(nd, op, input, weight, bias, a);
  return squeeze(conv_batched(nd, op, unsqueeze(input, 0), weight, bias, a), {0});
}

Tensor conv_explicit(int nd, const char* op, const Tensor& input, const Tensor& weight,
                     const Tensor& bias, IntList stride, IntList padding, IntList dilation,
                     int64_t groups) {
  if (autocast::is_enabled()) {  // Note [Autocast]: a lower-precision op
    autocast::Suspend off;
    return conv_explicit(nd, op, autocast::lower(input), autocast::lower(weight),
                         autocast::lower(bias), stride, padding, dilation, groups);
  }
  check_tensors(nd, op, input, weight, bias);
  const ConvArgs a = conv_args(nd, op, stride, padding, dilation, groups);
  check_args(nd, op, a);
  return conv_any(nd, op, input, weight, bias, a);
}

// "same": total padding dilation * (k - 1) per dim, the odd one after the input (PyTorch's
// choice), so the output keeps the input's size.
Tensor conv_mode(int nd, const char* op, const Tensor& input, const Tensor& weight,
                 const Tensor& bias, IntList stride, PaddingMode padding, IntList dilation,
                 int64_t groups) {
  if (autocast::is_enabled()) {
    autocast::Suspend off;
    return conv_mode(nd, op, autocast::lower(input), autocast::lower(weight), autocast::lower(bias),
                     stride, padding, dilation, groups);
  }
  check_tensors(nd, op, input, weight, bias);
  ConvArgs a = conv_args(nd, op, stride, {0}, dilation, groups);
  check_args(nd, op, a);
  if (padding == PaddingMode::Same) {
    for (size_t i = 0; i < 3; ++i) {
      SPATIAL_CHECK(nd, a.stride[i] == 1, op,
                    ": padding='same' is not supported for strided convolutions");
      const int64_t k = nd == 2 && i == 0 ? 1 : weight.size(int64_t(i) + nd - 1);
      const int64_t total = a.dilation[i] * (k - 1);
      a.pad_before[i] = total / 2;
      a.pad_after[i] = total - total / 2;
    }
  }
  return conv_any(nd, op, input, weight, bias, a);
}

// conv_transpose is the adjoint of conv: the input gradient of the conv whose input has the
// transposed conv's output shape, with the transposed conv's input as its grad_out. So the
// forward runs conv's backward kernel (one GEMM + col2im per image), and the backward runs
// conv's forward (grad_input) and its weight gradient (grad_weight), instead of a
// convolution over an input with (stride - 1) zeros between neighbours, which does the
// product of the strides times the work. output_padding (< stride) adds rows/columns after
// the input only. input is batched (nd + 2 dims), floating.
Tensor conv_transpose(int nd, const char* op, const Tensor& input, const Tensor& weight,
                      IntList stride, IntList padding, IntList output_padding, int64_t groups,
                      IntList dilation) {
  if (autocast::is_enabled()) {  // Note [Autocast]: a lower-precision op
    autocast::Suspend off;
    return conv_transpose(nd, op, autocast::lower(input), autocast::lower(weight), stride, padding,
                          output_padding, groups, dilation);
  }
  ops::check_defined(input, op);
  ops::check_defined(weight, op);
  SPATIAL_CHECK(nd, input.dim() == nd + 2 && weight.dim() == nd + 2, op, ": expected a ", nd + 2,
                "-d input and a ", nd + 2, "-d weight, but got input of shape ", input.sizes(),
                " and weight of shape ", weight.sizes());
  if (!is_floating_point(input.dtype()) || input.dtype() != weight.dtype())
    spatial_fail(nd, true,
                 detail::cat(op,
                             ": expected floating-point input and weight of one dtype, but got ",
                             dtype_name(input.dtype()), " and ", dtype_name(weight.dtype())));
  const ConvArgs a = conv_args(nd, op, stride, padding, dilation, groups);
  const Dim3 opad = spatial_arg(nd, op, "output_padding", output_padding, 0);
  check_args(nd, op, a);
  for (size_t i = 0; i < 3; ++i)
    SPATIAL_CHECK(nd, opad[i] >= 0 && opad[i] < a.stride[i], op,
                  ": output_padding=", spatial_str(nd, opad),
                  " must be non-negative and smaller than stride=", spatial_str(nd, a.stride));
  SPATIAL_CHECK(nd, weight.size(0) == input.size(1), op, ": weight of shape ", weight.sizes(),
                " expects input of shape ", input.sizes(), " to have ", weight.size(0),
                " channels");
  const Dim3 in{nd == 3 ? input.size(2) : 1, input.size(-2), input.size(-1)};
  const Dim3 k{nd == 3 ? weight.size(2) : 1, weight.size(-2), weight.size(-1)};
  Dim3 out;
  bool empty = false;
  for (size_t i = 0; i < 3; ++i) {
    out[i] =
        (in[i] - 1) * a.stride[i] - 2 * a.pad_before[i] + a.dilation[i] * (k[i] - 1) + opad[i] + 1;
    empty |= out[i] <= 0 || in[i] <= 0;
  }
  SPATIAL_CHECK(nd, !empty, op, ": input of shape ", input.sizes(), " and weight of shape ",
                weight.sizes(), " give an empty output ", spatial_str(nd, out, " x "));
  const DType dt = input.dtype();
  Dims out_shape{input.size(0), weight.size(1) * groups, out[1], out[2]};
  if (nd == 3) out_shape.insert(2, out[0]);
  Tensor y = Tensor::empty(out_shape, dt);
  const kernels::Conv2dGeom geo = geometry(nd, op, y, weight, Tensor(), a);  // y: the conv's input
  EMBER_CHECK(geo.od == in[0] && geo.ho == in[1] && geo.wo == in[2], Error, op,
              ": internal: adjoint geometry ", geo.od, "x", geo.ho, "x", geo.wo, " != input ",
              spatial_str(nd, in, "x"));
  if (is_half(dt) && !native_half(dt, geo))  // Note [bfloat16 convolution], as conv_batched
    return to_dtype(conv_transpose(nd, op, to_dtype(input, DType::Float32),
                                   to_dtype(weight, DType::Float32), stride, padding,
                                   output_padding, groups, dilation),
                    dt);
  const Tensor x = dense(input), wt = dense(weight);
  {
    const kernels::Conv2dPlan plan = kernels::conv2d_plan(dt, geo, true, false);
    Tensor ws = Tensor::empty({plan.workspace}, dt);
    WithoutInterpreterLock unlocked(conv_work(geo));
    kernels::conv2d_backward(dt, geo, plan, y.data_ptr(), wt.data_ptr(), x.data_ptr(), y.data_ptr(),
                             nullptr, nullptr, ws.data_ptr());
  }
  if (autograd::any_requires_grad(input, weight)) {
    autograd::record("ConvolutionBackward0", {input, weight}, {y},
                     [geo, dt, shape = Dims(input.sizes()), sx = SavedTensor(input),
                      sw = SavedTensor(weight)](Grads& g, const Node& node) -> Grads {
                       const Tensor gy = dense(detach(g[0])), wt = dense(sw.get());
                       Tensor gx, gw;
                       if (node.needs_input_grad(0)) {  // conv(grad_out, weight)
                         gx = Tensor::empty(shape, dt);
                         const kernels::Conv2dPlan plan =
                             kernels::conv2d_plan(dt, geo, false, false);
                         Tensor ws = Tensor::empty({plan.workspace}, dt);
                         WithoutInterpreterLock unlocked(conv_work(geo));
                         kernels::conv2d_forward(dt, geo, plan, gy.data_ptr(), wt.data_ptr(),
                                                 nullptr, gx.data_ptr(), ws.data_ptr());
                       }
                       if (node.needs_input_grad(1)) {  // conv's weight grad of (grad_out, input)
                         const Tensor x = dense(detach(sx.get()));
                         gw = Tensor::empty(wt.sizes(), dt);
                         const kernels::Conv2dPlan plan = kernels::conv2d_plan(dt, geo, true, true);
                         Tensor ws = Tensor::empty({plan.workspace}, dt);
                         WithoutInterpreterLock unlocked(conv_work(geo));
                         kernels::conv2d_backward(dt, geo, plan, gy.data_ptr(), wt.data_ptr(),
                                                  x.data_ptr(), nullptr, gw.data_ptr(), nullptr,
                                                  ws.data_ptr());
                       }
                       return {gx, gw};
                     });
  }
  return y;
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
              IntList padding, IntList dilation, int64_t groups) {
  EMBER_RECORD(conv2d, input, weight, bias, stride, padding, dilation, groups);
  EMBER_PROFILE_OP("conv2d");
  return conv_explicit(2, "conv2d", input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
              PaddingMode padding, IntList dilation, int64_t groups) {
  EMBER_RECORD(conv2d, input, weight, bias, stride, padding, dilation, groups);
  EMBER_PROFILE_OP("conv2d");
  return conv_mode(2, "conv2d", input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
              IntList padding, IntList dilation, int64_t groups) {
  EMBER_PROFILE_OP("conv1d");
  const char* op = "conv1d";
  ops::check_defined(input, op);
  ops::check_defined(weight, op);
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, Error, op,
              ": expected a 2-d (unbatched) or 3-d (batched) input, but got input of shape ",
              input.sizes());
  EMBER_CHECK(weight.dim() == 3, Error, op,
              ": expected a 3-d weight (out_channels, in_channels / "
              "groups, kernel_size), but got weight of shape ",
              weight.sizes());
  EMBER_CHECK(groups <= 0 || input.size(-2) == weight.size(1) * groups, Error, op,
              ": groups=", groups, " and weight of shape ", weight.sizes(),
              " expect input of shape ", input.sizes(), " to have ", weight.size(1) * groups,
              " channels, but it has ", input.size(-2));
  for (auto [v, name] : {std::pair{stride, "stride"}, std::pair{padding, "padding"},
                         std::pair{dilation, "dilation"}})
    EMBER_CHECK(v.size() == 1, Error, op, ": expected ", name, " to be a single int, but got ",
                name, "=", v);
  Tensor y = conv2d(unsqueeze(input, -2), unsqueeze(weight, -2), bias, {1, stride[0]},
                    {0, padding[0]}, {1, dilation[0]}, groups);
  return squeeze(y, {-2});
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
              IntList padding, IntList dilation, int64_t groups) {
  EMBER_RECORD(conv3d, input, weight, bias, stride, padding, dilation, groups);
  EMBER_PROFILE_OP("conv3d");
  return conv_explicit(3, "conv3d", input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
              PaddingMode padding, IntList dilation, int64_t groups) {
  EMBER_RECORD(conv3d, input, weight, bias, stride, padding, dilation, groups);
  EMBER_PROFILE_OP("conv3d");
  return conv_mode(3, "conv3d", input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, IntList stride, IntList padding,
                        IntList output_padding, int64_t groups, IntList dilation) {
  EMBER_RECORD(conv_transpose2d, input, weight, stride, padding, output_padding, groups, dilation);
  EMBER_PROFILE_OP("conv_transpose2d");
  return conv_transpose(2, "conv_transpose2d", input, weight, stride, padding, output_padding,
                        groups, dilation);
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, IntList stride, IntList padding,
                        IntList output_padding, int64_t groups, IntList dilation) {
  EMBER_RECORD(conv_transpose3d, input, weight, stride, padding, output_padding, groups, dilation);
  EMBER_PROFILE_OP("conv_transpose3d");
  return conv_transpose(3, "conv_transpose3d", input, weight, stride, padding, output_padding,
                        groups, dilation);
}

}  // namespace ember
