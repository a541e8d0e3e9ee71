// Normalization ops of ember/functional.h: batch_norm and layer_norm. Checks name the op
// and the shapes; the statistics, the normalization and the fused backward are kernels
// of src/kernels/cpu/nn.cpp. Each backward sits right below its forward and switches to a
// formula written with ember ops under create_graph (Note [Fused backward and
// create_graph] in layers.cpp).
#include "autograd/function.h"
#include "ember/functional.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/nn.h"
#include "ops/half_ops.h"
#include "ops/iter.h"

namespace ember {
namespace {

using autograd::SavedTensor;

void check_param_dtype(const char* op, const char* name, const Tensor& t, const Tensor& x) {
  EMBER_CHECK(t.dtype() == x.dtype(), TypeError, op, ": expected ", name,
              " to have the input's dtype ", dtype_name(x.dtype()), ", but got ",
              dtype_name(t.dtype()), " (", name, " of shape ", t.sizes(), ")");
}

// An optional tensor as a node input: undefined ones become a handle that needs no grad.
const Tensor& or_placeholder(const Tensor& t, const Tensor& placeholder) {
  return t.defined() ? t : placeholder;
}

Tensor dense(const Tensor& t) { return t.defined() ? contiguous(t) : t; }
const void* ptr_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

// ---- batch norm -------------------------------------------------------------------------

// The running statistics must be 1-d with one element per channel; weight and bias may
// have any shape with C elements (as in PyTorch).
void check_batch_norm(const Tensor& x, const Tensor& rm, const Tensor& rv, const Tensor& w,
                      const Tensor& b, bool training) {
  const char* op = "batch_norm";
  ops::check_defined(x, op);
  EMBER_CHECK(
      x.dim() >= 2, ValueError, op,
      ": expected an input of shape (N, C, *) with at least 2 dims, but got input of shape ",
      x.sizes());
  ops::check_floating_input(x, op);
  EMBER_CHECK(rm.defined() == rv.defined(), ValueError, op,
              ": running_mean and running_var must either both be None or neither be None");
  EMBER_CHECK(training || rm.defined(), ValueError, op,
              ": running_mean and running_var must be defined in evaluation mode");
  const int64_t c = x.size(1);
  for (auto [t, name] : {std::pair{&rm, "running_mean"}, std::pair{&rv, "running_var"}}) {
    if (!t->defined()) continue;
    EMBER_CHECK(t->dim() == 1 && t->size(0) == c, ValueError, op, ": expected ", name, " of shape ",
                Dims{c}, " for an input of shape ", x.sizes(), ", but got ", name, " of shape ",
                t->sizes());
    check_param_dtype(op, name, *t, x);
  }
  for (auto [t, name] : {std::pair{&w, "weight"}, std::pair{&b, "bias"}}) {
    if (!t->defined()) continue;
    EMBER_CHECK(t->numel() == c, ValueError, op, ": expected ", name, " with ", c,
                " elements (one per channel of the input of shape ", x.sizes(), "), but got ", name,
                " of shape ", t->sizes());
    check_param_dtype(op, name, *t, x);
  }
}

kernels::ChannelGeom channel_geom(const Tensor& x) {
  int64_t s = 1;
  for (int64_t d = 2; d < x.dim(); ++d) s *= x.size(d);
  return {x.size(0), x.size(1), s};
}

// The shape (1, C, 1, ...) that broadcasts a per-channel tensor over x.
Dims channel_shape(const Tensor& x) {
  Dims k(size_t(x.dim()), 1);
  k[1] = x.size(1);
  return k;
}

// All dims but the channel dim.
Dims channel_reduce_dims(int64_t ndim) {
  Dims r;
  for (int64_t d = 0; d < ndim; ++d)
    if (d != 1) r.push_back(d);
  return r;
}

// running = (1 - momentum) * running + momentum * batch (the variance unbiased), in place.
void update_running(Tensor rm, Tensor rv, const Tensor& mean, const Tensor& var, double momentum,
                    int64_t m) {
  mul_(rm, Scalar(1.0 - momentum));
  add_(rm, mean, Scalar(momentum));
  mul_(rv, Scalar(1.0 - momentum));
  add_(rv, var, Scalar(momentum * double(m) / double(m - 1)));
}

struct BatchNormSaved {
  SavedTensor x, w, mean, invstd;
  bool training;
  double eps;
  Dims wshape, bshape;
};

// The backward with ember ops (create_graph): in training the statistics are recomputed
// from x, so the result is differentiable in x as well.
Grads batch_norm_backward_ops(const Tensor& g, const Tensor& x, const Tensor& w,
                              const Tensor& saved_mean, const Tensor& saved_invstd,
                              const BatchNormSaved& s, const Node& n) {
  const Dims red = channel_reduce_dims(x.dim()), k = channel_shape(x);
  Tensor mu = s.training ? mean(x, red, true) : reshape(saved_mean, k);
  Tensor inv =
      s.training ? rsqrt(add(var(x, red, 0, true), Scalar(s.eps))) : reshape(saved_invstd, k);
  Tensor xhat = mul(sub(x, mu), inv);
  Tensor gbk = sum(g, red, true), gwk = sum(mul(g, xhat), red, true);
  Tensor gx;
  if (n.needs_input_grad(0)) {
    if (s.training) {
      const double m = double(x.numel() / std::max<int64_t>(x.size(1), 1));
      gx = mul(sub(sub(g, div(gbk, Scalar(m))), mul(xhat, div(gwk, Scalar(m)))), inv);
    } else {
      gx = mul(g, inv);
    }
    if (w.defined()) gx = mul(gx, reshape(w, k));
  }
  return {gx, n.needs_input_grad(1) ? reshape(gwk, s.wshape) : Tensor(),
          n.needs_input_grad(2) ? reshape(gbk, s.bshape) : Tensor()};
}

Grads batch_norm_backward(const Tensor& g, const BatchNormSaved& s, const Node& n) {
  const Tensor x = s.x.get(), w = s.w.defined() ? s.w.get() : Tensor();
  const Tensor mean = s.mean.get(), invstd = s.invstd.get();
  if (GradMode::is_enabled()) return batch_norm_backward_ops(g, x, w, mean, invstd, s, n);
  const bool need_x = n.needs_input_grad(0), need_w = n.needs_input_grad(1),
             need_b = n.needs_input_grad(2);
  const kernels::ChannelGeom geo = channel_geom(x);
  const DType xdt = x.dtype(), dt = ops::compute_dtype_of(xdt);  // Note [Half ops through float32]
  const Tensor G = contiguous(g.dtype() == dt ? g : to_dtype(g, dt)),
               X = contiguous(ops::widened(x));
  const Tensor wc = w.defined() ? contiguous(reshape(ops::widened(w), {geo.c})) : Tensor();
  Tensor sum_g, sum_gxmu, gx, gw, gb;
  if (need_w || need_b || (need_x && s.training)) {
    sum_g = Tensor::empty({geo.c}, dt);
    sum_gxmu = Tensor::empty({geo.c}, dt);
    kernels::batch_norm_backward_reduce(dt, geo, G.data_ptr(), X.data_ptr(), mean.data_ptr(),
                                        sum_g.data_ptr(), sum_gxmu.data_ptr());
  }
  if (need_x) {
    gx = Tensor::empty(x.sizes(), dt);
    kernels::batch_norm_backward_input(dt, geo, G.data_ptr(), X.data_ptr(), mean.data_ptr(),
                                       invstd.data_ptr(), ptr_or_null(wc), ptr_or_null(sum_g),
                                       ptr_or_null(sum_gxmu), s.training, gx.data_ptr());
  }
  if (need_w) gw = ops::narrowed(reshape(mul(sum_gxmu, invstd), s.wshape), xdt);
  if (need_b) gb = ops::narrowed(reshape(sum_g, s.bshape), xdt);
  return {ops::narrowed(gx, xdt), gw, gb};
}

}  // namespace

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps) {
  EMBER_RECORD(batch_norm, x, running_mean, running_var, weight, bias, training, momentum, eps);
  EMBER_PROFILE_OP("batch_norm");
  check_batch_norm(x, running_mean, running_var, weight, bias, training);
  const kernels::ChannelGeom geo = channel_geom(x);
  const int64_t m = geo.n * geo.s;
  EMBER_CHECK(
      !training || m != 1, ValueError,
      "batch_norm: Expected more than 1 value per channel when training, got input of shape ",
      x.sizes());
  const DType dt = ops::compute_dtype_of(x.dtype());  // Note [Half ops through float32]
  Tensor out = Tensor::empty(x.sizes(), dt), mean, invstd;
  {
    NoGradGuard no_grad;  // statistics and running-stat updates are not part of the graph
    const Tensor X = contiguous(ops::widened(x));
    const Tensor w =
        weight.defined() ? contiguous(reshape(ops::widened(weight), {geo.c})) : Tensor();
    const Tensor b = bias.defined() ? contiguous(reshape(ops::widened(bias), {geo.c})) : Tensor();
    if (training && m > 0) {
      mean = Tensor::empty({geo.c}, dt), invstd = Tensor::empty({geo.c}, dt);
      Tensor var = Tensor::empty({geo.c}, dt);
      kernels::batch_norm_stats(dt, geo, X.data_ptr(), eps, mean.data_ptr(), var.data_ptr(),
                                invstd.data_ptr());
      if (running_mean.defined()) update_running(running_mean, running_var, mean, var, momentum, m);
    } else if (training) {  // an empty batch: nothing to normalize, running stats unchanged
      mean = zeros({geo.c}, dt), invstd = zeros({geo.c}, dt);
    } else {
      mean = contiguous(ops::widened(running_mean));
      invstd = rsqrt(add(ops::widened(running_var), Scalar(eps)));
    }
    kernels::batch_norm_apply(dt, geo, X.data_ptr(), mean.data_ptr(), invstd.data_ptr(),
                              ptr_or_null(w), ptr_or_null(b), out.data_ptr());
    out = ops::narrowed(out, x.dtype());
  }
  const bool wg = weight.defined() && autograd::any_requires_grad(weight);
  const bool bg = bias.defined() && autograd::any_requires_grad(bias);
  if (autograd::any_requires_grad(x) || wg || bg) {
    BatchNormSaved s{SavedTensor(x),
                     weight.defined() ? SavedTensor(weight) : SavedTensor(),
                     SavedTensor(mean),
                     SavedTensor(invstd),
                     training,
                     eps,
                     weight.defined() ? Dims(weight.sizes()) : Dims(),
                     bias.defined() ? Dims(bias.sizes()) : Dims()};
    const Tensor none = x.alias();  // needs no grad: stands in for an undefined weight / bias
    autograd::record("NativeBatchNormBackward0",
                     {&x, &or_placeholder(weight, none), &or_placeholder(bias, none)}, {&out},
                     [s = std::move(s)](Grads& g, const Node& n) -> Grads {
                       return batch_norm_backward(g[0], s, n);
                     });
  }
  return out;
}

