// Scans along one dim (cumsum, cumprod and cumprod's backward) and the sorts along one
// dim (sort, topk). The ops layer describes the "rows": a Loop over the tensor's shape
// with the scanned dim set to 1, so each element of the Loop is the first element of one
// row; `len` is the row length and the *_step arguments are byte strides along the row.
// Each row is processed whole by one thread, so results never depend on the thread count.
#pragma once
#include <cstdint>

#include "ember/dtype.h"
#include "kernels/cpu/loop.h"

namespace ember::kernels {

// out[i] = in[0] + ... + in[i] (or the product) over Loop{out, in}, both of dtype `dt`.
// Floats accumulate in double and integers in int64, as PyTorch does on the CPU.
void cumsum(DType dt, const Loop& rows, int64_t len, int64_t out_step, int64_t in_step);
void cumprod(DType dt, const Loop& rows, int64_t len, int64_t out_step, int64_t in_step);

// The gradient of cumprod over Loop{gx, x, g} (floating dt), exact when x holds zeros:
// gx[k] = sum_{j >= k} g[j] * prod_{i <= j, i != k} x[i].
void cumprod_backward(DType dt, const Loop& rows, int64_t len, int64_t gx_step, int64_t x_step,
                      int64_t g_step);

// Sorts each row of `in` over Loop{values, indices (int64), in}: NaN sorts as the largest
// value and equal values keep their order (a stable sort, as PyTorch's CPU sort).
// With k < len only the first k of the sorted row are written (topk); values and indices
// then have row length k and steps `val_step`, `idx_step`.
void sort(DType dt, const Loop& rows, int64_t len, int64_t k, bool descending, int64_t val_step,
          int64_t idx_step, int64_t in_step);

}  // namespace ember::kernels
