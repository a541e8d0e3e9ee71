// Copies, dtype conversion and fills.
#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/sparse.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/elementwise.h"
#include "ops/iter.h"

namespace ember {

Tensor contiguous(const Tensor& t) {
  EMBER_RECORD(contiguous, t);
  EMBER_PROFILE_OP("contiguous");
  ops::check_defined(t, "contiguous");
  return t.is_contiguous() ? t : clone(t);
}

Tensor clone(const Tensor& t) {
  if (any_sparse(t, Tensor())) return sparse_clone(t);
  EMBER_RECORD(clone, t);
  EMBER_PROFILE_OP("clone");
  ops::check_defined(t, "clone");
  // Contiguous (contiguous() and BLAS operand copies rely on it), where torch's default
  // memory_format=preserve_format would keep a permuted layout: the values are the same.
  Tensor out = Tensor::empty(t.sizes(), t.dtype());
  kernels::cast(t.dtype(), t.dtype(), ops::make_loop(t.sizes(), {&out, &t}));
  if (autograd::any_requires_grad(t))
    autograd::record("CloneBackward0", {&t}, {&out},
                     [](Grads& g, const Node&) -> Grads { return {g[0]}; });
  return out;
}

Tensor to_dtype(const Tensor& t, DType dtype) {
  if (any_sparse(t, Tensor())) return sparse_to_dtype(t, dtype);
  EMBER_RECORD(to_dtype, t, dtype);
  EMBER_PROFILE_OP("to_dtype");
  ops::check_defined(t, "to");
  if (t.dtype() == dtype) return t;
  Tensor out = ops::empty_like_inputs(t.sizes(), dtype, {&t});
  kernels::cast(dtype, t.dtype(), ops::make_loop(t.sizes(), {&out, &t}));
  if (autograd::any_requires_grad(t) && is_floating_point(dtype)) {
    autograd::record("ToCopyBackward0", {&t}, {&out},
                     [from = t.dtype()](Grads& g, const Node&) -> Grads {
                       return {to_dtype(g[0], from)};
                     });
  }
  return out;
}

Tensor& copy_(Tensor& dst, const Tensor& src) {
  EMBER_RECORD(copy_, dst, src);
  EMBER_PROFILE_OP("copy_");
  ops::check_defined(dst, "copy_");
  ops::check_defined(src, "copy_");
  Dims shape = broadcast_shapes(dst.sizes(), src.sizes(), "copy_");
  EMBER_CHECK(shape == dst.sizes(), ValueError, "copy_: source of shape ", src.sizes(),
              " cannot be broadcast to the destination shape ", dst.sizes());
  ops::check_no_internal_overlap(dst, "copy_");
  if (autograd::any_requires_grad(dst, src)) {
    return autograd::apply_inplace(dst, "copy_", [&](const Tensor& x) {
      // The old value of dst gets no gradient: the result depends on src alone.
      Tensor v = to_dtype(expand(src, dst.sizes()), dst.dtype());
      return where(full(dst.sizes(), Scalar(true), DType::Bool), v, x);
    });
  }
  Tensor s = src;
  if (dst.storage() == src.storage()) {
    // The same view of the same memory: nothing to do (PyTorch returns early too).
    if (dst.offset() == src.offset() && dst.dtype() == src.dtype() &&
        Dims::equal(dst.sizes(), src.sizes()) && Dims::equal(dst.strides(), src.strides())) {
      dst.bump_version();
      return dst;
    }
    s = clone(src);
  }
  kernels::cast(dst.dtype(), s.dtype(), ops::make_loop(shape, {&dst, &s}));
  dst.bump_version();
  return dst;
}

// torch's out=: refused under autograd (torch: out= has no derivative), out's dtype must hold
// the result's, out takes the result's shape (resized when it differs) and then its values.
bool write_out(Tensor& out, const Tensor& result, const char* op) {
  ops::check_defined(out, op);
  EMBER_CHECK(!autograd::any_requires_grad(result, out), Error, op,
              "(): functions with out=... arguments don't support automatic differentiation, "
              "but one of the arguments requires grad.");
  ops::check_result_cast(op, result.dtype(), out.dtype());
  bool resized = false;
  if (!Dims::equal(out.sizes(), result.sizes())) {
    resized = out.numel() != 0;
    resize_(out, result.sizes());
  }
  copy_(out, result);
  return resized;
}

namespace {
// fill_ as the kernel replay runs it (src/capture/kernel_replay.cpp).
capture::Fusable fuse_fill(Scalar value) {
  capture::Fusable f;
  f.kind = capture::Fusable::Kind::Fill;
  f.scalar = value;
  f.inplace = true;
  return f;
}
}  // namespace

Tensor& fill_(Tensor& t, Scalar value) {
  EMBER_RECORD_FUSABLE(fill_, fuse_fill(value), t, value);
  EMBER_PROFILE_OP("fill_");
  ops::check_defined(t, "fill_");
  ops::check_scalar_fits(t.dtype(), value, "fill_");
  if (autograd::any_requires_grad(t)) {
    return autograd::apply_inplace(t, "fill_", [&](const Tensor& x) {
      // keeps the history, with a zero gradient
      return masked_fill(x, full(x.sizes(), Scalar(true), DType::Bool), value);
    });
  }
  kernels::fill(t.dtype(), ops::make_loop(t.sizes(), {&t}), value);
  t.bump_version();
  return t;
}

// fill_ with a 0-d tensor as the value (torch's overload): a broadcasting copy, so the value's
// dtype is cast and its gradient is the sum of t's.
Tensor& fill_(Tensor& t, const Tensor& value) {
  EMBER_RECORD(fill_, t, value);
  ops::check_defined(t, "fill_");
  ops::check_defined(value, "fill_");
  EMBER_CHECK(value.dim() == 0, Error,
              "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
              " dimensions.");
  return copy_(t, value);
}

Tensor& zero_(Tensor& t) { return fill_(t, Scalar(int64_t(0))); }

Tensor detach(const Tensor& t) {
  EMBER_RECORD(detach, t);
  if (t.defined() && t.is_sparse())
    return sparse_like(t, t.sparse_indices(), t.sparse_values(), t.sizes());
  ops::check_defined(t, "detach");
  return t.alias();
}

}  // namespace ember
