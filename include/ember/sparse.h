// Sparse COO tensors (Note [Sparse COO tensors] in ember/tensor.h; docs/sparse.md).
#pragma once
#include <optional>

#include "ember/tensor.h"

namespace ember {

// A COO tensor from int64 indices [sparse_dim, nnz] and values [nnz, *dense_dims]. Without
// `size`, each sparse dim is max(index) + 1 and the dense dims are the values'. Differentiable
// in `values` (the gradient is the dense gradient at the indices).
Tensor sparse_coo_tensor(const Tensor& indices, const Tensor& values,
                         std::optional<Dims> size = std::nullopt);
Tensor to_dense(const Tensor& t);  // strided copy (t itself when t is strided)
// Strided -> COO over the first `sparse_dim` dims (all by default); t itself when already sparse.
Tensor to_sparse(const Tensor& t, std::optional<int64_t> sparse_dim = std::nullopt);
Tensor coalesce(const Tensor& t);  // sorted indices, duplicates summed
// sparse @ dense and dense @ sparse (2-d): the product is strided; gradients flow into the
// dense operand and into the sparse one (strided, g @ b^T, as torch 2.13).
Tensor sparse_mm(const Tensor& a, const Tensor& b);
// a + alpha * b when either is sparse: strided when one is strided, COO when both are.
Tensor sparse_add(const Tensor& a, const Tensor& b, Scalar alpha);
Tensor sparse_transpose(const Tensor& t, int64_t dim0, int64_t dim1);
Tensor sparse_clone(const Tensor& t);
// The elementwise ops that keep zeros zero on a sparse input: neg (s = -1), mul and div by a
// scalar (op "mul", "div", "mul_r"); any other op raises NotImplementedError naming it.
Tensor sparse_scalar_op(const char* op, const Tensor& t, Scalar s);
// A binary elementwise op with a sparse operand: add/sub (sparse_add), mul/div by a 0-d tensor,
// else NotImplementedError.
Tensor sparse_binary(const char* op, const Tensor& a, const Tensor& b);
Tensor sparse_to_dtype(const Tensor& t, DType dtype);
// A sparse tensor with src's layout (COO/CSR/CSC, Note [Compressed sparse layouts]) and flags.
Tensor sparse_like(const Tensor& src, const Tensor& indices, const Tensor& values, IntList sizes);
// The same entries in another sparse layout: COO (coalesced), CSR or CSC order; t itself when it
// has that layout already. The gradient passes through (dense).
Tensor sparse_relayout(const Tensor& t, SparseLayout layout);
// The stored values [nnz, *dense_dims]; when t requires grad, an alias whose gradient flows back
// into t as a sparse tensor with t's indices (torch's differentiable values()).
Tensor sparse_values_of(const Tensor& t);
// out[h] = the number of integer keys below h, h = 0..nslots: the CSR pointer of sorted row keys.
Tensor compressed_pointer(const Tensor& keys, int64_t nslots);

// Whether an op's inputs include a sparse tensor (the ops taught sparse test this at their top).
inline bool any_sparse(const Tensor& a, const Tensor& b) {
  return (a.defined() && a.is_sparse()) || (b.defined() && b.is_sparse());
}

}  // namespace ember
