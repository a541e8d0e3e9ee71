// Branchless helpers shared by the per-ISA kernel copies (reduce_impl.h, loss_impl.h).
// Include this INSIDE the includer's ISA-named anonymous namespace, after <bit>, <cmath>
// and <type_traits>: each instruction-set build then gets its own copy, and copies compiled
// with different target flags never merge at link time (no include guard on purpose).

// c ? a : b as a bitwise select. GCC (with the default -ftrapping-math) will not turn a
// float ?: into a vector select in several kernel loops; this form it vectorizes.
template <class T>
T pick(bool c, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    const U m = U(0) - U(c);
    return std::bit_cast<T>(U((std::bit_cast<U>(a) & m) | (std::bit_cast<U>(b) & ~m)));
  } else {
    return c ? a : b;
  }
}

// exp for float without branches, so loops over it vectorize: Cephes' expf polynomial
// (about 1 ulp). Below -86.6 it returns 0 (the true value is < 2.5e-38).
inline float exp_f(float x) {
  const float lo = -86.6f, hi = 88.72283935546875f;  // hi: log(FLT_MAX)
  float xc = pick(x < lo, lo, x);
  xc = pick(xc > hi, hi, xc);
  const float t = xc * 1.44269504088896341f + 12582912.0f;  // + 1.5 * 2^23 rounds to an integer
  const float n = t - 12582912.0f;
  const int32_t ni = std::bit_cast<int32_t>(t) - 0x4B400000;
  const float r = xc - n * 0.693359375f + n * 2.12194440e-4f;  // x - n * ln 2, in two parts
  float q = 1.9875691500e-4f;
  q = q * r + 1.3981999507e-3f;
  q = q * r + 8.3334519073e-3f;
  q = q * r + 4.1665795894e-2f;
  q = q * r + 1.6666665459e-1f;
  q = q * r + 5.0000001201e-1f;
  q = q * r * r + r + 1.0f;
  // times 2^n as 2^(n-1) * 2, so n = 128 (just below overflow) still has an exponent
  float y = q * std::bit_cast<float>((ni + 126) << 23) * 2.0f;
  y = pick(x < lo, 0.0f, y);
  y = pick(x > hi, float(INFINITY), y);
  return pick(x != x, x, y);
}

// exp_f for float, std::exp otherwise.
template <class T>
T exp_of(T x) {
  if constexpr (std::is_same_v<T, float>) return exp_f(x);
  else return std::exp(x);
}
