// The two 16-bit floating types, bfloat16 and float16 (IEEE binary16), as storage types:
// a value converts to float for arithmetic and rounds back once when stored, as in PyTorch.
//
//   ember::bfloat16_t b(3.14159f);   // 3.140625: 8 significant bits, float32's range
//   float f = b;                     // exact: every bfloat16 is a float
//
// Note [Half rounding]: both round to nearest, ties to even, as torch. NaN:
//  - float16 follows the F16C instruction (vcvtps2ph), which torch's casts use: the sign and
//    the top 10 payload bits are kept and the quiet bit is set (NaN -> 0x7E00);
//  - bfloat16 from a scalar (fill, full, tensor([...]), a float64 tensor) is 0x7FC0, torch's
//    round_to_nearest_even; from a float32 tensor (casts and every op's result) it is 0xFFFF,
//    what torch's vectorized conversion writes (kernels/cpu/half.cpp does the same).
#pragma once
#include <bit>
#include <cstdint>

namespace ember {

inline float float_from_bf16_bits(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

// Round to nearest even; NaN -> 0x7FC0 (torch's scalar conversion).
inline uint16_t bf16_bits_from_float(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
  return uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

inline float float_from_f16_bits(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  if (exp == 0x1F)  // inf; a NaN comes back quiet (vcvtph2ps sets the quiet bit)
    return std::bit_cast<float>(sign | 0x7F800000u | (mant ? 0x400000u | (mant << 13) : 0u));
  if (exp != 0) return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
  // Zero or subnormal: mant * 2^-24, exact in float.
  const float v = float(mant) * 0x1p-24f;
  return sign ? -v : v;
}

// Round to nearest even, overflow to inf, subnormals kept, as vcvtps2ph (see the Note).
inline uint16_t f16_bits_from_float(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return uint16_t(sign | 0x7E00u | ((a >> 13) & 0x3FFu));  // NaN
  if (a >= 0x477FF000u) return uint16_t(sign | 0x7C00u);  // >= 65520: rounds to inf
  if (a < 0x38800000u) {                                  // below 2^-14: subnormal or zero
    // Adding 0.5 (2^-1) puts the value's 2^-24 units in the low mantissa bits of a float
    // whose rounding is the hardware's round-to-nearest-even.
    const float r = std::bit_cast<float>(a) + 0.5f;
    return uint16_t(sign | (std::bit_cast<uint32_t>(r) - 0x3F000000u));
  }
  const uint32_t rounded = a + 0xFFFu + ((a >> 13) & 1u);  // exponent carry rounds up
  return uint16_t(sign | ((rounded - 0x38000000u) >> 13));
}

// A storage type: the bits of one value; implicit conversion to float (arithmetic happens in
// float), explicit construction from float (one rounding, where the code asks for it).
template <uint16_t (*Narrow)(float), float (*Widen)(uint16_t)>
struct HalfStorage {
  uint16_t bits = 0;
  HalfStorage() = default;
  explicit HalfStorage(float f) : bits(Narrow(f)) {}
  operator float() const { return Widen(bits); }
};

using bfloat16_t = HalfStorage<bf16_bits_from_float, float_from_bf16_bits>;
using float16_t = HalfStorage<f16_bits_from_float, float_from_f16_bits>;

template <class T>
inline constexpr bool is_half_v = false;
template <>
inline constexpr bool is_half_v<bfloat16_t> = true;
template <>
inline constexpr bool is_half_v<float16_t> = true;

}  // namespace ember