// ---- layer norm -------------------------------------------------------------------------

namespace {

void check_layer_norm(const Tensor& x, IntList ns, const Tensor& w, const Tensor& b) {
  const char* op = "layer_norm";
  ops::check_defined(x, op);
  ops::check_floating_input(x, op);
  EMBER_CHECK(!ns.empty(), ValueError, op,
              ": expected normalized_shape to have at least one dim, but got normalized_shape=()");
  const int64_t k = int64_t(ns.size());
  bool ok = x.dim() >= k;
  for (int64_t i = 0; ok && i < k; ++i) ok = x.size(x.dim() - k + i) == ns[size_t(i)];
  EMBER_CHECK(ok, ValueError, op, ": given normalized_shape=", ns,
              ", expected an input whose trailing dims are ", ns, ", but got input of shape ",
              x.sizes());
  for (auto [t, name] : {std::pair{&w, "weight"}, std::pair{&b, "bias"}}) {
    if (!t->defined()) continue;
    EMBER_CHECK(Dims::equal(t->sizes(), ns), ValueError, op, ": expected ", name, " of shape ", ns,
                " (normalized_shape), but got ", name, " of shape ", t->sizes());
    check_param_dtype(op, name, *t, x);
  }
}

struct LayerNormSaved {
  SavedTensor x, w, mean, rstd;
  int64_t rows, d, k;  // k: number of normalized dims
  double eps;
  bool has_b;
};

// The backward with ember ops (create_graph): statistics recomputed from x.
Grads layer_norm_backward_ops(const Tensor& g, const Tensor& x, const Tensor& w,
                              const LayerNormSaved& s, const Node& n) {
  Dims red, ns;
  for (int64_t d = x.dim() - s.k; d < x.dim(); ++d) red.push_back(d), ns.push_back(x.size(d));
  Tensor inv = rsqrt(add(var(x, red, 0, true), Scalar(s.eps)));
  Tensor xhat = mul(sub(x, mean(x, red, true)), inv);
  Tensor gx, gw, gb;
  if (n.needs_input_grad(0)) {
    Tensor gh = w.defined() ? mul(g, w) : g;
    gx = mul(sub(sub(gh, mean(gh, red, true)), mul(xhat, mean(mul(gh, xhat), red, true))), inv);
  }
  Dims lead;  // the dims that are not normalized: weight and bias are shared across them
  for (int64_t d = 0; d < x.dim() - s.k; ++d) lead.push_back(d);
  auto over_lead = [&](const Tensor& t) { return lead.empty() ? t : sum(t, lead); };
  if (n.needs_input_grad(1)) gw = over_lead(mul(g, xhat));
  if (n.needs_input_grad(2)) gb = over_lead(g);
  return {gx, gw, gb};
}

Grads layer_norm_backward(const Tensor& g, const LayerNormSaved& s, const Node& n) {
  const Tensor x = s.x.get(), w = s.w.defined() ? s.w.get() : Tensor();
  if (GradMode::is_enabled()) return layer_norm_backward_ops(g, x, w, s, n);
  const DType xdt = x.dtype(), dt = ops::compute_dtype_of(xdt);  // Note [Half ops through float32]
  const Tensor G = contiguous(g.dtype() == dt ? g : to_dtype(g, dt)),
               X = contiguous(ops::widened(x));
  const Tensor wc = dense(ops::widened(w)), mean = s.mean.get(), rstd = s.rstd.get();
  const IntList ns(x.sizes().data() + (x.dim() - s.k), size_t(s.k));
  Tensor gx, gw, gb;
  if (n.needs_input_grad(0)) gx = Tensor::empty(x.sizes(), dt);
  if (n.needs_input_grad(1)) gw = Tensor::empty(ns, dt);
  if (n.needs_input_grad(2)) gb = Tensor::empty(ns, dt);
  kernels::layer_norm_backward(dt, s.rows, s.d, G.data_ptr(), X.data_ptr(), mean.data_ptr(),
                               rstd.data_ptr(), ptr_or_null(wc),
                               gx.defined() ? gx.data_ptr() : nullptr,
                               gw.defined() ? gw.data_ptr() : nullptr,
                               gb.defined() ? gb.data_ptr() : nullptr);
  return {ops::narrowed(gx, xdt), ops::narrowed(gw, xdt), ops::narrowed(gb, xdt)};
}

}  // namespace

