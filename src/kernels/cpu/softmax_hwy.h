// SIMD softmax and log-softmax of contiguous rows (the last dim) of float32, bfloat16 or float16,
// written with Google Highway and compiled once per instruction set (the best copy is picked at
// the first call, as elementwise_hwy.h). Half rows are widened in registers and computed in
// float32, rounded once on store (Note [Half ops through float32]). The scalar kernels
// (arg_softmax_impl.h) keep float64 and strided softmax.
#pragma once
#include <cstdint>

#include "ember/dtype.h"

namespace ember::kernels {

// y = softmax(x) (or log_softmax) of each of `rows` rows of n elements of dtype dt (float32,
// bfloat16 or float16); y may not alias x. Same
// formulas as softmax_rows: m = max, e = exp(x - m) (0 below -86.6, as exp_f), s = sum of e in
// float lanes combined in double, then e * (1 / s) or (x - m) - log(s). Rows with a NaN are
// NaN; a row of -inf is NaN (exp(-inf - -inf)), as torch.
void softmax_rows_simd(DType dt, const void* x, void* y, int64_t rows, int64_t n, bool log);

}  // namespace ember::kernels
