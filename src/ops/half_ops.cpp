// Note [Half ops through float32] (ops/half_ops.h).
#include "ops/half_ops.h"

#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember::ops {

Tensor widened(const Tensor& t) {
  if (!t.defined() || !is_half(t.dtype())) return t;
  NoGradGuard no_grad;
  return to_dtype(t, DType::Float32);
}

Tensor narrowed(const Tensor& r, DType dt) {
  if (!r.defined() || !is_half(dt) || r.dtype() == dt) return r;
  NoGradGuard no_grad;
  return to_dtype(r, dt);
}

}  // namespace ember::ops
