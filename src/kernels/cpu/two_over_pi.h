// The bits of 2/pi that the SIMD sin/cos need to reduce a large float32 argument exactly
// (Payne-Hanek reduction, trig_large_hwy-inl.h), laid out per float exponent so that the
// vector code fetches them with one gather each. Built at compile time from the constant.
#pragma once

#include <array>
#include <cstdint>

namespace ember::kernels {

// 2/pi = 0.A2F9836E 4E441529 ... (hex), 256 bits: b_k is the bit of weight 2^-k, k = 1..256.
inline constexpr uint32_t kTwoOverPiWords[8] = {0xA2F9836E, 0x4E441529, 0xFC2757D1, 0xF534DDC0,
                                                0xDB629599, 0x3C439041, 0xFE5163AB, 0xDEBBC561};

constexpr int two_over_pi_bit(int k) {  // b_k; 0 for k <= 0 (2/pi < 1)
  if (k <= 0 || k > 256) return 0;
  return int(kTwoOverPiWords[(k - 1) / 32] >> (31 - (k - 1) % 32)) & 1;
}

// For a float x = m * 2^e (m the 24-bit integer mantissa, e = biased exponent - 150), the
// bits of x * 2/pi that are not a multiple of 4 come from b_k with k >= e - 1. Window j
// holds the 28 bits b_{e-1+28j} .. b_{e-1+28j+27} as an integer (exact in a double), so
// x * 2/pi = 4n + m * (W0 2^-26 + W1 2^-54 + W2 2^-82) + (less than 2^-84 relative), and
// each m * Wj (< 2^52) is exact in a double.
struct TwoOverPiWindows {
  std::array<double, 256> w0{}, w1{}, w2{};
};

constexpr TwoOverPiWindows make_two_over_pi_windows() {
  TwoOverPiWindows t;
  for (int biased = 0; biased < 256; ++biased) {
    const int s = biased - 150 - 1;
    double* dst[3] = {&t.w0[biased], &t.w1[biased], &t.w2[biased]};
    for (int j = 0; j < 3; ++j) {
      int64_t w = 0;
      for (int i = 0; i < 28; ++i) w = w * 2 + two_over_pi_bit(s + 28 * j + i);
      *dst[j] = double(w);
    }
  }
  return t;
}

inline constexpr TwoOverPiWindows kTwoOverPiWindows = make_two_over_pi_windows();

}  // namespace ember::kernels
