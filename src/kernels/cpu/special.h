// Elementwise special functions with kernels of their own (ops.def's EMBER_SPECIAL_UNARY rows:
// hyperbolic and inverse trigonometric functions, log10, exp2, erfinv) and the float
// classifiers (isnan, isinf, ...). Operand 0 is the output.
#pragma once
#include "ember/dtype.h"
#include "kernels/cpu/loop.h"

namespace ember::kernels {

enum class SpecialOp {
#define EMBER_SPECIAL_UNARY(name, Enum) Enum,
#include "ember/ops.def"
#undef EMBER_SPECIAL_UNARY
};
// out = op(a) over Loop{out, a}, both of floating dtype `dt`.
void special(SpecialOp op, DType dt, const Loop& L);

enum class ClassifyOp { IsNan, IsInf, IsPosInf, IsNegInf, IsFinite };
// out (bool) = op(a) over Loop{out, a}, a of floating dtype `dt`.
void classify(ClassifyOp op, DType dt, const Loop& L);

// Fused three-input arithmetic over Loop{out, a, b, c}, all of floating dtype `dt`, with
// PyTorch's formulas (so the same rounding):
//   Lerp:    |c| < 0.5 ? a + c * (b - a) : b - (b - a) * (1 - c)   (c: the weight)
//   Addcmul: a + v * b * c        Addcdiv: a + v * b / c
// `out` may be `a` (the in-place forms).
enum class TernaryOp { Lerp, Addcmul, Addcdiv };
void ternary(TernaryOp op, DType dt, const Loop& L, double v);

}  // namespace ember::kernels
