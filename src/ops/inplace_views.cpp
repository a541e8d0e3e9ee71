// Ops that change a tensor's own geometry instead of returning a new one: the in-place view
// ops (t_, transpose_, squeeze_, unsqueeze_, as_strided_), resize_ and set_.
//
// Note [In-place view ops]: x.transpose_(0, 1) runs the out-of-place view, then x takes that
// view's geometry and its autograd history: x's grad_fn becomes the view's node, whose edge
// is x's old history, and x becomes a view of the same base its old self viewed (or of no
// base when x was not a view). The data are untouched; the version counter bumps, as in
// PyTorch. A leaf that requires grad refuses, as for every in-place op.
#include "autograd/function.h"
#include "ember/record.h"
#include "ember/ops.h"
#include "ops/iter.h"

namespace ember {

namespace {

Tensor& become(Tensor& self, const Tensor& view) {
  self.set_data(view);
  self.bump_version();
  autograd::AutogradMeta* vm = autograd::meta(view);
  if (!vm || !vm->grad_fn) return self;
  autograd::AutogradMeta& m = autograd::ensure_meta(self);
  m.grad_fn = vm->grad_fn;
  m.output_nr = vm->output_nr;
  m.retained.reset();
  bool views_itself = vm->view_base.defined() && vm->view_base.is_same(self);
  m.view_base = views_itself ? Tensor() : vm->view_base;
  m.is_view_of_leaf = !views_itself && vm->is_view_of_leaf;
  self.impl()->requires_grad_ = true;
  return self;
}

}  // namespace

Tensor& t_(Tensor& x) {
  EMBER_RECORD(t_, x);
  ops::check_defined(x, "t_");
  EMBER_CHECK(x.dim() <= 2, Error, "t_: expects a tensor with <= 2 dimensions, but self is ",
              x.dim(), "D (shape ", x.sizes(), ")");
  autograd::check_inplace(x, "t_");
  return become(x, t(x));
}

Tensor& transpose_(Tensor& x, int64_t dim0, int64_t dim1) {
  EMBER_RECORD(transpose_, x, dim0, dim1);
  ops::check_defined(x, "transpose_");
  autograd::check_inplace(x, "transpose_");
  return become(x, transpose(x, dim0, dim1));
}

Tensor& squeeze_(Tensor& x) {
  EMBER_RECORD(squeeze_, x);
  ops::check_defined(x, "squeeze_");
  autograd::check_inplace(x, "squeeze_");
  return become(x, squeeze(x));
}

Tensor& squeeze_(Tensor& x, IntList dims) {
  EMBER_RECORD(squeeze_, x, dims);
  ops::check_defined(x, "squeeze_");
  autograd::check_inplace(x, "squeeze_");
  return become(x, squeeze(x, dims));
}

Tensor& unsqueeze_(Tensor& x, int64_t dim) {
  EMBER_RECORD(unsqueeze_, x, dim);
  ops::check_defined(x, "unsqueeze_");
  autograd::check_inplace(x, "unsqueeze_");
  return become(x, unsqueeze(x, dim));
}

Tensor& as_strided_(Tensor& x, IntList sizes, IntList strides,
                    std::optional<int64_t> storage_offset) {
  EMBER_RECORD(as_strided_, x, sizes, strides, storage_offset);
  ops::check_defined(x, "as_strided_");
  autograd::check_inplace(x, "as_strided_");
  return become(x, as_strided(x, sizes, strides, storage_offset));
}

Tensor& resize_(Tensor& x, IntList sizes) {
  EMBER_RECORD(resize_, x, sizes);
  ops::check_defined(x, "resize_");
  EMBER_CHECK(!x.impl()->requires_grad_, Error,
              "resize_: cannot resize variables that require grad");
  int64_t n = 1;
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, Error, "resize_: Trying to create tensor with negative dimension ", s, ": ",
                sizes);
    EMBER_CHECK(!__builtin_mul_overflow(n, s, &n), Error, "resize_: shape ", sizes,
                " is too large (numel overflows)");
  }
  int64_t need = 0;
  EMBER_CHECK(!__builtin_add_overflow(x.offset(), n, &need) &&
                  !__builtin_mul_overflow(need, int64_t(x.itemsize()), &need),
              Error, "resize_: shape ", sizes, " is too large (numel overflows)");
  if (n > 0 && size_t(need) > x.storage()->nbytes()) x.storage()->resize(size_t(need));
  x.set_data(x.as_strided(sizes, contiguous_strides(sizes), x.offset()));
  return x;
}

Tensor& set_(Tensor& x, const Tensor& src) {
  EMBER_RECORD(set_, x, src);
  ops::check_defined(x, "set_");
  ops::check_defined(src, "set_");
  autograd::check_inplace(x, "set_");
  EMBER_CHECK(src.dtype() == x.dtype(), Error, "set_: Could not set tensor of type ",
              dtype_name(src.dtype()), " to a tensor of type ", dtype_name(x.dtype()));
  x.set_data(src);
  x.bump_version();
  return x;
}

Tensor& set_(Tensor& x, const Tensor& storage, int64_t storage_offset, IntList sizes,
             IntList strides) {
  EMBER_RECORD(set_, x, storage, storage_offset, sizes, strides);
  ops::check_defined(x, "set_");
  ops::check_defined(storage, "set_");
  autograd::check_inplace(x, "set_");
  EMBER_CHECK(storage.dtype() == x.dtype(), Error, "set_: Could not set tensor of type ",
              dtype_name(storage.dtype()), " to a tensor of type ", dtype_name(x.dtype()));
  // As torch, the storage grows when the geometry reaches past its end (as_strided below
  // refuses what is still out of bounds: negative values, overflows, borrowed memory).
  bool grow = sizes.size() == strides.size() && storage_offset >= 0 && numel_of(sizes) > 0;
  int64_t end = storage_offset, span = 0, need = 0;
  for (size_t i = 0; i < sizes.size() && grow; ++i)
    grow = sizes[i] > 0 && strides[i] >= 0 &&
           !__builtin_mul_overflow(sizes[i] - 1, strides[i], &span) &&
           !__builtin_add_overflow(end, span, &end);
  grow = grow && !__builtin_add_overflow(end, int64_t(1), &end) &&
         !__builtin_mul_overflow(end, int64_t(x.itemsize()), &need);
  if (grow && need > int64_t(storage.storage()->nbytes())) storage.storage()->resize(size_t(need));
  Tensor v;
  {
    NoGradGuard no_grad;  // checks sizes, strides and bounds as as_strided does
    v = as_strided(storage_view(storage, storage.dtype()), sizes, strides, storage_offset);
  }
  x.set_data(v);
  x.bump_version();
  return x;
}

Tensor& set_(Tensor& x) {
  EMBER_RECORD(set_, x);
  ops::check_defined(x, "set_");
  autograd::check_inplace(x, "set_");
  x.set_data(empty({0}, x.dtype()));
  x.bump_version();
  return x;
}

Tensor storage_view(const Tensor& t, DType dtype) {
  EMBER_RECORD(storage_view, t, dtype);
  ops::check_defined(t, "storage_view");
  int64_t n = int64_t(t.storage()->nbytes() / itemsize(dtype));
  auto view = make_intrusive<TensorImpl>(t.storage(), Dims{n}, Dims{1}, 0, dtype);
  view->own_version_ = t.impl()->own_version_;
  return Tensor(std::move(view));
}

}  // namespace ember
