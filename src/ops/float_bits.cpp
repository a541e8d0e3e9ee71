// frexp and nextafter: elementwise over kernels/cpu/float_bits, backward beside forward.
#include "ember/float_bits.h"

#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/float_bits.h"
#include "ops/iter.h"

namespace ember {

std::pair<Tensor, Tensor> frexp(const Tensor& a) {
  EMBER_RECORD(frexp, a);
  EMBER_PROFILE_OP("frexp");
  ops::check_defined(a, "frexp");
  EMBER_CHECK(is_floating(a.dtype()), Error,
              "torch.frexp() only supports floating-point dtypes, got ", dtype_name(a.dtype()));
  Tensor m = ops::empty_like_inputs(a.sizes(), a.dtype(), {&a});
  Tensor e = Tensor::empty(m.sizes(), DType::Int32);
  kernels::frexp(a.dtype(), ops::make_loop(a.sizes(), {&m, &e, &a}));
  if (autograd::any_requires_grad(a)) {
    autograd::record("FrexpBackward0", {&a}, {&m}, [e](Grads& g, const Node&) -> Grads {
      return {div(g[0], exp2(to_dtype(e, g[0].dtype())))};
    });
  }
  return {m, e};
}

namespace {

Tensor nextafter_out(const Tensor& a, const Tensor& b) {
  ops::check_defined(a, "nextafter");
  ops::check_defined(b, "nextafter");
  const DType dt = promote_types(a.dtype(), b.dtype());
  EMBER_CHECK(is_floating(dt), NotImplementedError, "\"nextafter_cpu\" not implemented for '",
              dtype_name(dt), "' (nextafter takes floating tensors, got ", dtype_name(a.dtype()),
              " and ", dtype_name(b.dtype()), ")");
  Dims shape = broadcast_shapes(a.sizes(), b.sizes(), "nextafter");
  Tensor A = to_dtype(a, dt), B = to_dtype(b, dt);
  Tensor out = ops::empty_like_inputs(shape, dt, {&A, &B});
  kernels::nextafter(dt, ops::make_loop(shape, {&out, &A, &B}));
  return out;
}

}  // namespace

Tensor nextafter(const Tensor& a, const Tensor& b) {
  EMBER_RECORD(nextafter, a, b);
  EMBER_PROFILE_OP("nextafter");
  Tensor out = nextafter_out(a, b);
  if (autograd::any_requires_grad(a, b)) {
    // torch's formula: the step is not differentiable; self gets g, other gets zeros.
    autograd::record("NextafterBackward0", {&a, &b}, {&out},
                     [as = Dims(a.sizes()), bs = Dims(b.sizes())](Grads& g,
                                                                  const Node& n) -> Grads {
                       Tensor ga, gb;
                       if (n.needs_input_grad(0)) ga = autograd::sum_to(g[0], as);
                       if (n.needs_input_grad(1)) gb = zeros(bs, g[0].dtype());
                       return {ga, gb};
                     });
  }
  return out;
}

Tensor& nextafter_(Tensor& a, const Tensor& b) {
  EMBER_RECORD(nextafter_, a, b);
  EMBER_PROFILE_OP("nextafter_");
  ops::check_defined(a, "nextafter_");
  ops::check_defined(b, "nextafter_");
  Tensor r = nextafter(a, b);  // checks dtypes and shapes before anything is written
  EMBER_CHECK(r.sizes() == a.sizes(), ValueError, "nextafter_: output with shape ", a.sizes(),
              " doesn't match the broadcast shape ", r.sizes());
  ops::check_result_cast("nextafter_", r.dtype(), a.dtype());
  if (autograd::any_requires_grad(a, b))
    return autograd::apply_inplace(a, "nextafter_",
                                   [&](const Tensor& x) { return nextafter(x, b); });
  ops::check_no_internal_overlap(a, "nextafter_");
  copy_(a, r);
  return a;
}

}  // namespace ember
