// The losses of ember/functional.h: argument checks (errors name the op, the shapes and the
// offending values), dtypes and outputs here, the math in one kernel call each
// (src/kernels/cpu/loss.cpp), and each backward recorded right under its forward.
//
// cross_entropy is log_softmax + nll fused: the forward keeps only the log-sum-exp of each
// row (one value per position) and the backward rebuilds softmax from the saved logits in
// the same pass that writes the gradient, so a step costs two passes over the logits and two
// allocations, against PyTorch's four passes (log_softmax, nll and their two backwards).
//
// The backwards call fused kernels, so they are not themselves differentiable; under
// create_graph (grad mode on inside a backward) each switches to the same formula written with
// ember ops, which the engine can differentiate again: Note [Fused backward and create_graph]
// in layers.cpp.
#include <cmath>

#include "autograd/function.h"
#include "ember/autocast.h"
#include "ember/functional.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/loss.h"
#include "ops/iter.h"

namespace ember {
namespace {

using autograd::SavedTensor;
using kernels::ClassLoss;
using kernels::LossSums;
using kernels::PointLoss;

// ---- shared helpers ---------------------------------------------------------------------

// `t` broadcast to `shape` and contiguous, for a kernel: no autograd is recorded (the
// gradient goes to `t` through the loss's own node).
Tensor dense(const Tensor& t, IntList shape) {
  NoGradGuard no_grad;
  return contiguous(t.sizes() == Dims(shape) ? t : expand(t, shape));
}
Tensor dense(const Tensor& t) { return dense(t, t.sizes()); }

Tensor as_dtype(const Tensor& t, DType dt) { return t.dtype() == dt ? t : to_dtype(t, dt); }
// Note [Half losses]: a bfloat16/float16 loss runs on float32 casts of its inputs (the casts
// record their backward, so the gradients come back in the half dtype) and rounds the loss
// once; torch computes these losses in float32 internally too.
Tensor as_float32(const Tensor& t) { return t.defined() ? as_dtype(t, DType::Float32) : t; }

// PyTorch refuses a weight that requires grad: these losses have no gradient for it.
void check_no_grad(const Tensor& w, const char* op, const char* name) {
  EMBER_CHECK(!w.defined() || !autograd::any_requires_grad(w), Error, op,
              ": the loss is not differentiable with respect to '", name,
              "'; it cannot require grad (detach it)");
}

// The 0-d result of a 'mean' or 'sum' reduction.
Tensor loss_scalar(double v, DType dt) {
  Tensor out = Tensor::empty({}, dt);
  if (dt == DType::Float64) *out.data<double>() = v;
  else *out.data<float>() = float(v);
  return out;
}

double reduce_value(const LossSums& s, Reduction r) {
  return r == Reduction::Mean ? s.loss / s.weight : s.loss;  // 0 / 0 = NaN, as PyTorch
}

// The outer gradient as the kernels take it: a contiguous array of per-position values
// (reduction 'none') or one number (divided by the mean's divisor).
struct OuterGrad {
  Tensor values;
  double scale = 1;
  const char* ptr() const { return values.defined() ? values.data_ptr() : nullptr; }
};

OuterGrad outer_grad(const Tensor& g, Reduction r, double divisor, DType dt, IntList shape) {
  if (r == Reduction::None) return {dense(as_dtype(g, dt), shape), 1.0};
  const double v = g.item().to_double();
  return {Tensor(), r == Reduction::Mean ? v / divisor : v};
}

// The same as a tensor, for the ops formulas (create_graph).
Tensor outer_grad_ops(const Tensor& g, Reduction r, double divisor) {
  return r == Reduction::Mean ? div(g, Scalar(divisor)) : g;
}

// ---- class losses: geometry and checks -----------------------------------------------------

// input (C), (N, C) or (N, C, d1, ...) as the kernels' (outer, classes, inner).
struct ClassShape {
  int64_t outer = 1, classes = 1, inner = 1, cdim = 0;
  Dims loss_shape;  // the target's canonical shape: () for (C), else the input without dim 1
};

ClassShape class_shape(const Tensor& x, const char* op) {
  EMBER_CHECK(x.dim() >= 1, ValueError, op,
              ": expected an input of shape (C), (N, C) or (N, C, d1, ...), but got a 0-d input");
  ClassShape s;
  if (x.dim() == 1) {
    s.classes = x.size(0);
    return s;
  }
  s.cdim = 1;
  s.outer = x.size(0);
  s.classes = x.size(1);
  s.loss_shape.push_back(x.size(0));
  for (int64_t d = 2; d < x.dim(); ++d) {
    s.inner *= x.size(d);
    s.loss_shape.push_back(x.size(d));
  }
  return s;
}

// Checks a class-index target against the input and returns it as contiguous int64 in
// the canonical shape.
Tensor class_target(const Tensor& x, const Tensor& target, const ClassShape& s, const char* op) {
  EMBER_CHECK(target.dtype() == DType::Int64 || target.dtype() == DType::UInt8, Error, op,
              ": expected a target of class indices (int64 or uint8), but got ",
              dtype_name(target.dtype()), " (target of shape ", target.sizes(),
              "); class probabilities need a floating target "
              "of the input's shape ",
              x.sizes());
  if (x.dim() == 1) {
    EMBER_CHECK(target.dim() == 0 || (target.dim() == 1 && target.size(0) == 1), ValueError, op,
                ": for an input of shape ", x.sizes(),
                " (C), expected a 0-d target or one of shape (1), "
                "but got target of shape ",
                target.sizes());
  } else {
    EMBER_CHECK(target.dim() >= 1 && target.size(0) == x.size(0), ValueError, op,
                ": expected input batch size (", x.size(0),
                ") to match target batch size, but got "
                "input of shape ",
                x.sizes(), " and target of shape ", target.sizes());
    EMBER_CHECK(target.sizes() == s.loss_shape, Error, op, ": expected target of shape ",
                s.loss_shape, " for input of shape ", x.sizes(), ", but got target of shape ",
                target.sizes());
  }
  NoGradGuard no_grad;
  Tensor t = to_dtype(target, DType::Int64);
  return contiguous(x.dim() == 1 ? reshape(t, {}) : t);
}

void check_class_weight(const Tensor& w, const Tensor& x, int64_t classes, const char* op) {
  if (!w.defined()) return;
  EMBER_CHECK(w.dim() == 1 && w.numel() == classes, Error, op,
              ": weight should have one value per class (", classes, "), but got weight of shape ",
              w.sizes(), " for input of shape ", x.sizes());
}

void check_targets_in_range(const Tensor& t, int64_t classes, int64_t ignore_index,
                            const char* op) {
  const int64_t bad = kernels::find_bad_target(t.data<int64_t>(), t.numel(), classes, ignore_index);
  EMBER_CHECK(bad < 0, IndexError, op, ": target ", bad < 0 ? 0 : t.data<int64_t>()[bad],
              " is out of bounds for ", classes, " classes (valid targets are 0 to ", classes - 1,
              ", or ignore_index ", ignore_index, ")");
}

void check_smoothing(double eps, const char* op) {
  EMBER_CHECK(!(eps > 1.0) && !std::isnan(eps), Error, op,
              ": label_smoothing must be between 0.0 and 1.0, but got ", eps);
}

ClassLoss class_args(const ClassShape& s, const Tensor& t, const Tensor& w, int64_t ignore_index,
                     double eps) {
  ClassLoss a;
  a.outer = s.outer;
  a.classes = s.classes;
  a.inner = s.inner;
  a.target = t.defined() ? t.data<int64_t>() : nullptr;
  a.weight = w.defined() ? w.data_ptr() : nullptr;
  a.ignore_index = ignore_index;
  a.smoothing = eps > 0 ? eps : 0;  // PyTorch ignores a negative label_smoothing
  return a;
}

// ---- cross entropy and nll with class indices ------------------------------------------------

// The gradient of cross entropy (softmax) or nll with ember ops (create_graph): with
// wt = w[t] at non-ignored positions (0 at ignored ones) and gi the outer gradient,
//   nll: -gi * wt * onehot(t)
//   ce:  gi * ((1 - s) * wt * (softmax - onehot) + s / C * valid * (sum(w) * softmax - w)).
Tensor class_backward_ops(bool softmax_input, const Tensor& g, const Tensor& x, const Tensor& t,
                          const Tensor& w, const ClassLoss& a, Reduction r, double divisor,
                          int64_t cdim) {
  Tensor valid = ne(t, Scalar(a.ignore_index));
  Tensor tc = masked_fill(t, logical_not(valid), Scalar(int64_t(0)));
  Tensor onehot = scatter(zeros(x.sizes(), x.dtype()), cdim, unsqueeze(tc, cdim), Scalar(1.0));
  Tensor vt = to_dtype(valid, x.dtype());
  Tensor wt = w.defined() ? mul(reshape(index_select(w, 0, reshape(tc, {-1})), t.sizes()), vt) : vt;
  Tensor gi = outer_grad_ops(g, r, divisor);
  Tensor coef = unsqueeze(mul(gi, wt), cdim);
  if (!softmax_input) return neg(mul(onehot, coef));
  Tensor p = softmax(x, cdim);
  Tensor gx = mul(sub(p, onehot), mul(coef, Scalar(1 - a.smoothing)));
  if (a.smoothing > 0) {
    Dims wshape(IntList(x.sizes()));
    for (auto& d : wshape) d = 1;
    wshape[cdim] = a.classes;
    Tensor wb = w.defined() ? reshape(w, wshape) : ones(wshape, x.dtype());
    Tensor sw = w.defined() ? sum(w) : scalar_tensor(Scalar(double(a.classes)), x.dtype());
    Tensor share = unsqueeze(mul(gi, mul(vt, Scalar(a.smoothing / double(a.classes)))), cdim);
    gx = add(gx, mul(share, sub(mul(p, sw), wb)));
  }
  return gx;
}

// The gradient of cross_entropy (softmax_input) or nll_loss with class-index targets, by
// the kernels. `lse` is the forward's log-sum-exp per position (cross entropy), or undefined:
// then it is computed again, with the same bits. A recording (Note [Expanded backward] in
// docs/compile.md) keeps this as one call, so the outer gradient is read at each replay.
Tensor class_index_backward(bool softmax_input, const Tensor& g, const Tensor& x, const Tensor& t,
                            const Tensor& w, const Tensor& lse, kernels::ClassLoss a, Reduction r,
                            Dims loss_shape, double divisor) {
  EMBER_RECORD(class_index_backward, softmax_input, g, x, t, w, lse, a, r, loss_shape, divisor);
  a.target = t.data<int64_t>();
  a.weight = w.defined() ? w.data_ptr() : nullptr;
  const OuterGrad og = outer_grad(g, r, divisor, x.dtype(), loss_shape);
  Tensor gx = Tensor::empty(x.sizes(), x.dtype());
  if (!softmax_input) {
    kernels::nll_loss_backward(x.dtype(), a, og.ptr(), og.scale, gx.data_ptr());
    return gx;
  }
  const Tensor xd = dense(x);
  Tensor l = lse;
  if (!l.defined()) {
    l = Tensor::empty({a.positions()}, x.dtype());
    kernels::cross_entropy(x.dtype(), a, xd.data_ptr(), nullptr, l.data_ptr());
  }
  kernels::cross_entropy_backward(x.dtype(), a, xd.data_ptr(), l.data_ptr(), og.ptr(), og.scale,
                                  gx.data_ptr());
  return gx;
}

// cross_entropy (softmax_input) or nll_loss with class-index targets.
Tensor class_index_loss(bool softmax_input, const Tensor& input, const Tensor& target,
                        const Tensor& weight, Reduction r, int64_t ignore_index, double eps,
                        const char* op) {
  const ClassShape s = class_shape(input, op);
  const Tensor t = class_target(input, target, s, op);
  check_class_weight(weight, input, s.classes, op);
  EMBER_CHECK(!weight.defined() || weight.dtype() == input.dtype(), Error, op,
              ": expected weight of dtype ", dtype_name(input.dtype()), " (the input's), but got ",
              dtype_name(weight.dtype()));
  check_no_grad(weight, op, "weight");
  check_targets_in_range(t, s.classes, ignore_index, op);
  if (is_half(input.dtype()))  // in float32, through differentiable casts: Note [Half losses]
    return to_dtype(class_index_loss(softmax_input, to_dtype(input, DType::Float32), target,
                                     as_float32(weight), r, ignore_index, eps, op),
                    input.dtype());

  const DType dt = input.dtype();
  const Tensor x = dense(input), w = weight.defined() ? dense(weight) : Tensor();
  const ClassLoss a = class_args(s, t, w, ignore_index, eps);
  const bool grad = autograd::any_requires_grad(input);
  Tensor out = r == Reduction::None ? Tensor::empty(s.loss_shape, dt) : Tensor();
  Tensor lse = softmax_input && grad ? Tensor::empty({a.positions()}, dt) : Tensor();
  char* per = out.defined() ? out.data_ptr() : nullptr;
  const LossSums sums = softmax_input
                            ? kernels::cross_entropy(dt, a, x.data_ptr(), per,
                                                     lse.defined() ? lse.data_ptr() : nullptr)
                            : kernels::nll_loss(dt, a, x.data_ptr(), per);
  if (r != Reduction::None) out = loss_scalar(reduce_value(sums, r), dt);
  if (!grad) return out;

  autograd::record(softmax_input ? "CrossEntropyLossBackward0" : "NllLossBackward0", {&input},
                   {&out},
                   [softmax_input, sx = SavedTensor(input), st = SavedTensor(t),
                    sw = w.defined() ? SavedTensor(w) : SavedTensor(), lse, a, r, s,
                    divisor = sums.weight](Grads& g, const Node&) -> Grads {
                     const Tensor x = sx.get(), t = st.get(), w = sw.get();
                     if (GradMode::is_enabled())  // create_graph
                       return {
                           class_backward_ops(softmax_input, g[0], x, t, w, a, r, divisor, s.cdim)};
                     // lse was made inside the forward, unseen by a recording: recomputed
                     return {class_index_backward(softmax_input, g[0], x, t, w,
                                                  capture::recording() ? Tensor() : lse, a, r,
                                                  s.loss_shape, divisor)};
                   });
  return out;
}

// ---- cross entropy with class probabilities ------------------------------------------------

// The gradients with ember ops (create_graph), q = (1 - s) * y + s / C, wb = w along cdim:
//   gx = gi * (softmax * sum(wb * q, cdim) - wb * q), gy = -gi * (1 - s) * wb * log_softmax,
//   gw = -sum over positions of gi * q * log_softmax.
Grads probs_backward_ops(const Tensor& g, const Tensor& x, const Tensor& y, const Tensor& w,
                         const ClassLoss& a, Reduction r, double divisor, int64_t cdim,
                         const Node& n) {
  const double keep = 1 - a.smoothing, share = a.smoothing / double(a.classes);
  Tensor gi = outer_grad_ops(g, r, divisor);
  if (r == Reduction::None) gi = unsqueeze(gi, cdim);  // per position: broadcast over classes
  Tensor q = a.smoothing > 0 ? add(mul(y, Scalar(keep)), Scalar(share)) : y;
  Dims wshape(IntList(x.sizes()));
  for (auto& d : wshape) d = 1;
  wshape[cdim] = a.classes;
  Tensor wb = w.defined() ? reshape(w, wshape) : Tensor();
  Tensor wq = w.defined() ? mul(wb, q) : q;
  Tensor lsm = log_softmax(x, cdim);
  Grads out(n.next_edges.size());
  if (n.needs_input_grad(0)) {
    Dims cd{cdim};
    out[0] = mul(gi, sub(mul(exp(lsm), sum(wq, cd, true)), wq));
  }
  if (n.needs_input_grad(1)) {
    Tensor gy = mul(mul(gi, lsm), Scalar(-keep));
    out[1] = w.defined() ? mul(gy, wb) : gy;
  }
  if (w.defined() && n.needs_input_grad(2)) {
    Dims others;
    for (int64_t d = 0; d < x.dim(); ++d)
      if (d != cdim) others.push_back(d);
    Tensor e = mul(mul(gi, q), lsm);
    out[2] = neg(others.empty() ? e : sum(e, others));
  }
  return out;
}

Tensor cross_entropy_probs(const Tensor& input, const Tensor& target, const Tensor& weight,
                           Reduction r, double eps) {
  const char* op = "cross_entropy";
  EMBER_CHECK(
      is_floating_point(target.dtype()), Error, op,
      ": expected a floating target for class probabilities (a target of the input's shape ",
      input.sizes(), "), but got ", dtype_name(target.dtype()),
      "; class indices need a target without the class dim");
  const ClassShape s = class_shape(input, op);
  check_class_weight(weight, input, s.classes, op);
  if (eps > 0) check_smoothing(eps, op);
  // Mixed float dtypes promote (PyTorch computes log_softmax(x) * y * w).
  DType dt = promote_types(input.dtype(), target.dtype());
  if (weight.defined()) dt = promote_types(dt, weight.dtype());
  if (is_half(dt))  // Note [Half losses]
    return to_dtype(cross_entropy_probs(to_dtype(input, DType::Float32),
                                        to_dtype(target, DType::Float32), as_float32(weight), r,
                                        eps),
                    dt);
  const Tensor x = as_dtype(input, dt), y = as_dtype(target, dt);
  const Tensor w = weight.defined() ? as_dtype(weight, dt) : Tensor();

  const Tensor xd = dense(x), yd = dense(y), wd = w.defined() ? dense(w) : Tensor();
  const ClassLoss a = class_args(s, Tensor(), wd, -100, eps);
  const bool grad =
      autograd::any_requires_grad(x, y) || (w.defined() && autograd::any_requires_grad(w));
  Tensor out = r == Reduction::None ? Tensor::empty(s.loss_shape, dt) : Tensor();
  Tensor lse = grad ? Tensor::empty({a.positions()}, dt) : Tensor();
  const LossSums sums = kernels::cross_entropy_probs(dt, a, xd.data_ptr(), yd.data_ptr(),
                                                     out.defined() ? out.data_ptr() : nullptr,
                                                     lse.defined() ? lse.data_ptr() : nullptr);
  if (r != Reduction::None) out = loss_scalar(reduce_value(sums, r), dt);
  if (!grad) return out;

  std::vector<Tensor> inputs{x, y};
  if (w.defined()) inputs.push_back(w);
  autograd::record("CrossEntropyLossBackward0", inputs, {out},
                   [sx = SavedTensor(x), sy = SavedTensor(y),
                    sw = w.defined() ? SavedTensor(w) : SavedTensor(), lse, a, r, s,
                    divisor = sums.weight](Grads& g, const Node& n) -> Grads {
                     const Tensor x = sx.get(), y = sy.get(), w = sw.get();
                     if (GradMode::is_enabled() || (w.defined() && n.needs_input_grad(2)))
                       return probs_backward_ops(g[0], x, y, w, a, r, divisor, s.cdim, n);
                     const Tensor xd = dense(x), yd = dense(y),
                                  wd = w.defined() ? dense(w) : Tensor();
                     ClassLoss b = a;
                     b.weight = wd.defined() ? wd.data_ptr() : nullptr;
                     const OuterGrad og = outer_grad(g[0], r, divisor, x.dtype(), s.loss_shape);
                     Tensor gx =
                         n.needs_input_grad(0) ? Tensor::empty(x.sizes(), x.dtype()) : Tensor();
                     Tensor gy =
                         n.needs_input_grad(1) ? Tensor::empty(x.sizes(), x.dtype()) : Tensor();
                     kernels::cross_entropy_probs_backward(x.dtype(), b, xd.data_ptr(),
                                                           yd.data_ptr(), lse.data_ptr(), og.ptr(),
                                                           og.scale,
                                                           gx.defined() ? gx.data_ptr() : nullptr,
                                                           gy.defined() ? gy.data_ptr() : nullptr);
                     if (n.next_edges.size() > 2) return {gx, gy, Tensor()};  // the weight's
                     return {gx, gy};
                   });
  return out;
}

// ---- pointwise losses --------------------------------------------------------------------------

// log(sigmoid(x)) with ember ops, stable for any x.
Tensor log_sigmoid_ops(const Tensor& x) {
  return sub(minimum(x, Scalar(0.0)), log1p(exp(neg(abs(x)))));
}

// d loss / dx, d loss / dy with ember ops (create_graph), in the broadcast shape.
std::pair<Tensor, Tensor> point_backward_ops(PointLoss kind, const Tensor& g, const Tensor& x,
                                             const Tensor& y, const Tensor& w, const Tensor& pw,
                                             Reduction r, double n) {
  Tensor gi = outer_grad_ops(g, r, n);
  if (w.defined()) gi = mul(gi, w);
  Tensor dx, dy;
  switch (kind) {
    case PointLoss::Mse: dx = mul(sub(x, y), Scalar(2.0)), dy = neg(dx); break;
    case PointLoss::L1: dx = sign(sub(x, y)), dy = neg(dx); break;
    case PointLoss::Bce:
      dx = div(sub(x, y), clamp(mul(x, sub(Scalar(1.0), x)), Scalar(1e-12), std::nullopt));
      dy = neg(log(div(x, sub(Scalar(1.0), x))));
      break;
    case PointLoss::BceLogits:
      if (pw.defined()) {
        Tensor py = mul(pw, y);
        dx = sub(mul(sub(add(py, Scalar(1.0)), y), sigmoid(x)), py);
        dy = sub(log_sigmoid_ops(neg(x)), mul(pw, log_sigmoid_ops(x)));
      } else {
        dx = sub(sigmoid(x), y), dy = neg(x);
      }
      break;
  }
  return {mul(dx, gi), mul(dy, gi)};
}

void check_unit_range(const Tensor& t, const char* what, const char* op) {
  const int64_t bad = kernels::find_outside_unit(t.dtype(), t.data_ptr(), t.numel());
  EMBER_CHECK(bad < 0, Error, op, ": all elements of ", what,
              " should be between 0 and 1, but found ",
              bad < 0                       ? 0.0
              : t.dtype() == DType::Float64 ? t.data<double>()[bad]
                                            : double(t.data<float>()[bad]));
}

// A pointwise loss of x and y (one floating dtype, broadcast together) with optional weight
// and pos_weight (same dtype, broadcastable to that shape, never requiring grad).
Tensor point_loss(PointLoss kind, const Tensor& x, const Tensor& y, const Tensor& w,
                  const Tensor& pw, Reduction r, const char* op, const char* node) {
  if (is_half(x.dtype()))  // Note [Half losses]
    return to_dtype(point_loss(kind, to_dtype(x, DType::Float32), to_dtype(y, DType::Float32),
                               as_float32(w), as_float32(pw), r, op, node),
                    x.dtype());
  const Dims shape =
      x.sizes() == y.sizes() ? x.sizes() : broadcast_shapes(x.sizes(), y.sizes(), op);
  const DType dt = x.dtype();
  const Tensor xd = dense(x, shape), yd = dense(y, shape);
  const Tensor wd = w.defined() ? dense(w, shape) : Tensor(),
               pwd = pw.defined() ? dense(pw, shape) : Tensor();
  if (kind == PointLoss::Bce) {
    check_unit_range(xd, "input", op);
    check_unit_range(yd, "target", op);
  }
  kernels::PointArgs a;
  a.n = numel_of(shape);
  a.x = xd.data_ptr(), a.y = yd.data_ptr();
  a.w = wd.defined() ? wd.data_ptr() : nullptr, a.pw = pwd.defined() ? pwd.data_ptr() : nullptr;
  Tensor out = r == Reduction::None ? Tensor::empty(shape, dt) : Tensor();
  const double total = kernels::point_loss(kind, dt, a, out.defined() ? out.data_ptr() : nullptr);
  if (r != Reduction::None) out = loss_scalar(reduce_value({total, double(a.n)}, r), dt);
  if (!autograd::any_requires_grad(x, y)) return out;

  autograd::record(node, {&x, &y}, {&out},
                   [kind, sx = SavedTensor(x), sy = SavedTensor(y), wd, pwd, r,
                    shape](Grads& g, const Node& n) -> Grads {
                     const Tensor x = sx.get(), y = sy.get();
                     const double count = double(numel_of(shape));
                     const bool nx = n.needs_input_grad(0), ny = n.needs_input_grad(1);
                     Tensor gx, gy;
                     if (GradMode::is_enabled()) {  // create_graph
                       auto d = point_backward_ops(kind, g[0], x, y, wd, pwd, r, count);
                       gx = d.first, gy = d.second;
                     } else {
                       const Tensor xd = dense(x, shape), yd = dense(y, shape);
                       kernels::PointArgs a;
                       a.n = numel_of(shape);
                       a.x = xd.data_ptr(), a.y = yd.data_ptr();
                       a.w = wd.defined() ? wd.data_ptr() : nullptr,
                       a.pw = pwd.defined() ? pwd.data_ptr() : nullptr;
                       const OuterGrad og = outer_grad(g[0], r, count, x.dtype(), shape);
                       if (nx) gx = Tensor::empty(shape, x.dtype());
                       if (ny) gy = Tensor::empty(shape, x.dtype());
                       kernels::point_loss_backward(kind, x.dtype(), a, og.ptr(), og.scale,
                                                    nx ? gx.data_ptr() : nullptr,
                                                    ny ? gy.data_ptr() : nullptr);
                     }
                     return {nx ? autograd::sum_to(gx, x.sizes()) : Tensor(),
                             ny ? autograd::sum_to(gy, y.sizes()) : Tensor()};
                   });
  return out;
}

// A weight of a pointwise loss: in dtype dt, broadcastable to `shape` without growing it.
Tensor point_weight(const Tensor& w, IntList shape, DType dt, const char* op, const char* name) {
  if (!w.defined()) return w;
  check_no_grad(w, op, name);
  const Dims b = broadcast_shapes(w.sizes(), shape, op);
  EMBER_CHECK(b == Dims(shape), Error, op, ": ", name, " of shape ", w.sizes(),
              " cannot be broadcast to the input's shape ", Dims(shape));
  NoGradGuard no_grad;
  return as_dtype(w, dt);
}

// mse_loss / l1_loss: x and y in their promoted floating dtype.
Tensor diff_loss(PointLoss kind, const Tensor& input, const Tensor& target, Reduction r,
                 const char* op, const char* node) {
  ops::check_defined(input, op);
  ops::check_defined(target, op);
  const DType dt = promote_types(input.dtype(), target.dtype());
  EMBER_CHECK(is_floating_point(dt), TypeError, op,
              ": expected floating point input and target, but got ", dtype_name(input.dtype()),
              " and ", dtype_name(target.dtype()));
  return point_loss(kind, as_dtype(input, dt), as_dtype(target, dt), Tensor(), Tensor(), r, op,
                    node);
}

}  // namespace

// ---- the public ops -----------------------------------------------------------------------------

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                     Reduction reduction, int64_t ignore_index, double label_smoothing) {
  EMBER_RECORD(cross_entropy, input, target, weight, reduction, ignore_index, label_smoothing);
  EMBER_PROFILE_OP("cross_entropy");
  if (autocast::is_enabled()) {  // Note [Autocast]: a float32 op
    autocast::Suspend off;
    return cross_entropy(autocast::fp32(input), target, autocast::fp32(weight), reduction,
                         ignore_index, label_smoothing);
  }
  const char* op = "cross_entropy";
  ops::check_defined(input, op);
  ops::check_defined(target, op);
  ops::check_floating_input(input, op);
  EMBER_CHECK(input.dim() >= 1, ValueError, op,
              ": expected an input of shape (C), (N, C) or (N, C, d1, ...), but got a 0-d input");
  // A target of the input's shape holds class probabilities (PyTorch's rule).
  if (target.sizes() == input.sizes())
    return cross_entropy_probs(input, target, weight, reduction, label_smoothing);
  if (label_smoothing > 0) check_smoothing(label_smoothing, op);
  return class_index_loss(true, input, target, weight, reduction, ignore_index, label_smoothing,
                          op);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                Reduction reduction, int64_t ignore_index) {
  EMBER_RECORD(nll_loss, input, target, weight, reduction, ignore_index);
  EMBER_PROFILE_OP("nll_loss");
  if (autocast::is_enabled()) {  // Note [Autocast]: a float32 op
    autocast::Suspend off;
    return nll_loss(autocast::fp32(input), target, autocast::fp32(weight), reduction, ignore_index);
  }
  const char* op = "nll_loss";
  ops::check_defined(input, op);
  ops::check_defined(target, op);
  ops::check_floating_input(input, op);
  return class_index_loss(false, input, target, weight, reduction, ignore_index, 0.0, op);
}

