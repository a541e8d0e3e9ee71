// Helpers shared by the indexing ops (indexing.cpp, index_ops.cpp). Private to src/ops.
#pragma once
#include "ember/ops.h"
#include "kernels/cpu/index.h"

namespace ember::ops {

// `idx` as int64 (int32 is converted); TypeError naming `op` for any other dtype.
Tensor index_int64(const Tensor& idx, const char* op);
// Throws IndexError when the int64 tensor `idx` holds a value outside [0, size)
// ([-size, size) with wrap_negative), naming `op` (when not empty), the value, the dim and
// its size.
void check_index_range(const Tensor& idx, int64_t size, int64_t dim, bool wrap_negative,
                       const char* op);
// Element strides times the item size: the byte strides kernels take.
Dims byte_strides(IntList strides, int64_t itemsize);

// gather/scatter's view of t along `dim` (index_ops.cpp): an IndexLoop over idx's shape
// whose position p touches t at p with p[dim] replaced by idx[p] (no vals set).
kernels::IndexLoop along_dim(const Tensor& t, int64_t dim, const Tensor& idx);
// gather/scatter's shape rules (src == nullptr for gather): the same rank everywhere, and
// the index no larger than src in every dim and than t in every dim but `dim`.
void check_gather_shapes(const char* op, const Tensor& t, int64_t dim, const Tensor& idx,
                         const Tensor* src);

}  // namespace ember::ops
