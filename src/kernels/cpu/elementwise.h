// Elementwise kernels: unary, binary, comparison, casts, fills, where, clamp.
// All operands of a Loop share one dtype unless the function says otherwise;
// operand 0 is the output.
#pragma once
#include <initializer_list>

#include "ember/dtype.h"
#include "ember/scalar.h"
#include "kernels/cpu/loop.h"

namespace ember::kernels {

enum class UnaryOp {
#define EMBER_UNARY(name, Enum, kind) Enum,
#include "ember/ops.def"
#undef EMBER_UNARY
};
enum class BinaryOp {
#define EMBER_BINARY(name, Enum, kind) Enum,
#include "ember/ops.def"
#undef EMBER_BINARY
};
enum class CompareOp {
#define EMBER_COMPARE(name, Enum) Enum,
#include "ember/ops.def"
#undef EMBER_COMPARE
};

// out = op(a) over Loop{out, a}.
void unary(UnaryOp op, DType dt, const Loop& L);
// out = op(a, b) over Loop{out, a, b}; for Add/Sub, out = a ± alpha * b.
void binary(BinaryOp op, DType dt, const Loop& L, double alpha = 1.0);
// binary for bfloat16/float16 operands whose dtypes differ: dts lists out, a, b (a Python
// number stays a float32 operand, unrounded, as torch's opmath scalar). Note [Half kernels].
void binary_half(BinaryOp op, std::initializer_list<DType> dts, const Loop& L, double alpha = 1.0);
// out(bool) = op(a, b) over Loop{out, a, b}; a and b have dtype `dt`.
void compare(CompareOp op, DType dt, const Loop& L);
// out(real) = |a| over Loop{out, a} for a complex a (out is float32 for complex64).
void abs_complex(DType dt, const Loop& L);
// out(bool) = !a over Loop{out, a}.
void logical_not(DType dt, const Loop& L);
// out(dst) = a(src) converted, over Loop{out, a}.
void cast(DType dst, DType src, const Loop& L);
// out = value over Loop{out}.
void fill(DType dt, const Loop& L, Scalar value);
// out = cond ? a : b over Loop{out, cond(bool), a, b}.
void where(DType dt, const Loop& L);
// out = min(max(a, lo), hi) over Loop{out, a}; NaN stays NaN.
void clamp(DType dt, const Loop& L, const Scalar* lo, const Scalar* hi);

}  // namespace ember::kernels