namespace {
// mse_loss and l1_loss (`self`): float32 ops under autocast (Note [Autocast]), else diff_loss.
Tensor autocast_diff_loss(Tensor (*self)(const Tensor&, const Tensor&, Reduction), PointLoss kind,
                          const Tensor& input, const Tensor& target, Reduction reduction,
                          const char* op, const char* node) {
  if (autocast::is_enabled()) {
    autocast::Suspend off;
    return self(autocast::fp32(input), autocast::fp32(target), reduction);
  }
  return diff_loss(kind, input, target, reduction, op, node);
}
}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  EMBER_RECORD(mse_loss, input, target, reduction);
  EMBER_PROFILE_OP("mse_loss");
  return autocast_diff_loss(mse_loss, PointLoss::Mse, input, target, reduction, "mse_loss",
                            "MseLossBackward0");
}

Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  EMBER_RECORD(l1_loss, input, target, reduction);
  EMBER_PROFILE_OP("l1_loss");
  return autocast_diff_loss(l1_loss, PointLoss::L1, input, target, reduction, "l1_loss",
                            "L1LossBackward0");
}

namespace {
// binary_cross_entropy(_with_logits): both defined, a floating input, a target of its shape.
void check_bce_operands(const Tensor& input, const Tensor& target, const char* op) {
  ops::check_defined(input, op);
  ops::check_defined(target, op);
  ops::check_floating_input(input, op);
  EMBER_CHECK(target.sizes() == input.sizes(), ValueError, op,
              ": expected a target of the input's shape ", input.sizes(),
              ", but got target of shape ", target.sizes());
}
}  // namespace

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            Reduction reduction) {
  EMBER_RECORD(binary_cross_entropy, input, target, weight, reduction);
  EMBER_PROFILE_OP("binary_cross_entropy");
  if (autocast::is_enabled()) {  // Note [Autocast]: a float32 op
    autocast::Suspend off;
    return binary_cross_entropy(autocast::fp32(input), autocast::fp32(target),
                                autocast::fp32(weight), reduction);
  }
  const char* op = "binary_cross_entropy";
  check_bce_operands(input, target, op);
  EMBER_CHECK(target.dtype() == input.dtype(), Error, op, ": expected a target of dtype ",
              dtype_name(input.dtype()), " (the input's), but got ", dtype_name(target.dtype()));
  const Tensor w = point_weight(weight, input.sizes(), input.dtype(), op, "weight");
  return point_loss(PointLoss::Bce, input, target, w, Tensor(), reduction, op,
                    "BinaryCrossEntropyBackward0");
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight, const Tensor& pos_weight,
                                        Reduction reduction) {
  EMBER_RECORD(binary_cross_entropy_with_logits, input, target, weight, pos_weight, reduction);
  EMBER_PROFILE_OP("binary_cross_entropy_with_logits");
  if (autocast::is_enabled()) {  // Note [Autocast]: a float32 op
    autocast::Suspend off;
    return binary_cross_entropy_with_logits(autocast::fp32(input), autocast::fp32(target),
                                            autocast::fp32(weight), autocast::fp32(pos_weight),
                                            reduction);
  }
  const char* op = "binary_cross_entropy_with_logits";
  check_bce_operands(input, target, op);
  EMBER_CHECK(is_floating_point(target.dtype()), Error, op,
              ": expected a floating point target, but got ", dtype_name(target.dtype()));
  const DType dt = promote_types(input.dtype(), target.dtype());
  const Tensor w = point_weight(weight, input.sizes(), dt, op, "weight");
  const Tensor pw = point_weight(pos_weight, input.sizes(), dt, op, "pos_weight");
  return point_loss(PointLoss::BceLogits, as_dtype(input, dt), as_dtype(target, dt), w, pw,
                    reduction, op, "BinaryCrossEntropyWithLogitsBackward0");
}

}  // namespace ember