Tensor layer_norm(const Tensor& x, IntList normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps) {
  EMBER_RECORD(layer_norm, x, normalized_shape, weight, bias, eps);
  EMBER_PROFILE_OP("layer_norm");
  check_layer_norm(x, normalized_shape, weight, bias);
  const int64_t k = int64_t(normalized_shape.size()), d = numel_of(normalized_shape);
  int64_t rows = 1;
  for (int64_t i = 0; i < x.dim() - k; ++i) rows *= x.size(i);
  const DType dt = ops::compute_dtype_of(x.dtype());  // Note [Half ops through float32]
  Tensor out = Tensor::empty(x.sizes(), dt);
  Tensor mean = Tensor::empty({rows}, dt), rstd = Tensor::empty({rows}, dt);
  {
    NoGradGuard no_grad;
    const Tensor X = contiguous(ops::widened(x)), w = dense(ops::widened(weight)),
                 b = dense(ops::widened(bias));
    kernels::layer_norm(dt, rows, d, X.data_ptr(), ptr_or_null(w), ptr_or_null(b), eps,
                        out.data_ptr(), mean.data_ptr(), rstd.data_ptr());
    out = ops::narrowed(out, x.dtype());
  }
  const bool wg = weight.defined() && autograd::any_requires_grad(weight);
  const bool bg = bias.defined() && autograd::any_requires_grad(bias);
  if (autograd::any_requires_grad(x) || wg || bg) {
    LayerNormSaved s{SavedTensor(x),
                     weight.defined() ? SavedTensor(weight) : SavedTensor(),
                     SavedTensor(mean),
                     SavedTensor(rstd),
                     rows,
                     d,
                     k,
                     eps,
                     bias.defined()};
    const Tensor none = x.alias();  // needs no grad: stands in for an undefined weight / bias
    autograd::record("NativeLayerNormBackward0",
                     {&x, &or_placeholder(weight, none), &or_placeholder(bias, none)}, {&out},
                     [s = std::move(s)](Grads& g, const Node& n) -> Grads {
                       return layer_norm_backward(g[0], s, n);
                     });
  }
  return out;
}

}  // namespace ember
