// The special functions of ops.def's EMBER_SPECIAL_UNARY rows (hyperbolic, inverse
// trigonometric, log10, exp2, erfinv), the float classifiers (isnan, ...) and the fused-arithmetic
// composites (lerp, addcmul, addcdiv).
#include <cmath>

#include "autograd/function.h"
#include "ember/complex.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/special.h"
#include "ops/iter.h"

namespace ember {

using autograd::SavedTensor;
using kernels::ClassifyOp;
using kernels::SpecialOp;

namespace {

Tensor special_out(SpecialOp op, const char* name, const Tensor& a) {
  ops::check_defined(a, name);
  const DType dt = real_float_dtype(a.dtype());
  Tensor A = to_dtype(a, dt);
  Tensor out = Tensor::empty(a.sizes(), dt);
  kernels::special(op, dt, ops::make_loop(a.sizes(), {&out, &A}));
  return out;
}

// d/da of each op, written with ops so that it is differentiable again.
Tensor special_backward(SpecialOp op, const Tensor& g, const Tensor& a, const Tensor& out) {
  switch (op) {
    case SpecialOp::Sinh: return mul(g, cosh(a));
    case SpecialOp::Cosh: return mul(g, sinh(a));
    case SpecialOp::Asinh: return mul(g, rsqrt(add(mul(a, a), Scalar(1.0))));
    case SpecialOp::Acosh: return mul(g, rsqrt(sub(mul(a, a), Scalar(1.0))));
    case SpecialOp::Atanh: return div(g, sub(Scalar(1.0), mul(a, a)));
    case SpecialOp::Erfinv:  // sqrt(pi) / 2 * exp(erfinv(a)^2)
      return mul(g, mul(exp(mul(out, out)), Scalar(std::sqrt(M_PI) / 2)));
    case SpecialOp::Acos: return neg(mul(g, rsqrt(sub(Scalar(1.0), mul(a, a)))));
    case SpecialOp::Asin: return mul(g, rsqrt(sub(Scalar(1.0), mul(a, a))));
    case SpecialOp::Atan: return div(g, add(mul(a, a), Scalar(1.0)));
    case SpecialOp::Log10: return div(g, mul(a, Scalar(M_LN10)));
    case SpecialOp::Exp2: return mul(g, mul(out, Scalar(M_LN2)));
  }
  return g;
}

Tensor special_op(SpecialOp op, const char* name, const char* node, const Tensor& a) {
  Tensor out = special_out(op, name, a);
  if (autograd::any_requires_grad(a)) {
    const bool from_out = op == SpecialOp::Erfinv || op == SpecialOp::Exp2;  // grad from the result
    autograd::record(node, {&a}, {&out},
                     [op, sa = from_out ? SavedTensor() : SavedTensor(a),
                      so = from_out ? SavedTensor(out, true) : SavedTensor()](Grads& g, const Node&)
                         -> Grads { return {special_backward(op, g[0], sa.get(), so.get())}; });
  }
  return out;
}

Tensor& special_inplace(SpecialOp op, const char* name, Tensor& a, Tensor (*f)(const Tensor&)) {
  ops::check_defined(a, name);
  EMBER_CHECK(is_floating_point(a.dtype()), Error, name,
              ": result type Float can't be cast to the "
              "desired output type ",
              dtype_name(a.dtype()));
  if (autograd::any_requires_grad(a)) return autograd::apply_inplace(a, name, f);
  ops::check_no_internal_overlap(a, name);
  kernels::special(op, a.dtype(), ops::make_loop(a.sizes(), {&a, &a}));
  a.bump_version();
  return a;
}

Tensor classify_op(ClassifyOp op, const char* name, const Tensor& a) {
  EMBER_RECORD(classify_op, op, name, a);
  EMBER_PROFILE_OP(name);
  ops::check_defined(a, name);
  if (is_complex(a.dtype())) {  // from the parts: NaN/inf if either part is, finite if both are
    EMBER_CHECK(op == ClassifyOp::IsNan || op == ClassifyOp::IsInf || op == ClassifyOp::IsFinite,
                Error, name, ": does not support complex inputs");
    Tensor re = classify_op(op, name, real(a)), im = classify_op(op, name, imag(a));
    return op == ClassifyOp::IsFinite ? logical_and(re, im) : logical_or(re, im);
  }
  if (!is_floating_point(a.dtype()))
    return full(a.sizes(), Scalar(op == ClassifyOp::IsFinite), DType::Bool);
  Tensor out = Tensor::empty(a.sizes(), DType::Bool);
  kernels::classify(op, a.dtype(), ops::make_loop(a.sizes(), {&out, &a}));
  return out;
}

}  // namespace

#define EMBER_SPECIAL_UNARY(name, Enum)                              \
  Tensor name(const Tensor& a) {                                     \
    EMBER_PROFILE_OP(#name);                                         \
    return special_op(SpecialOp::Enum, #name, #Enum "Backward0", a); \
  }                                                                  \
  Tensor& name##_(Tensor& a) {                                       \
    EMBER_PROFILE_OP(#name "_");                                     \
    return special_inplace(SpecialOp::Enum, #name "_", a,            \
                           [](const Tensor& x) { return name(x); }); \
  }
#include "ember/ops.def"
#undef EMBER_SPECIAL_UNARY

Tensor isnan(const Tensor& a) { return classify_op(ClassifyOp::IsNan, "isnan", a); }
Tensor isinf(const Tensor& a) { return classify_op(ClassifyOp::IsInf, "isinf", a); }
Tensor isposinf(const Tensor& a) { return classify_op(ClassifyOp::IsPosInf, "isposinf", a); }
Tensor isneginf(const Tensor& a) { return classify_op(ClassifyOp::IsNegInf, "isneginf", a); }
Tensor isfinite(const Tensor& a) { return classify_op(ClassifyOp::IsFinite, "isfinite", a); }

// ---- lerp, addcmul, addcdiv ------------------------------------------------------------
// One fused kernel pass when no graph is needed and every operand has the same floating
// dtype (the optimizers' case); otherwise composites of ops, which record the gradients.
namespace {

using kernels::TernaryOp;

void check_lerp(const char* name, const Tensor& start, const Tensor& end, const Tensor* weight) {
  ops::check_defined(start, name);
  ops::check_defined(end, name);
  EMBER_CHECK(is_floating_point(start.dtype()), NotImplementedError, name, ": not implemented for ",
              dtype_name(start.dtype()), " tensors (floating point only)");
  EMBER_CHECK(end.dtype() == start.dtype(), Error, name, ": expected dtype ",
              dtype_name(start.dtype()), " for `end` but got dtype ", dtype_name(end.dtype()));
  if (!weight) return;
  ops::check_defined(*weight, name);
  EMBER_CHECK(weight->dtype() == start.dtype(), Error, name, ": expected dtype ",
              dtype_name(start.dtype()), " for `weight` but got dtype ",
              dtype_name(weight->dtype()));
}

void check_addc(const char* name, const Tensor& self, const Tensor& t1, const Tensor& t2) {
  ops::check_defined(self, name);
  ops::check_defined(t1, name);
  ops::check_defined(t2, name);
}

bool fusable(const Tensor& a, const Tensor& b, const Tensor& c) {
  return is_floating(a.dtype()) && b.dtype() == a.dtype() && c.dtype() == a.dtype() &&
         !autograd::any_requires_grad(a, b, c);
}

Tensor fused(TernaryOp op, const char* name, const Tensor& a, const Tensor& b, const Tensor& c,
             double v) {
  Dims shape = broadcast_shapes(broadcast_shapes(a.sizes(), b.sizes(), name), c.sizes(), name);
  Tensor out = Tensor::empty(shape, a.dtype());
  kernels::ternary(op, a.dtype(), ops::make_loop(shape, {&out, &a, &b, &c}), v);
  return out;
}

// `t` may be read while `self` is written when it is `self` element for element, or
// elsewhere in memory.
bool no_partial_overlap(const Tensor& self, const Tensor& t) {
  return t.storage() != self.storage() ||
         (t.offset() == self.offset() && t.strides() == self.strides() &&
          t.sizes() == self.sizes());
}

// The in-place form: the broadcast result must keep self's shape and dtype. `f` computes
// the result out of place (the general path).
template <class F>
Tensor& inplace_via(Tensor& self, const char* name, IntList other_shape, TernaryOp op,
                    const Tensor& b, const Tensor& c, double v, F f) {
  Dims shape = broadcast_shapes(self.sizes(), other_shape, name);
  EMBER_CHECK(shape == self.sizes(), Error, name, ": output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", shape);
  if (autograd::any_requires_grad(self, b, c)) return autograd::apply_inplace(self, name, f);
  ops::check_no_internal_overlap(self, name);
  if (fusable(self, b, c) && no_partial_overlap(self, b) && no_partial_overlap(self, c)) {
    kernels::ternary(op, self.dtype(), ops::make_loop(shape, {&self, &self, &b, &c}), v);
    self.bump_version();
    return self;
  }
  Tensor r = f(self);  // out of place first: `self` may overlap the other operands
  ops::check_result_cast(name, r.dtype(), self.dtype());
  return copy_(self, r);
}

// value converted to the computing dtype (an integer result truncates it, as torch does).
Scalar value_for(Scalar value, DType dt) {
  return is_floating(dt) || value.is_bool() ? value : Scalar(value.to_int());
}

Tensor lerp_ops(const Tensor& start, const Tensor& end, Scalar weight) {
  const double w = weight.to_double();
  Tensor diff = sub(end, start);
  if (std::fabs(w) < 0.5) return add(start, mul(diff, Scalar(w)));
  return sub(end, mul(diff, Scalar(1.0 - w)));
}

Tensor lerp_ops(const Tensor& start, const Tensor& end, const Tensor& weight) {
  Tensor diff = sub(end, start);
  return where(lt(abs(weight), Scalar(0.5)), add(start, mul(weight, diff)),
               sub(end, mul(diff, sub(Scalar(1.0), weight))));
}

}  // namespace

// PyTorch's two-sided formula: for |w| >= 0.5 it computes from `end`, so lerp(a, b, 1) == b.
Tensor lerp(const Tensor& start, const Tensor& end, Scalar weight) {
  EMBER_RECORD(lerp, start, end, weight);
  EMBER_PROFILE_OP("lerp");
  check_lerp("lerp", start, end, nullptr);
  Tensor w = scalar_tensor(weight, start.dtype());
  if (fusable(start, end, w)) return fused(TernaryOp::Lerp, "lerp", start, end, w, 0.0);
  return lerp_ops(start, end, weight);
}

Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight) {
  EMBER_RECORD(lerp, start, end, weight);
  EMBER_PROFILE_OP("lerp");
  check_lerp("lerp", start, end, &weight);
  if (fusable(start, end, weight)) return fused(TernaryOp::Lerp, "lerp", start, end, weight, 0.0);
  return lerp_ops(start, end, weight);
}

Tensor& lerp_(Tensor& self, const Tensor& end, Scalar weight) {
  EMBER_RECORD(lerp_, self, end, weight);
  EMBER_PROFILE_OP("lerp_");
  check_lerp("lerp_", self, end, nullptr);
  Tensor w = scalar_tensor(weight, self.dtype());
  return inplace_via(self, "lerp_", end.sizes(), TernaryOp::Lerp, end, w, 0.0,
                     [&](const Tensor& x) { return lerp(x, end, weight); });
}

Tensor& lerp_(Tensor& self, const Tensor& end, const Tensor& weight) {
  EMBER_RECORD(lerp_, self, end, weight);
  EMBER_PROFILE_OP("lerp_");
  check_lerp("lerp_", self, end, &weight);
  Dims other = broadcast_shapes(end.sizes(), weight.sizes(), "lerp_");
  return inplace_via(self, "lerp_", other, TernaryOp::Lerp, end, weight, 0.0,
                     [&](const Tensor& x) { return lerp(x, end, weight); });
}

Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  EMBER_RECORD(addcmul, self, t1, t2, value);
  EMBER_PROFILE_OP("addcmul");
  check_addc("addcmul", self, t1, t2);
  if (fusable(self, t1, t2))
    return fused(TernaryOp::Addcmul, "addcmul", self, t1, t2, value.to_double());
  broadcast_shapes(broadcast_shapes(self.sizes(), t1.sizes(), "addcmul"), t2.sizes(), "addcmul");
  Tensor p = mul(t1, t2);
  Scalar v = value_for(value, p.dtype());
  return add(self, v.to_double() == 1.0 ? p : mul(p, v));
}

Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  EMBER_RECORD(addcdiv, self, t1, t2, value);
  EMBER_PROFILE_OP("addcdiv");
  check_addc("addcdiv", self, t1, t2);
  EMBER_CHECK(is_floating(t1.dtype()) || is_floating(t2.dtype()), Error,
              "addcdiv: integer division with addcdiv is not supported (tensor1 is ",
              dtype_name(t1.dtype()), ", tensor2 is ", dtype_name(t2.dtype()),
              "); use (input + value * tensor1 / tensor2)");
  if (fusable(self, t1, t2))
    return fused(TernaryOp::Addcdiv, "addcdiv", self, t1, t2, value.to_double());
  broadcast_shapes(broadcast_shapes(self.sizes(), t1.sizes(), "addcdiv"), t2.sizes(), "addcdiv");
  Tensor q = div(t1, t2);
  return add(self, value.to_double() == 1.0 ? q : mul(q, value));
}

Tensor& addcmul_(Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  EMBER_RECORD(addcmul_, self, t1, t2, value);
  EMBER_PROFILE_OP("addcmul_");
  check_addc("addcmul_", self, t1, t2);
  Dims other = broadcast_shapes(t1.sizes(), t2.sizes(), "addcmul_");
  return inplace_via(self, "addcmul_", other, TernaryOp::Addcmul, t1, t2, value.to_double(),
                     [&](const Tensor& x) { return addcmul(x, t1, t2, value); });
}

Tensor& addcdiv_(Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  EMBER_RECORD(addcdiv_, self, t1, t2, value);
  EMBER_PROFILE_OP("addcdiv_");
  check_addc("addcdiv_", self, t1, t2);
  Dims other = broadcast_shapes(t1.sizes(), t2.sizes(), "addcdiv_");
  return inplace_via(self, "addcdiv_", other, TernaryOp::Addcdiv, t1, t2, value.to_double(),
                     [&](const Tensor& x) { return addcdiv(x, t1, t2, value); });
}

}  // namespace ember
