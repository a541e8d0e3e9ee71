// Tensor: a handle (one intrusive pointer) to a TensorImpl, which is a view
// (shape, strides, offset, dtype) of a Storage. Copying a Tensor copies the handle;
// views share the Storage, and so its data and its version counter (Note [Version counters]).
#pragma once
#include <memory>

#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/intrusive_ptr.h"
#include "ember/scalar.h"
#include "ember/shape.h"
#include "ember/storage.h"

namespace ember {

// Autograd keeps its per-tensor state (grad, grad_fn, hooks) behind this interface so
// that the core does not depend on the autograd layer above it.
struct AutogradMetaBase {
  virtual ~AutogradMetaBase() = default;
};

// Note [Sparse COO tensors]: a sparse tensor is a TensorImpl with a SparseParts (indices int64
// [sparse_dim, nnz], values [nnz, *dense_dims]) and a zero-byte storage. Every path that reads
// elements goes through data_ptr() or as_strided(), which refuse it, so an op not taught sparse
// raises NotImplementedError instead of reading memory that is not there (docs/sparse.md).
struct SparseParts;
[[noreturn]] void throw_sparse_unsupported(const char* op);

// Note [Version counters]: autograd saves a tensor's version and checks it in backward, so an
// in-place write to anything sharing its memory is caught. The counter normally lives in the
// Storage, shared by every view. `Tensor.data` (torch's `variable_data`) is the exception: it
// shares the memory but gets a counter of its own, which its views share, so a write through
// `.data` is not seen by the original (how libraries such as torchdiffeq "sneak past the
// version checker", and why torch documents `.data` as unsafe). `own_version_` holds that
// counter; null means the storage's.
struct VersionCounter : RefCounted {
  uint32_t value = 0;
};

class TensorImpl : public RefCounted {
 public:
  TensorImpl(IntrusivePtr<Storage> storage, Dims sizes, Dims strides, int64_t offset, DType dtype);

  IntrusivePtr<Storage> storage_;
  Dims sizes_, strides_;  // strides in elements, as in PyTorch
  int64_t offset_;        // in elements
  int64_t numel_;
  DType dtype_;
  bool is_contiguous_;
  bool requires_grad_ = false;
  std::unique_ptr<AutogradMetaBase> autograd_;  // null for most tensors
  std::unique_ptr<SparseParts> sparse_;         // null unless layout is sparse_coo
  IntrusivePtr<VersionCounter> own_version_;    // null: the storage's (Note [Version counters])
  ~TensorImpl() override;
  void* pyobj_ = nullptr;  // reserved for the Python binding (identity of wrappers)
  // Order of creation (process-wide): capture tells a tensor made while it recorded from
  // one that existed before (src/capture, Note [What capture sees] in docs/compile.md).
  const uint64_t serial_ = next_serial();
  static uint64_t next_serial();
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(IntrusivePtr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // A new contiguous tensor with uninitialised data. Throws ValueError on negative
  // sizes and Error (RuntimeError) when the size overflows or memory runs out.
  static Tensor empty(IntList shape, DType dtype = default_dtype());
  // A tensor over borrowed memory; `release(ctx)` runs when the last view dies.
  static Tensor from_blob(void* data, IntList shape, IntList strides, DType dtype,
                          void (*release)(void*), void* ctx, size_t nbytes);

  bool defined() const { return bool(impl_); }
  int64_t dim() const { return int64_t(impl_->sizes_.size()); }
  const Dims& sizes() const { return impl_->sizes_; }
  const Dims& strides() const { return impl_->strides_; }
  const Dims& shape() const { return impl_->sizes_; }
  int64_t size(int64_t d) const;  // negative d counts from the end
  int64_t stride(int64_t d) const;
  int64_t numel() const { return impl_->numel_; }
  DType dtype() const { return impl_->dtype_; }
  size_t itemsize() const { return ember::itemsize(impl_->dtype_); }
  int64_t offset() const { return impl_->offset_; }
  bool is_contiguous() const { return impl_->is_contiguous_; }
  const IntrusivePtr<Storage>& storage() const { return impl_->storage_; }
  // Address of element [0, 0, ...] (the view's offset applied).
  char* data_ptr() const {
    if (impl_->sparse_) [[unlikely]]
      throw_sparse_unsupported("data_ptr");
    return static_cast<char*>(impl_->storage_->data()) + impl_->offset_ * int64_t(itemsize());
  }
  template <class T>
  T* data() const {
    return reinterpret_cast<T*>(data_ptr());
  }
  uint32_t version() const {
    return impl_->own_version_ ? impl_->own_version_->value : impl_->storage_->version();
  }
  void bump_version() const {
    if (impl_->own_version_) ++impl_->own_version_->value;
    else impl_->storage_->bump_version();
  }

  // A view of the same storage with other sizes/strides/offset (elements).
  Tensor as_strided(IntList sizes, IntList strides, int64_t offset) const;
  // A new handle to the same view: same data, own autograd state (what detach builds on).
  Tensor alias() const { return as_strided(sizes(), strides(), offset()); }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  // Makes this tensor view src's data (t.data = src): storage, shape, strides, dtype.
  // Autograd state (requires_grad, grad, history) is kept.
  void set_data(const Tensor& src) const;

  bool is_sparse() const { return impl_->sparse_ != nullptr; }
  // A sparse COO tensor of `shape` from indices [sparse_dim, nnz] and values [nnz, *dense].
  static Tensor sparse_coo(const Tensor& indices, const Tensor& values, IntList shape,
                           bool coalesced);
  const Tensor& sparse_indices() const;
  const Tensor& sparse_values() const;
  bool sparse_coalesced() const;

  TensorImpl* impl() const { return impl_.get(); }
  const IntrusivePtr<TensorImpl>& impl_ptr() const { return impl_; }

  // Value of a one-element tensor.
  Scalar item() const;

 private:
  IntrusivePtr<TensorImpl> impl_;
};

// Note [Compressed sparse layouts]: a CSR/CSC tensor is a SparseParts whose COO indices
// [batch dims..., row, col] are kept in the compressed order: (batch, row, col) for CSR,
// (batch, col, row) for CSC, each batch with the same nnz. The COO ops (to_dense, mm, scaling)
// serve it unchanged; crow/ccol_indices are derived from the sorted rows/cols on demand
// (python/ember/_sparse_compressed.py, docs/sparse.md).
enum class SparseLayout : uint8_t { Coo, Csr, Csc };

struct SparseParts {
  Tensor indices, values;
  bool coalesced = false;
  SparseLayout layout = SparseLayout::Coo;
  bool int32_indices = false;  // a compressed tensor built from int32 indices reports int32 ones
};

}  // namespace ember
