// Complex tensors: the views between complex and real storage, and the ops built on them.
// Everything here is a view or a composition of ops on real views, so that the gradients
// follow PyTorch's convention (z.grad = dL/dx + i dL/dy) without a formula of their own,
// except where noted.
#include "ember/complex.h"

#include <cmath>

#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/elementwise.h"
#include "ops/iter.h"

namespace ember {

namespace {

// A view of t's storage with another dtype (offset and strides in that dtype's elements).
Tensor retyped_view(const Tensor& t, Dims sizes, Dims strides, int64_t offset, DType dt) {
  auto view =
      make_intrusive<TensorImpl>(t.storage(), std::move(sizes), std::move(strides), offset, dt);
  view->own_version_ = t.impl()->own_version_;
  return Tensor(std::move(view));
}

}  // namespace

Tensor view_as_real(const Tensor& t) {
  EMBER_RECORD(view_as_real, t);
  EMBER_PROFILE_OP("view_as_real");
  ops::check_defined(t, "view_as_real");
  EMBER_CHECK(is_complex(t.dtype()), Error,
              "view_as_real is only supported for complex tensors, got ", dtype_name(t.dtype()));
  Dims sizes = t.sizes(), strides;
  for (int64_t s : t.strides()) strides.push_back(2 * s);
  sizes.push_back(2);
  strides.push_back(1);
  Tensor out = retyped_view(t, sizes, strides, 2 * t.offset(), to_real(t.dtype()));
  if (autograd::any_requires_grad(t))
    autograd::record_view("ViewAsRealBackward0", t, out, [](Grads& g, const Node&) -> Grads {
      return {view_as_complex(contiguous(g[0]))};
    });
  return out;
}

Tensor view_as_complex(const Tensor& t) {
  EMBER_RECORD(view_as_complex, t);
  EMBER_PROFILE_OP("view_as_complex");
  ops::check_defined(t, "view_as_complex");
  EMBER_CHECK(is_floating(t.dtype()), Error,
              "view_as_complex is only supported for float and double tensors, but got a tensor "
              "of scalar type: ",
              dtype_name(t.dtype()));
  EMBER_CHECK(t.dim() > 0, Error, "view_as_complex: input tensor must have one or more dimensions");
  EMBER_CHECK(t.sizes().back() == 2, Error,
              "view_as_complex: tensor must have a last dimension "
              "of size 2, got shape ",
              t.sizes());
  EMBER_CHECK(t.strides().back() == 1, Error,
              "view_as_complex: tensor must have a last "
              "dimension with stride 1, got strides ",
              t.strides());
  Dims sizes, strides;
  for (int64_t d = 0; d + 1 < t.dim(); ++d) {
    EMBER_CHECK(t.strides()[d] % 2 == 0, Error,
                "view_as_complex: tensor must have a stride "
                "divisible by 2 for all but last dimension, got strides ",
                t.strides());
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d] / 2);
  }
  EMBER_CHECK(t.offset() % 2 == 0, Error,
              "view_as_complex: tensor must have a storage_offset "
              "divisible by 2, got ",
              t.offset());
  Tensor out = retyped_view(t, sizes, strides, t.offset() / 2, to_complex(t.dtype()));
  if (autograd::any_requires_grad(t))
    autograd::record_view("ViewAsComplexBackward0", t, out,
                          [](Grads& g, const Node&) -> Grads { return {view_as_real(g[0])}; });
  return out;
}

Tensor real(const Tensor& t) {
  EMBER_RECORD(real, t);
  ops::check_defined(t, "real");
  if (!is_complex(t.dtype())) return t;
  return select(view_as_real(t), -1, 0);
}

Tensor imag(const Tensor& t) {
  EMBER_RECORD(imag, t);
  ops::check_defined(t, "imag");
  EMBER_CHECK(is_complex(t.dtype()), Error,
              "imag is not implemented for tensors with non-complex dtypes (got ",
              dtype_name(t.dtype()), ")");
  return select(view_as_real(t), -1, 1);
}

