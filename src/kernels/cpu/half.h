// bfloat16/float16 in the kernels: contiguous conversions to and from float32, and
// run_in_float, which runs a float32 kernel over a Loop whose operands are half.
//
// Note [Half kernels]: the elementwise kernels are written for float/double. A Loop over
// bfloat16/float16 operands is cut into blocks of kHalfBlock (2048) elements; each half input block
// is widened into a float32 buffer on the stack, the float32 kernel runs on the buffers (a
// flat Loop, on the calling thread), and the float32 result is rounded once into the half
// output (Note [Half rounding]). So every op computes in float32 and rounds once on store,
// as torch's CPU kernels do, with no whole-tensor copy.
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "ember/dtype.h"
#include "kernels/cpu/loop.h"

namespace ember::kernels {

// out[i] = float(in[i]) for a contiguous run of n bfloat16/float16 values (exact).
void half_to_float(DType dt, const void* in, float* out, int64_t n);
// out[i] = in[i] rounded to bfloat16/float16 (NaN -> 0xFFFF for bfloat16: Note [Half rounding]).
void float_to_half(DType dt, const float* in, void* out, int64_t n);
// The sum of n contiguous bfloat16/float16 values, widened in registers and added in float32
// lanes (several accumulators), the lanes combined in float64: one block of a half sum.
float half_sum(DType dt, const void* in, int64_t n);

// relu on one bfloat16/float16 bit pattern: the float32 path's value rounded once, x > 0 ? x
// : +0, and a NaN as float_to_half writes it (bfloat16 0xFFFF; float16 quieted, sign and
// payload kept).
inline uint16_t relu_half_bits(uint16_t b, bool bf16) {
  const unsigned mag = b & 0x7FFFu, inf = bf16 ? 0x7F80u : 0x7C00u;
  const uint16_t nan = bf16 ? uint16_t(0xFFFF) : uint16_t(b | 0x0200u);
  const uint16_t keep = (b >> 15) == 0 && mag != 0 ? b : uint16_t(0);
  return mag > inf ? nan : keep;
}
// out[i] = relu_half_bits(in[i]) for a contiguous run of n values (out may be in).
void half_relu(DType dt, const void* in, void* out, int64_t n);

inline constexpr int64_t kHalfBlock = 2048;

// Runs body(FL) with FL a flat Loop of at most kHalfBlock elements, over all of L. Operand k
// has dtype dts[k]; half operands reach body as float32 (contiguous, or stride 0 when
// broadcast), the others unchanged. Operand 0 is the output: when it is half, body writes
// float32 that is rounded into it; it is never read.
template <class F>
void run_in_float(const Loop& L, std::initializer_list<DType> dts, F&& body) {
  DType dt[Loop::kMaxArgs] = {};
  int na = 0;
  for (DType d : dts) dt[na++] = d;
  for_each(L, [&](char** p, const int64_t* s, int64_t n) {
    alignas(64) float buf[Loop::kMaxArgs][kHalfBlock];
    for (int64_t i0 = 0; i0 < n; i0 += kHalfBlock) {
      const int64_t m = std::min(kHalfBlock, n - i0);
      char* ptrs[Loop::kMaxArgs];
      int64_t bs[Loop::kMaxArgs];
      for (int k = 0; k < na; ++k) {
        char* base = p[k] + i0 * s[k];
        if (!is_half(dt[k])) {
          ptrs[k] = base;
          bs[k] = s[k];
          continue;
        }
        ptrs[k] = reinterpret_cast<char*>(buf[k]);
        bs[k] = s[k] == 0 ? 0 : 4;
        if (k == 0) continue;
        if (s[k] == 0) half_to_float(dt[k], base, buf[k], 1);
        else if (s[k] == 2) half_to_float(dt[k], base, buf[k], m);
        else
          for (int64_t j = 0; j < m; ++j) half_to_float(dt[k], base + j * s[k], buf[k] + j, 1);
      }
      body(Loop::flat(m, na, ptrs, bs));
      if (!is_half(dt[0])) continue;
      char* out = p[0] + i0 * s[0];
      if (s[0] == 2) float_to_half(dt[0], buf[0], out, m);
      else
        for (int64_t j = 0; j < m; ++j) float_to_half(dt[0], buf[0] + j, out + j * s[0], 1);
    }
  });
}

}  // namespace ember::kernels
