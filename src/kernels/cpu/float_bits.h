// Functions of a float's representation: frexp (mantissa and binary exponent) and nextafter
// (the neighbouring representable value), with the C library's semantics, as torch's.
#pragma once
#include <cstdint>

#include "ember/dtype.h"
#include "kernels/cpu/loop.h"

namespace ember::kernels {

// Over Loop{mantissa (dt), exponent (int32), a (dt)}: a = mantissa * 2^exponent,
// 0.5 <= |mantissa| < 1 (0, inf and NaN give themselves and exponent 0), dt floating.
void frexp(DType dt, const Loop& L);
// Over Loop{out, a, b}, all of floating dtype dt: the next value after a towards b.
void nextafter(DType dt, const Loop& L);

}  // namespace ember::kernels
