// smooth_l1_loss and huber_loss (ember/functional.h): losses that are quadratic near zero
// and linear beyond, composed of ember ops (their gradients come from those ops), with the
// same formulas as ember.nn.functional's.
#include "ember/functional.h"
#include "ember/profiler.h"
#include "ops/iter.h"

namespace ember {
namespace {

Tensor reduce(const Tensor& loss, Reduction r) {
  switch (r) {
    case Reduction::None: return loss;
    case Reduction::Sum: return sum(loss);
    case Reduction::Mean: break;
  }
  return mean(loss);
}

// |input - target| in their promoted floating dtype, broadcast (the shapes are checked by sub).
Tensor abs_diff(const Tensor& input, const Tensor& target, const char* op) {
  ops::check_defined(input, op);
  ops::check_defined(target, op);
  const DType dt = promote_types(input.dtype(), target.dtype());
  EMBER_CHECK(is_floating(dt), TypeError, op,
              ": expected floating point input and target, but got ", dtype_name(input.dtype()),
              " and ", dtype_name(target.dtype()));
  return abs(sub(input, target));
}

}  // namespace

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction, double beta) {
  EMBER_PROFILE_OP("smooth_l1_loss");
  EMBER_CHECK(beta >= 0, Error, "smooth_l1_loss does not support negative values for beta, got ",
              beta);
  const Tensor z = abs_diff(input, target, "smooth_l1_loss");
  if (beta == 0.0) return reduce(z, reduction);
  Tensor quadratic = div(mul(mul(z, Scalar(0.5)), z), Scalar(beta));
  return reduce(where(lt(z, Scalar(beta)), quadratic, sub(z, Scalar(0.5 * beta))), reduction);
}

Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction, double delta) {
  EMBER_PROFILE_OP("huber_loss");
  EMBER_CHECK(delta > 0, Error, "huber_loss does not support non-positive values for delta, got ",
              delta);
  const Tensor z = abs_diff(input, target, "huber_loss");
  Tensor quadratic = mul(mul(z, Scalar(0.5)), z);
  Tensor linear_part = mul(sub(z, Scalar(0.5 * delta)), Scalar(delta));
  return reduce(where(lt(z, Scalar(delta)), quadratic, linear_part), reduction);
}

}  // namespace ember