Tensor complex(const Tensor& re, const Tensor& im) {
  EMBER_RECORD(complex, re, im);
  EMBER_PROFILE_OP("complex");
  ops::check_defined(re, "complex");
  ops::check_defined(im, "complex");
  EMBER_CHECK(is_floating(re.dtype()) && is_floating(im.dtype()), Error,
              "complex: expected both inputs to be float or double tensors, but got ",
              dtype_name(re.dtype()), " and ", dtype_name(im.dtype()));
  EMBER_CHECK(re.dtype() == im.dtype(), Error, "complex: expected object of scalar type ",
              dtype_name(re.dtype()), " but got scalar type ", dtype_name(im.dtype()),
              " for second argument");
  Dims shape = broadcast_shapes(re.sizes(), im.sizes(), "complex");
  Tensor out = Tensor::empty(shape, to_complex(re.dtype()));
  {
    NoGradGuard no_grad;
    Tensor parts = view_as_real(out);
    Tensor r = select(parts, -1, 0), i = select(parts, -1, 1);
    copy_(r, re);
    copy_(i, im);
  }
  if (autograd::any_requires_grad(re, im))
    autograd::record("ComplexBackward0", {&re, &im}, {&out},
                     [sr = Dims(re.sizes()), si = Dims(im.sizes())](Grads& g,
                                                                    const Node& n) -> Grads {
                       return {n.needs_input_grad(0) ? autograd::sum_to(real(g[0]), sr) : Tensor(),
                               n.needs_input_grad(1) ? autograd::sum_to(imag(g[0]), si) : Tensor()};
                     });
  return out;
}

Tensor polar(const Tensor& abs, const Tensor& angle) {
  EMBER_RECORD(polar, abs, angle);
  EMBER_PROFILE_OP("polar");
  ops::check_defined(abs, "polar");
  ops::check_defined(angle, "polar");
  EMBER_CHECK(is_floating(abs.dtype()) && abs.dtype() == angle.dtype(), Error,
              "polar: expected abs and angle to be float or double tensors of one dtype, got ",
              dtype_name(abs.dtype()), " and ", dtype_name(angle.dtype()));
  broadcast_shapes(abs.sizes(), angle.sizes(), "polar");  // a mismatch names polar, not mul
  return complex(mul(abs, cos(angle)), mul(abs, sin(angle)));
}

Tensor angle(const Tensor& t) {
  EMBER_RECORD(angle, t);
  EMBER_PROFILE_OP("angle");
  ops::check_defined(t, "angle");
  if (!is_complex(t.dtype())) {
    // pi where negative, 0 elsewhere, NaN kept; no gradient (torch's is zero).
    NoGradGuard no_grad;
    Tensor x = is_floating(t.dtype()) ? t : to_dtype(t, default_dtype());
    Tensor z = zeros(x.sizes(), x.dtype());
    return where(isnan(x), x, masked_fill(z, lt(x, Scalar(0.0)), Scalar(M_PI)));
  }
  Tensor out;
  {
    NoGradGuard no_grad;
    out = atan2(imag(t), real(t));
  }
  // d angle = (-y dx + x dy) / |z|^2: z.grad = g * i z / |z|^2, 0 at z == 0 (as torch).
  if (autograd::any_requires_grad(t))
    autograd::record("AngleBackward0", {&t}, {&out},
                     [st = autograd::SavedTensor(t)](Grads& g, const Node&) -> Grads {
                       Tensor z = st.get();
                       Tensor r2 = add(mul(real(z), real(z)), mul(imag(z), imag(z)));
                       Tensor gz = div(mul(mul(g[0], z), Scalar(std::complex<double>(0, 1))), r2);
                       return {masked_fill(gz, eq(r2, Scalar(0.0)), Scalar(0.0))};
                     });
  return out;
}

Tensor conj_physical(const Tensor& t) {
  EMBER_RECORD(conj_physical, t);
  EMBER_PROFILE_OP("conj_physical");
  ops::check_defined(t, "conj_physical");
  if (!is_complex(t.dtype())) return clone(t);
  Tensor out;
  {
    NoGradGuard no_grad;
    out = clone(t);
    Tensor im = select(view_as_real(out), -1, 1);
    neg_(im);
  }
  if (autograd::any_requires_grad(t))
    autograd::record("ConjPhysicalBackward0", {&t}, {&out},
                     [](Grads& g, const Node&) -> Grads { return {conj_physical(g[0])}; });
  return out;
}

Tensor& conj_physical_(Tensor& t) {
  EMBER_RECORD(conj_physical_, t);
  EMBER_PROFILE_OP("conj_physical_");
  ops::check_defined(t, "conj_physical_");
  if (!is_complex(t.dtype())) return t;
  if (autograd::any_requires_grad(t))
    return autograd::apply_inplace(t, "conj_physical_",
                                   [](const Tensor& x) { return conj_physical(x); });
  Tensor im = select(view_as_real(t), -1, 1);
  neg_(im);
  return t;
}

Tensor conj(const Tensor& t) {
  EMBER_RECORD(conj, t);
  ops::check_defined(t, "conj");
  return is_complex(t.dtype()) ? conj_physical(t) : t;
}

}  // namespace ember
