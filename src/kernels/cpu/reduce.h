// Reduction kernels: sum, prod, mean, amax/amin, all/any, norms, var/std, logsumexp,
// max/min with indices, softmax. Kernels see pointers, sizes and strides only; the ops
// layer (src/ops/reduce.cpp) checks arguments, picks dtypes and allocates outputs.
//
// Note [Deterministic reductions]: a floating reduction's rounding depends on the order
// in which elements are combined. Every order used here is a function of the sizes and
// strides alone, never of the thread count: a long reduction is cut into FIXED blocks of
// kReduceBlock elements (or a fixed number of row blocks), the blocks may run on any
// thread, and their partial results are combined in block order afterwards. So
// set_num_threads(1) and set_num_threads(2) give bit-identical results.
//
// Note [Reduction accumulators]: float32 and float64 sums (sum, mean, norms, var, logsumexp)
// accumulate in double lanes. For float32, each chunk of 256 elements is first summed in 16
// float lanes (16 additions per lane, at full float SIMD width) and then added into the
// double lanes, so the error stays that of ~16 float roundings per element however long
// the reduction (~1e-7 relative, like PyTorch's cascade sum; a plain float running sum of a
// million elements is off by up to 1e-2), at the speed of a float sum: a double-only
// accumulator halves the SIMD width, a float-only one loses accuracy with length.
// Integers and bool accumulate in uint64 (wrapping, as int64 arithmetic does in PyTorch).
//
// Note [Reduction ISA copies]: the build targets baseline x86-64 (SSE2), where float selects,
// max/min and exp vectorize poorly; the kernels (reduce_impl.h, arg_softmax_impl.h) are
// compiled a second time for AVX2 + FMA (reduce_avx2.cpp) and chosen at run time by CPU
// (3x faster softmax, 8x faster max along dim 0 here). EMBER_DISABLE_AVX2=1 forces the
// baseline copy, which the tests also run.
#pragma once
#include <cstdint>

#include "ember/dtype.h"
#include "ember/shape.h"

namespace ember::kernels {

// Elements per block of a long reduction (see Note [Deterministic reductions]).
inline constexpr int64_t kReduceBlock = 16384;

// One reduction's geometry, strides in elements. Size-1 dims are dropped, each group is
// sorted by input stride (largest first, stride 0 counts as largest) and neighbours that
// chain are merged, so a contiguous tensor reduced over its last dims is one row per output.
// An empty group becomes one dim of size 1 and stride 0.
struct ReduceShape {
  Dims kept, kept_in, kept_out;  // kept dims: sizes, input strides, output strides
  Dims red, red_in;              // reduced dims: sizes, input strides
  int64_t num_out = 1, num_red = 1;

  // `out_strides` has one entry per input dim (those of reduced dims are ignored); `mask`
  // has bit d set when dim d is reduced. The output must be dense: its offsets cover
  // [0, num_out) (the ops layer allocates it contiguous).
  ReduceShape(IntList shape, IntList in_strides, IntList out_strides, uint64_t mask);
};

enum class ReduceOp { Sum, Prod, Mean, Max, Min, All, Any, Norm, Var, Std, LogSumExp };

struct ReduceArgs {
  double p = 2;           // Norm: 2, 1, inf, -inf, 0 or any other p
  double correction = 1;  // Var/Std: divide by max(0, n - correction)
};

// out[o] = op over the reduced elements of input `in` (dtype `dt`). Output dtypes:
//   Sum, Prod: int64 for integer and bool inputs, else dt
//   All, Any: bool, or uint8 for a uint8 input (as PyTorch)
//   Mean, Max, Min, Norm, Var, Std, LogSumExp: dt (Mean/Norm/Var/Std/LogSumExp: floating only)
void reduce(ReduceOp op, DType dt, const ReduceShape& g, const char* in, char* out,
            const ReduceArgs& args = {});

// The sum of n contiguous bfloat16/float16 values, widened block by block (no float32 copy of
// the whole input): float32 sums of fixed blocks of kReduceBlock values, added in order, so
// the result does not depend on the thread count.
float sum_half(DType dt, const char* in, int64_t n);

// Max (is_max) or min and its index along the reduced dims, which must be a single dim
// (or a contiguous run, for argmax over all elements). NaN wins; ties give the first index.
// `values` (dtype dt) may be null when only the indices are wanted.
void arg_reduce(bool is_max, DType dt, const ReduceShape& g, const char* in, char* values,
                int64_t* indices);

// A Sum (divisor 1) or Mean (divisor n) of all n elements of a contiguous float32/float64
// run, computed in pieces: sum_block of each kReduceBlock block (the last one shorter) in
// any order, then sum_finish of the partials in block order. The bits are reduce()'s, so a
// fused pass (src/capture/fusion.cpp) can reduce values it never writes to memory.
double sum_block(DType dt, const char* in, int64_t n);
void sum_finish(DType dt, const double* partials, int64_t nblocks, double divisor, char* out);

// out = softmax (or log_softmax) of a contiguous input viewed as (outer, n, inner), along n.
// Floating dtypes only. Stable: the max along n is subtracted before exp.
void softmax(DType dt, const char* in, char* out, int64_t outer, int64_t n, int64_t inner,
             bool log);

// The gradient of softmax / log_softmax along rows of n contiguous elements, from the output
// y and its gradient g (both contiguous, `rows` x n), in one pass per row:
//   softmax:     gx = y * (g - sum(g * y)),   log_softmax: gx = g - exp(y) * sum(g).
void softmax_backward(DType dt, const char* g, const char* y, char* gx, int64_t rows, int64_t n,
                      bool log);

}  // namespace ember::kernels
