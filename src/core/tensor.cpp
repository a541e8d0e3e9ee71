#include "ember/tensor.h"

#include <atomic>
#include <limits>
#include <string_view>

#include "ember/record.h"

namespace ember {

void capture::data_read(const char* what) {
  if (recording()) detail::t_sink->on_data_read(what);
}

void capture::not_captured(const char* what) {
  if (recording()) detail::t_sink->on_unrecorded(what);
}

uint64_t TensorImpl::next_serial() {
  static std::atomic<uint64_t> counter{1};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

TensorImpl::TensorImpl(IntrusivePtr<Storage> storage, Dims sizes, Dims strides, int64_t offset,
                       DType dtype)
    : storage_(std::move(storage)), sizes_(std::move(sizes)), strides_(std::move(strides)),
      offset_(offset), numel_(numel_of(sizes_)), dtype_(dtype),
      is_contiguous_(is_contiguous_layout(sizes_, strides_)) {}

TensorImpl::~TensorImpl() = default;

void throw_sparse_unsupported(const char* op) {
  // From data_ptr/as_strided, which every element access and view passes through: the
  // innermost public op running on this thread names the culprit.
  std::string_view raw(op);
  if (raw == "data_ptr" || raw == "as_strided") op = current_op_name();
  throw NotImplementedError(
      std::string(op) +
      ": not supported for a sparse tensor (layout ember.sparse_coo, sparse_csr or "
      "sparse_csc); "
      "call .to_dense() first (docs/sparse.md)");
}

Tensor Tensor::sparse_coo(const Tensor& indices, const Tensor& values, IntList shape,
                          bool coalesced) {
  auto impl = make_intrusive<TensorImpl>(make_intrusive<Storage>(size_t(0)), Dims(shape),
                                         contiguous_strides(shape), 0, values.dtype());
  impl->sparse_ = std::make_unique<SparseParts>(SparseParts{indices, values, coalesced});
  return Tensor(std::move(impl));
}

const Tensor& Tensor::sparse_indices() const {
  if (!impl_->sparse_) throw Error("indices: expected a sparse tensor, got a strided one");
  return impl_->sparse_->indices;
}
const Tensor& Tensor::sparse_values() const {
  if (!impl_->sparse_) throw Error("values: expected a sparse tensor, got a strided one");
  return impl_->sparse_->values;
}
bool Tensor::sparse_coalesced() const { return impl_->sparse_ && impl_->sparse_->coalesced; }

Tensor Tensor::empty(IntList shape, DType dtype) {
  int64_t n = 1;
  for (int64_t s : shape) {
    EMBER_CHECK(s >= 0, ValueError, "empty: negative dimension ", s, " in shape ", shape);
    EMBER_CHECK(s == 0 || n <= std::numeric_limits<int64_t>::max() / 16 / s, Error, "empty: shape ",
                shape, " is too large (numel overflows)");
    n *= s;
  }
  size_t nbytes = size_t(n) * ember::itemsize(dtype);
  EMBER_CHECK(nbytes <= (size_t(1) << 46), Error, "empty: cannot allocate ", nbytes,
              " bytes for shape ", shape, " (more than 64 TB)");
  auto storage = make_intrusive<Storage>(nbytes);
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), Dims(shape),
                                           contiguous_strides(shape), 0, dtype));
}

Tensor Tensor::from_blob(void* data, IntList shape, IntList strides, DType dtype,
                         void (*release)(void*), void* ctx, size_t nbytes) {
  auto storage = make_intrusive<Storage>(data, nbytes, release, ctx);
  return Tensor(
      make_intrusive<TensorImpl>(std::move(storage), Dims(shape), Dims(strides), 0, dtype));
}

int64_t Tensor::size(int64_t d) const {
  EMBER_CHECK(dim() > 0, IndexError, "size: dimension specified as ", d,
              " but tensor has no dimensions");
  return sizes()[wrap_dim(d, dim(), "size")];
}
int64_t Tensor::stride(int64_t d) const {
  EMBER_CHECK(dim() > 0, IndexError, "stride: dimension specified as ", d,
              " but tensor has no dimensions");
  return strides()[wrap_dim(d, dim(), "stride")];
}

Tensor Tensor::as_strided(IntList sizes, IntList strides, int64_t offset) const {
  if (impl_->sparse_) throw_sparse_unsupported("as_strided");
  auto view = make_intrusive<TensorImpl>(impl_->storage_, Dims(sizes), Dims(strides), offset,
                                         impl_->dtype_);
  view->own_version_ = impl_->own_version_;
  return Tensor(std::move(view));
}

void Tensor::set_data(const Tensor& src) const {
  TensorImpl* d = impl_.get();
  const TensorImpl* s = src.impl();
  d->sparse_ = s->sparse_ ? std::make_unique<SparseParts>(*s->sparse_) : nullptr;
  d->storage_ = s->storage_;
  d->sizes_ = s->sizes_;
  d->strides_ = s->strides_;
  d->offset_ = s->offset_;
  d->numel_ = s->numel_;
  d->dtype_ = s->dtype_;
  d->is_contiguous_ = s->is_contiguous_;
}

Scalar Tensor::item() const {
  capture::data_read("Tensor.item()");
  EMBER_CHECK(numel() == 1, ValueError, "item: a Tensor with ", numel(),
              " elements cannot be converted to Scalar (shape ", sizes(), ")");
  return visit_dtype_with_half(dtype(), [&]<class T>() -> Scalar {
    T v = *data<T>();
    if constexpr (is_half_v<T>) return Scalar(double(float(v)));
    else if constexpr (is_complex_v<T>) return Scalar(std::complex<double>(v));
    else if constexpr (std::is_same_v<T, bool>) return Scalar(v);
    else if constexpr (std::is_floating_point_v<T>) return Scalar(double(v));
    else return Scalar(int64_t(v));
  });
}

}  // namespace ember
