// Helpers shared by the LAPACK-backed ops (linalg_solve, linalg_cholesky, linalg_lu,
// linalg_decomp). Private to src/ops.
#pragma once
#include <initializer_list>
#include <string>

#include "ember/linalg.h"
#include "ember/ops.h"

namespace ember::ops {

// torch's errors: "linalg.det: Expected a floating point or complex tensor as input. Got Long".
void check_lapack_dtype(const char* op, const Tensor& a);
// The ops torch refuses in its dtype dispatch: NotImplementedError
// "\"linalg_eigh_cpu\" not implemented for 'Long'" (kernel = "linalg_eigh_cpu").
void check_lapack_kernel_dtype(const char* kernel, const Tensor& a);
// "linalg.inv: A must be batches of square matrices, but they are 3 by 4 matrices".
void check_square(const char* op, const Tensor& a);
// The leading dims of t.
Dims batch_dims(const Tensor& t);
// A fresh contiguous buffer holding t's matrices column-major (as LAPACK wants them): the
// row-major copy of t^T. from_colmajor(buf) is the matrix view back (no copy).
Tensor colmajor(const Tensor& t);
Tensor from_colmajor(const Tensor& buf);
// The matrix transpose of t (its last two dims swapped): torch's t.mT.
inline Tensor mT(const Tensor& t) { return transpose(t, -1, -2); }
// The shape `batch` followed by `tail` (the matrix dims).
inline Dims batched_shape(Dims batch, std::initializer_list<int64_t> tail) {
  for (int64_t d : tail) batch.push_back(d);
  return batch;
}
// Raises LinAlgError for the first matrix whose info (int32, one per matrix) is not 0:
// "<op>: (Batch element i): <what(info)>", the batch part only when `batched`.
void check_info(const char* op, const Tensor& info, bool batched,
                std::string (*what)(int32_t info));

}  // namespace ember::ops
