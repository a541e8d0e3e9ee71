// Ops that keep or replace elements by a condition: where (by a bool tensor), masked_fill
// (by a bool mask), clamp (by bounds). Each one's backward masks the gradient the same way.
#include <optional>

#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/index.h"
#include "ops/iter.h"

namespace ember {

using autograd::SavedTensor;

namespace {
DType clamp_dtype(const Tensor& a, const std::optional<Scalar>& lo,
                  const std::optional<Scalar>& hi) {
  DType dt = a.dtype();
  if (lo) dt = promote_types(dt, result_type(a, *lo));
  if (hi) dt = promote_types(dt, result_type(a, *hi));
  return dt;
}
void check_clamp_args(const char* name, DType dt, const std::optional<Scalar>& lo,
                      const std::optional<Scalar>& hi) {
  EMBER_CHECK(lo || hi, ValueError, name, ": at least one of 'min' or 'max' must not be None");
  if (lo) ops::check_scalar_fits(dt, *lo, name);
  if (hi) ops::check_scalar_fits(dt, *hi, name);
}
}  // namespace

Tensor clamp(const Tensor& a, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  EMBER_RECORD(clamp, a, lo, hi);
  EMBER_PROFILE_OP("clamp");
  ops::check_defined(a, "clamp");
  DType dt = clamp_dtype(a, lo, hi);
  check_clamp_args("clamp", dt, lo, hi);
  Tensor A = to_dtype(a, dt);
  Tensor out = ops::empty_like_inputs(a.sizes(), dt, {&A});
  kernels::clamp(dt, ops::make_loop(a.sizes(), {&out, &A}), lo ? &*lo : nullptr,
                 hi ? &*hi : nullptr);
  if (autograd::any_requires_grad(a)) {
    // The gradient passes where lo <= a <= hi (boundaries included, as in PyTorch).
    autograd::record("ClampBackward1", {&a}, {&out},
                     [sa = SavedTensor(a), lo, hi](Grads& g, const Node&) -> Grads {
                       Tensor x = sa.get();
                       Tensor outside =
                           lo ? lt(x, *lo) : gt(x, *hi);  // one mask for a one-sided clamp
                       if (lo && hi) outside = logical_or(outside, gt(x, *hi));
                       return {masked_fill(g[0], outside, Scalar(0.0))};
                     });
  }
  return out;
}

Tensor& clamp_(Tensor& a, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  EMBER_RECORD(clamp_, a, lo, hi);
  EMBER_PROFILE_OP("clamp_");
  ops::check_defined(a, "clamp_");
  if (autograd::any_requires_grad(a))
    return autograd::apply_inplace(a, "clamp_", [&](const Tensor& x) { return clamp(x, lo, hi); });
  ops::check_result_cast("clamp_", clamp_dtype(a, lo, hi), a.dtype());
  check_clamp_args("clamp_", a.dtype(), lo, hi);
  ops::check_no_internal_overlap(a, "clamp_");
  kernels::clamp(a.dtype(), ops::make_loop(a.sizes(), {&a, &a}), lo ? &*lo : nullptr,
                 hi ? &*hi : nullptr);
  a.bump_version();
  return a;
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  EMBER_RECORD(where, cond, a, b);
  EMBER_PROFILE_OP("where");
  ops::check_defined(cond, "where");
  EMBER_CHECK(cond.dtype() == DType::Bool, TypeError,
              "where: expected condition to be a bool tensor, got ", dtype_name(cond.dtype()));
  DType dt = result_type(a, b);
  Dims shape =
      broadcast_shapes(broadcast_shapes(cond.sizes(), a.sizes(), "where"), b.sizes(), "where");
  Tensor A = to_dtype(a, dt), B = to_dtype(b, dt);
  Tensor out = ops::empty_like_inputs(shape, dt, {&cond, &A, &B});
  kernels::where(dt, ops::make_loop(shape, {&out, &cond, &A, &B}));
  if (autograd::any_requires_grad(a, b)) {
    autograd::record("WhereBackward0", {&a, &b}, {&out},
                     [c = SavedTensor(cond), sha = Dims(a.sizes()), shb = Dims(b.sizes()),
                      da = a.dtype(), db = b.dtype()](Grads& g, const Node& n) -> Grads {
                       Tensor m = c.get();
                       return {n.needs_input_grad(0)
                                   ? autograd::sum_to(masked_fill(g[0], logical_not(m),
                                                                  Scalar(0.0)),
                                                      sha, da)
                                   : Tensor(),
                               n.needs_input_grad(1)
                                   ? autograd::sum_to(masked_fill(g[0], m, Scalar(0.0)), shb, db)
                                   : Tensor()};
                     });
  }
  return out;
}

// The scalar becomes a 0-d tensor of the dtype the pair promotes to, checked to fit it first.
static Tensor scalar_operand(const Tensor& other, Scalar v) {
  ops::check_defined(other, "where");
  DType dt = result_type(other, v);
  ops::check_scalar_fits(dt, v, "where");
  return scalar_tensor(v, dt);
}

Tensor where(const Tensor& cond, const Tensor& a, Scalar b) {
  return where(cond, a, scalar_operand(a, b));
}

Tensor where(const Tensor& cond, Scalar a, const Tensor& b) {
  return where(cond, scalar_operand(b, a), b);
}

namespace {
void check_mask(const char* name, const Tensor& t, const Tensor& mask) {
  ops::check_defined(t, name);
  ops::check_defined(mask, name);
  EMBER_CHECK(mask.dtype() == DType::Bool, TypeError, name, ": expected a bool mask, got ",
              dtype_name(mask.dtype()));
  Dims shape = broadcast_shapes(t.sizes(), mask.sizes(), name);
  EMBER_CHECK(shape == t.sizes(), ValueError, name, ": mask of shape ", mask.sizes(),
              " does not broadcast to the tensor's shape ", t.sizes());
}
}  // namespace

Tensor masked_fill(const Tensor& t, const Tensor& mask, Scalar value) {
  EMBER_RECORD(masked_fill, t, mask, value);
  EMBER_PROFILE_OP("masked_fill");
  check_mask("masked_fill", t, mask);
  ops::check_scalar_fits(t.dtype(), value, "masked_fill");
  // A copy, then the in-place fill: two vectorized passes beat one pass of the general
  // three-operand `where` kernel by 10x.
  Tensor out = Tensor::empty(t.sizes(), t.dtype());  // contiguous, as torch's masked_fill
  kernels::cast(t.dtype(), t.dtype(), ops::make_loop(t.sizes(), {&out, &t}));
  kernels::masked_fill(t.dtype(), ops::make_loop(t.sizes(), {&out, &mask}), value);
  if (autograd::any_requires_grad(t)) {
    autograd::record("MaskedFillBackward0", {&t}, {&out},
                     [m = SavedTensor(mask)](Grads& g, const Node&) -> Grads {
                       return {masked_fill(g[0], m.get(), Scalar(0.0))};
                     });
  }
  return out;
}

Tensor& masked_fill_(Tensor& t, const Tensor& mask, Scalar value) {
  EMBER_RECORD(masked_fill_, t, mask, value);
  EMBER_PROFILE_OP("masked_fill_");
  check_mask("masked_fill_", t, mask);
  ops::check_scalar_fits(t.dtype(), value, "masked_fill_");
  if (autograd::any_requires_grad(t))
    return autograd::apply_inplace(t, "masked_fill_",
                                   [&](const Tensor& x) { return masked_fill(x, mask, value); });
  Tensor m = ops::unaliased(t, mask);
  kernels::masked_fill(t.dtype(), ops::make_loop(t.sizes(), {&t, &m}), value);
  t.bump_version();
  return t;
}

}  // namespace ember
