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

}  // namespace ember::ops
