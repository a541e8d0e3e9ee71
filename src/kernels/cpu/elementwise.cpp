// Elementwise kernels. Each op is a small functor on one element; run() walks the
// Loop with a contiguous fast path (which the compiler vectorizes) and a strided
// general path. For float32/float64, the contiguous runs of the transcendentals (libm calls
// the compiler can't vectorize), sqrt and the four arithmetic ops go to the SIMD kernels of
// elementwise_hwy.h instead (AVX-512/AVX2/SSE4, picked at run time).
#include "kernels/cpu/elementwise.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/cpu/elementwise_hwy.h"
#include "kernels/cpu/half.h"

namespace ember::kernels {
namespace {

template <class T>
constexpr bool is_float_v = std::is_floating_point_v<T>;

template <class T>
T unary_apply(UnaryOp op, T x) {
  using std::abs;
  switch (op) {
    case UnaryOp::Neg: return T(-x);
    case UnaryOp::Abs:
      if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) return x;
      else return x < 0 ? T(-x) : x == 0 ? T(0) : x;
    case UnaryOp::Sign:
      if constexpr (std::is_same_v<T, bool>) return x;
      else return T((x > 0) - (x < 0));  // sign(NaN) == 0, as in PyTorch
    case UnaryOp::Floor:
      if constexpr (is_float_v<T>) return std::floor(x);
      else return x;
    case UnaryOp::Ceil:
      if constexpr (is_float_v<T>) return std::ceil(x);
      else return x;
    case UnaryOp::Round:
      if constexpr (is_float_v<T>) return std::nearbyint(x);
      else return x;
    case UnaryOp::Trunc:
      if constexpr (is_float_v<T>) return std::trunc(x);
      else return x;
    case UnaryOp::Relu:
      if constexpr (is_float_v<T>) return std::isnan(x) ? x : x > 0 ? x : T(0);
      else return x > 0 ? x : T(0);
    case UnaryOp::Square: return T(x * x);
    default: break;
  }
  if constexpr (is_float_v<T>) {
    switch (op) {
      case UnaryOp::Exp: return std::exp(x);
      case UnaryOp::Expm1: return std::expm1(x);
      case UnaryOp::Log: return std::log(x);
      case UnaryOp::Log1p: return std::log1p(x);
      case UnaryOp::Log2: return std::log2(x);
      case UnaryOp::Sqrt: return std::sqrt(x);
      case UnaryOp::Rsqrt: return T(1) / std::sqrt(x);
      case UnaryOp::Reciprocal: return T(1) / x;
      case UnaryOp::Sin: return std::sin(x);
      case UnaryOp::Cos: return std::cos(x);
      case UnaryOp::Tan: return std::tan(x);
      case UnaryOp::Tanh: return std::tanh(x);
      case UnaryOp::Sigmoid: return T(1) / (T(1) + std::exp(-x));
      case UnaryOp::Erf: return std::erf(x);
      default: break;
    }
  }
  return x;  // unreachable: the ops layer sends only floats to the F-kind ops
}

template <class T>
T int_pow(T base, T exp) {
  if constexpr (std::is_same_v<T, bool>) {
    return base || !exp;
  } else {
    if (exp < 0) return base == 1 ? T(1) : base == T(-1) ? T(exp % 2 ? -1 : 1) : T(0);
    T result = 1;
    while (exp) {
      if (exp & 1) result = T(result * base);
      base = T(base * base);
      exp >>= 1;
    }
    return result;
  }
}

// Euclid on |a|, |b| in T, as PyTorch's calc_gcd: the minimum, whose |x| wraps to itself, then
// gives torch's answer (gcd(-128, 127) == -1 in int8) where std::gcd is undefined.
template <class T>
T int_gcd(T a, T b) {
  T x = a < 0 ? T(-a) : a, y = b < 0 ? T(-b) : b;
  while (x != 0) {
    const T r = std::is_signed_v<T> && x == T(-1) ? T(0) : T(y % x);  // min % -1 traps
    y = x;
    x = r;
  }
  return y;
}

// Python's floor division for floats (PyTorch's div_floor_floating): floor(a / b) rounds
// the quotient first and gets 1 // 0.1 wrong (10 instead of 9); going through fmod does not.
template <class T>
T floor_divide_float(T a, T b) {
  if (b == 0) return a / b;
  T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= T(1);
  if (div == 0) return std::copysign(T(0), a / b);
  T floordiv = std::floor(div);
  return div - floordiv > T(0.5) ? floordiv + T(1) : floordiv;
}

template <class T>
T binary_apply(BinaryOp op, T a, T b, T alpha) {
  switch (op) {
    case BinaryOp::Add: return T(a + alpha * b);
    case BinaryOp::Sub: return T(a - alpha * b);
    case BinaryOp::Mul: return T(a * b);
    case BinaryOp::Div:
      if constexpr (is_float_v<T>) return a / b;
      else return b == 0 ? T(0) : T(a / b);
    case BinaryOp::Pow:
      if constexpr (is_float_v<T>) return std::pow(a, b);
      else return int_pow(a, b);
    case BinaryOp::Maximum:
      if constexpr (is_float_v<T>) return std::isnan(a) || std::isnan(b) ? a + b : a > b ? a : b;
      else return a > b ? a : b;
    case BinaryOp::Minimum:
      if constexpr (is_float_v<T>) return std::isnan(a) || std::isnan(b) ? a + b : a < b ? a : b;
      else return a < b ? a : b;
    case BinaryOp::Remainder:
      if constexpr (is_float_v<T>) {
        T r = std::fmod(a, b);
        return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
      } else if constexpr (std::is_same_v<T, bool>) {
        return false;
      } else {
        if (b == 0 || (std::is_signed_v<T> && b == T(-1))) return T(0);  // ops check b != 0
        T r = T(a % b);
        return r != 0 && ((r < 0) != (b < 0)) ? T(r + b) : r;
      }
    case BinaryOp::FloorDivide:
      if constexpr (is_float_v<T>) {
        return floor_divide_float(a, b);
      } else if constexpr (std::is_same_v<T, bool>) {
        return a;
      } else {
        if (b == 0) return T(0);  // ops check b != 0
        if (std::is_signed_v<T> && b == T(-1)) return T(-a);
        T q = T(a / b);
        return (a % b != 0) && ((a < 0) != (b < 0)) ? T(q - 1) : q;
      }
    case BinaryOp::Atan2:
      if constexpr (is_float_v<T>) return std::atan2(a, b);
      else return a;
    case BinaryOp::BitwiseAnd:
      if constexpr (!is_float_v<T>) return T(a & b);
      else return a;
    case BinaryOp::BitwiseOr:
      if constexpr (!is_float_v<T>) return T(a | b);
      else return a;
    case BinaryOp::BitwiseXor:
      if constexpr (!is_float_v<T>) return T(a ^ b);
      else return a;
    case BinaryOp::Gcd:  // non-negative, gcd(0, 0) == 0 (PyTorch's calc_gcd)
      if constexpr (!is_float_v<T> && !std::is_same_v<T, bool>) return int_gcd(a, b);
      else return a;
    case BinaryOp::Lcm:  // |a / gcd * b|, 0 when both are 0 (wraps on overflow, as PyTorch)
      if constexpr (!is_float_v<T> && !std::is_same_v<T, bool>) {
        const T g = int_gcd(a, b);
        if (g == 0) return T(0);
        const T l = T(a / g * b);
        if constexpr (std::is_signed_v<T>) return l < 0 ? T(-l) : l;
        else return l;
      } else {
        return a;
      }
  }
  return a;
}

template <class T>
bool compare_apply(CompareOp op, T a, T b) {
  switch (op) {
    case CompareOp::Lt: return a < b;
    case CompareOp::Le: return a <= b;
    case CompareOp::Gt: return a > b;
    case CompareOp::Ge: return a >= b;
    case CompareOp::Eq: return a == b;
    case CompareOp::Ne: return a != b;
    case CompareOp::LogicalAnd: return a != T(0) && b != T(0);
    case CompareOp::LogicalOr: return a != T(0) || b != T(0);
    case CompareOp::LogicalXor: return (a != T(0)) != (b != T(0));
  }
  return false;
}

// Runs f(out, a) / f(out, a, b) element by element over a Loop whose operands have
// C++ types Out, In... The contiguous case is a plain indexed loop the compiler
// vectorizes; a stride-0 second input (a scalar or broadcast row) gets its own loop.
template <class Out, class In, class F>
void run1(const Loop& L, F f) {
  for_each(L, [&](char** p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      auto* o = reinterpret_cast<Out*>(p[0]);
      auto* a = reinterpret_cast<const In*>(p[1]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) = f(*reinterpret_cast<const In*>(p[1] + i * s[1]));
    }
  });
}

// run1 for a float op with a SIMD kernel: contiguous runs (one per thread for a
// contiguous tensor) go to simd_unary, strided ones to f.
template <class T, class F>
void run1_simd(const Loop& L, UnaryOp op, F f) {
  for_each(L, [&](char** p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
      simd_unary(op, reinterpret_cast<const T*>(p[1]), reinterpret_cast<T*>(p[0]), n);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<T*>(p[0] + i * s[0]) = f(*reinterpret_cast<const T*>(p[1] + i * s[1]));
    }
  });
}

// run2 for float add/sub/mul/div: contiguous runs, with either input possibly a broadcast
// scalar, go to simd_binary; strided ones to f.
template <class T, class F>
void run2_simd(const Loop& L, BinaryOp op, F f) {
  for_each(L, [&](char** p, const int64_t* s, int64_t n) {
    const bool a1 = s[1] == sizeof(T), b1 = s[2] == sizeof(T);
    if (s[0] == sizeof(T) && (a1 || s[1] == 0) && (b1 || s[2] == 0) && (a1 || b1)) {
      simd_binary(op, reinterpret_cast<const T*>(p[1]), !a1, reinterpret_cast<const T*>(p[2]), !b1,
                  reinterpret_cast<T*>(p[0]), n);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<T*>(p[0] + i * s[0]) = f(*reinterpret_cast<const T*>(p[1] + i * s[1]),
                                                   *reinterpret_cast<const T*>(p[2] + i * s[2]));
    }
  });
}

template <class Out, class In, class F>
void run2(const Loop& L, F f) {
  for_each(L, [&](char** p, const int64_t* s, int64_t n) {
    auto* o = reinterpret_cast<Out*>(p[0]);
    if (s[0] == sizeof(Out) && s[1] == sizeof(In) && s[2] == sizeof(In)) {
      auto* a = reinterpret_cast<const In*>(p[1]);
      auto* b = reinterpret_cast<const In*>(p[2]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
    } else if (s[0] == sizeof(Out) && s[1] == sizeof(In) && s[2] == 0) {
      auto* a = reinterpret_cast<const In*>(p[1]);
      const In b = *reinterpret_cast<const In*>(p[2]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b);
    } else if (s[0] == sizeof(Out) && s[1] == 0 && s[2] == sizeof(In)) {
      const In a = *reinterpret_cast<const In*>(p[1]);
      auto* b = reinterpret_cast<const In*>(p[2]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a, b[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) = f(*reinterpret_cast<const In*>(p[1] + i * s[1]),
                                                     *reinterpret_cast<const In*>(p[2] + i * s[2]));
    }
  });
}

// ---- complex64/complex128 (Note [Adding a dtype] in dtype.h) --------------------------
// The ops std::complex defines; any other op on a complex dtype throws "<op>: not
// implemented for 'complex64'", as visit_dtype does.
template <class T>
void unary_complex(UnaryOp op, const Loop& L) {
  switch (op) {
    case UnaryOp::Neg: return run1<T, T>(L, [](T x) { return -x; });
    case UnaryOp::Square: return run1<T, T>(L, [](T x) { return x * x; });
    case UnaryOp::Exp: return run1<T, T>(L, [](T x) { return std::exp(x); });
    case UnaryOp::Log: return run1<T, T>(L, [](T x) { return std::log(x); });
    case UnaryOp::Sqrt: return run1<T, T>(L, [](T x) { return std::sqrt(x); });
    case UnaryOp::Reciprocal: return run1<T, T>(L, [](T x) { return T(1) / x; });
    case UnaryOp::Sin: return run1<T, T>(L, [](T x) { return std::sin(x); });
    case UnaryOp::Cos: return run1<T, T>(L, [](T x) { return std::cos(x); });
    case UnaryOp::Tan: return run1<T, T>(L, [](T x) { return std::tan(x); });
    case UnaryOp::Tanh: return run1<T, T>(L, [](T x) { return std::tanh(x); });
    case UnaryOp::Sigmoid: return run1<T, T>(L, [](T x) { return T(1) / (T(1) + std::exp(-x)); });
    default: throw_unsupported_dtype(dtype_of<T>::value);
  }
}

// z ** w: an integer real exponent in [-64, 64] multiplies (exact, and 0 ** 2 is 0 where
// exp(2 log 0) is NaN), as torch's complex pow does for small integer powers.
template <class T>
T complex_pow(T a, T b) {
  using R = typename T::value_type;
  if (b.imag() == R(0) && b.real() == std::nearbyint(b.real()) && std::fabs(b.real()) <= R(64)) {
    int64_t n = int64_t(b.real());
    T r(1), x = a;
    for (int64_t k = n < 0 ? -n : n; k; k >>= 1, x *= x)
      if (k & 1) r *= x;
    return n < 0 ? T(1) / r : r;
  }
  return std::pow(a, b);
}

template <class T>
void binary_complex(BinaryOp op, const Loop& L, double alpha_d) {
  const T alpha(static_cast<typename T::value_type>(alpha_d));
  switch (op) {
    case BinaryOp::Add: return run2<T, T>(L, [alpha](T a, T b) { return a + alpha * b; });
    case BinaryOp::Sub: return run2<T, T>(L, [alpha](T a, T b) { return a - alpha * b; });
    case BinaryOp::Mul: return run2<T, T>(L, [](T a, T b) { return a * b; });
    case BinaryOp::Div: return run2<T, T>(L, [](T a, T b) { return a / b; });
    case BinaryOp::Pow: return run2<T, T>(L, [](T a, T b) { return complex_pow(a, b); });
    default: throw_unsupported_dtype(dtype_of<T>::value);
  }
}

template <class T>
void compare_complex(CompareOp op, const Loop& L) {
  switch (op) {
    case CompareOp::Eq: return run2<bool, T>(L, [](T a, T b) { return a == b; });
    case CompareOp::Ne: return run2<bool, T>(L, [](T a, T b) { return a != b; });
    default: throw_unsupported_dtype(dtype_of<T>::value);
  }
}

}  // namespace

void abs_complex(DType dt, const Loop& L) {
  visit_complex(dt, [&]<class T>() {
    using R = typename T::value_type;
    run1<R, T>(L, [](T x) { return std::abs(x); });  // hypot: no overflow for |z| near max
  });
}

// A half unary op with a SIMD kernel: contiguous runs widen in registers (simd_unary_half);
// strided ones go through float32 buffers of 256 elements into the same float32 kernel.
static void unary_half_simd(UnaryOp op, DType dt, const Loop& L) {
  for_each(L, [&](char** p, const int64_t* s, int64_t n) {
    if (s[0] == 2 && s[1] == 2)
      return simd_unary_half(op, dt, reinterpret_cast<const uint16_t*>(p[1]),
                             reinterpret_cast<uint16_t*>(p[0]), n);
    constexpr int64_t kBuf = 256;
    alignas(64) float buf[kBuf];
    uint16_t bits[kBuf];
    for (int64_t i0 = 0; i0 < n; i0 += kBuf) {
      const int64_t m = std::min(kBuf, n - i0);
      for (int64_t j = 0; j < m; ++j) half_to_float(dt, p[1] + (i0 + j) * s[1], buf + j, 1);
      simd_unary(op, buf, buf, m);
      float_to_half(dt, buf, bits, m);
      for (int64_t j = 0; j < m; ++j) std::memcpy(p[0] + (i0 + j) * s[0], bits + j, 2);
    }
  });
}

void unary(UnaryOp op, DType dt, const Loop& L) {
  if (is_half(dt) && op == UnaryOp::Relu) {
    // On the bit patterns (relu_half_bits): contiguous runs in Highway vectors (half_relu).
    const bool bf16 = dt == DType::BFloat16;
    return for_each(L, [&](char** p, const int64_t* s, int64_t n) {
      if (s[0] == 2 && s[1] == 2) return half_relu(dt, p[1], p[0], n);
      for (int64_t i = 0; i < n; ++i) {
        uint16_t b;
        std::memcpy(&b, p[1] + i * s[1], 2);
        b = relu_half_bits(b, bf16);
        std::memcpy(p[0] + i * s[0], &b, 2);
      }
    });
  }
  if (is_half(dt) && simd_unary_enabled(op)) return unary_half_simd(op, dt, L);
  if (is_half(dt))  // Note [Half kernels]
    return run_in_float(L, {dt, dt}, [&](const Loop& F) { unary(op, DType::Float32, F); });
  if (is_complex(dt)) return visit_complex(dt, [&]<class T>() { unary_complex<T>(op, L); });
  visit_dtype(dt, [&]<class T>() {
    constexpr bool simd_type = std::is_same_v<T, float> || std::is_same_v<T, double>;
    const bool simd = simd_type && simd_unary_enabled(op);
    switch (op) {  // one instantiation per op so each inner loop is specialised
#define EMBER_UNARY(name, Enum, kind)                              \
  case UnaryOp::Enum: {                                            \
    auto f = [](T x) { return unary_apply<T>(UnaryOp::Enum, x); }; \
    if constexpr (simd_type) {                                     \
      if (simd) return run1_simd<T>(L, UnaryOp::Enum, f);          \
    }                                                              \
    return run1<T, T>(L, f);                                       \
  }
#include "ember/ops.def"
#undef EMBER_UNARY
    }
  });
}

// x ** c with a constant c of 2 or -1 (the exponent operand has stride 0 everywhere): the
// square/reciprocal kernel instead of std::pow per element, as PyTorch's pow kernel does;
// same values for every input (NaN, ±inf, ±0). Catches x.pow_(2), x **= 2, x ** tensor(2.)
// too. Not 0.5: sqrt(-0) is -0 but pow(-0, 0.5) is +0, and torch.pow(x, tensor(0.5)) is
// pow (the ops layer maps a Python-number 0.5 to sqrt, as torch does).
static bool pow_as_unary(DType dt, const Loop& L) {
  if (L.numel == 0) return false;  // the exponent may have no element to read
  for (int64_t s : L.strides[2])
    if (s != 0) return false;
  const double c = dt == DType::Float32 ? double(*reinterpret_cast<const float*>(L.ptrs[2]))
                                        : *reinterpret_cast<const double*>(L.ptrs[2]);
  if (c != 2.0 && c != -1.0) return false;
  Loop U = L;  // the same loop without the exponent operand
  U.nargs = 2;
  unary(c == 2.0 ? UnaryOp::Square : UnaryOp::Reciprocal, dt, U);
  return true;
}

void binary_half(BinaryOp op, std::initializer_list<DType> dts, const Loop& L, double alpha) {
  run_in_float(L, dts, [&](const Loop& F) { binary(op, DType::Float32, F, alpha); });
}

// uint16/uint32/uint64: the binary kernels torch 2.13 has for them (mul, bitwise and/or/xor);
// the others refuse them, as torch's. The product is taken in uint64_t: uint16 * uint16 in C++'s
// int would overflow (undefined); modulo 2^64, then truncated, it is the wrapped product.
static void binary_wide_unsigned(BinaryOp op, DType dt, const Loop& L) {
  visit_wide_unsigned(dt, [&]<class T>() {
    switch (op) {
      case BinaryOp::Mul:
        return run2<T, T>(L, [](T a, T b) { return T(uint64_t(a) * uint64_t(b)); });
      case BinaryOp::BitwiseAnd: return run2<T, T>(L, [](T a, T b) { return T(a & b); });
      case BinaryOp::BitwiseOr: return run2<T, T>(L, [](T a, T b) { return T(a | b); });
      case BinaryOp::BitwiseXor: return run2<T, T>(L, [](T a, T b) { return T(a ^ b); });
      default: throw_unsupported_dtype(dt);
    }
  });
}

void binary(BinaryOp op, DType dt, const Loop& L, double alpha_d) {
  if (is_half(dt)) return binary_half(op, {dt, dt, dt}, L, alpha_d);
  if (is_wide_unsigned(dt)) return binary_wide_unsigned(op, dt, L);
  if (op == BinaryOp::Pow && (dt == DType::Float32 || dt == DType::Float64) && pow_as_unary(dt, L))
    return;
  if (is_complex(dt))
    return visit_complex(dt, [&]<class T>() { binary_complex<T>(op, L, alpha_d); });
  visit_dtype(dt, [&]<class T>() {
    const T alpha = T(alpha_d);
    constexpr bool simd_type = std::is_same_v<T, float> || std::is_same_v<T, double>;
    const bool simd = simd_type && simd_binary_enabled(op, alpha_d);
    // alpha == 1 without the multiply: x86 has no 8-bit one, and the emulated multiply of
    // `a + alpha * b` made int8 add 3.4x slower than torch's
    if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
      if (op == BinaryOp::Add && alpha == T(1))
        return run2<T, T>(L, [](T a, T b) { return T(a + b); });
      if (op == BinaryOp::Sub && alpha == T(1))
        return run2<T, T>(L, [](T a, T b) { return T(a - b); });
    }
    switch (op) {
#define EMBER_BINARY(name, Enum, kind)                                                   \
  case BinaryOp::Enum: {                                                                 \
    auto f = [alpha](T a, T b) { return binary_apply<T>(BinaryOp::Enum, a, b, alpha); }; \
    if constexpr (simd_type) {                                                           \
      if (simd) return run2_simd<T>(L, BinaryOp::Enum, f);                               \
    }                                                                                    \
    return run2<T, T>(L, f);                                                             \
  }
#include "ember/ops.def"
#undef EMBER_BINARY
    }
  });
}

void compare(CompareOp op, DType dt, const Loop& L) {
  if (is_half(dt))
    return run_in_float(L, {DType::Bool, dt, dt},
                        [&](const Loop& F) { compare(op, DType::Float32, F); });
  if (is_complex(dt)) return visit_complex(dt, [&]<class T>() { compare_complex<T>(op, L); });
  if (is_wide_unsigned(dt)) {  // eq/ne only, as torch 2.13 (lt_cpu refuses them)
    if (op != CompareOp::Eq && op != CompareOp::Ne) throw_unsupported_dtype(dt);
    const bool eq = op == CompareOp::Eq;
    return visit_wide_unsigned(dt, [&]<class T>() {
      run2<bool, T>(L, [eq](T a, T b) { return (a == b) == eq; });
    });
  }
  visit_dtype(dt, [&]<class T>() {
    switch (op) {
#define EMBER_COMPARE(name, Enum) \
  case CompareOp::Enum:           \
    return run2<bool, T>(L, [](T a, T b) { return compare_apply<T>(CompareOp::Enum, a, b); });
#include "ember/ops.def"
#undef EMBER_COMPARE
    }
  });
}

void logical_not(DType dt, const Loop& L) {
  visit_dtype_with_half(dt, [&]<class T>() { run1<bool, T>(L, [](T a) { return a == T(0); }); });
}

template <class D, class S>
D convert(S x) {
  if constexpr (std::is_same_v<D, bool>) {
    return x != S(0);  // complex: true when either part is nonzero
  } else if constexpr (is_complex_v<D> && is_complex_v<S>) {
    return D(x);
  } else if constexpr (is_complex_v<D>) {
    return D(typename D::value_type(x), 0);
  } else if constexpr (is_complex_v<S>) {
    return convert<D>(x.real());  // complex -> real drops the imaginary part, as torch
  } else if constexpr (is_float_v<S> &&
                       (std::is_same_v<D, uint16_t> || std::is_same_v<D, uint32_t> ||
                        std::is_same_v<D, uint64_t>)) {
    // torch's float -> uint16/uint32/uint64 goes through int64 (x86), so a negative value wraps
    // (-1.0 -> 65535, -3.7 -> 65533) and 65536.0 -> uint16 is 0; uint64 takes values from 2^63
    // up directly. NaN and values outside [-2^63, 2^64) have no defined result (C++ UB in
    // torch, which gives 0 for 1e30 and a CPU-specific pattern for NaN): 0 here.
    if (!(x == x) || x < S(-0x1p63) || x >= S(0x1p64)) return D(0);
    if (x >= S(0x1p63)) return D(uint64_t(x));
    return D(uint64_t(int64_t(x)));
  } else if constexpr (is_float_v<S> && !is_float_v<D>) {
    // Out-of-range float -> int is undefined in C++; saturate instead (NaN -> 0).
    if (!(x == x)) return D(0);
    if (x <= S(std::numeric_limits<D>::lowest())) return std::numeric_limits<D>::lowest();
    if (x >= S(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    return D(x);
  } else {
    return D(x);
  }
}

// Casts to or from bfloat16/float16 go through float32 (as torch: a float64 or int64 value
// rounds to float32, then to the half type). NaN as Note [Half rounding]: a bfloat16 from a
// float64/complex128 value takes the scalar conversion (0x7FC0).
void cast_half(DType dst, DType src, const Loop& L) {
  if (dst == src) return run1<uint16_t, uint16_t>(L, [](uint16_t x) { return x; });
  // bfloat16 <-> float16 one value at a time, as torch: a NaN becomes 0x7FC0 in bfloat16 (its
  // scalar rule) and keeps sign and payload in float16 (F16C's).
  if (dst == DType::BFloat16 && src == DType::Float16)
    return run1<bfloat16_t, float16_t>(L, [](float16_t x) { return bfloat16_t(float(x)); });
  if (dst == DType::Float16 && src == DType::BFloat16)
    return run1<float16_t, bfloat16_t>(L, [](bfloat16_t x) { return float16_t(float(x)); });
  if (dst == DType::BFloat16 && src == DType::Float32) {
    // torch's vectorized loop (contiguous runs) writes NaN as 0xFFFF, its scalar loop (strided
    // runs) as 0x7FC0: the same split here.
    return for_each(L, [](char** p, const int64_t* s, int64_t n) {
      if (s[0] == 2 && s[1] == 4)
        return float_to_half(DType::BFloat16, reinterpret_cast<const float*>(p[1]), p[0], n);
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<bfloat16_t*>(p[0] + i * s[0]) =
            bfloat16_t(*reinterpret_cast<const float*>(p[1] + i * s[1]));
    });
  }
  if (dst == DType::BFloat16 && src == DType::Float64)
    return run1<bfloat16_t, double>(L, [](double x) { return bfloat16_t(float(x)); });
  if (dst == DType::BFloat16 && src == DType::Complex128)
    return run1<bfloat16_t, complex128_t>(L, [](complex128_t x) {
      return bfloat16_t(float(x.real()));
    });
  run_in_float(L, {dst, src}, [&](const Loop& F) {
    cast(is_half(dst) ? DType::Float32 : dst, is_half(src) ? DType::Float32 : src, F);
  });
}

void cast(DType dst, DType src, const Loop& L) {
  if (is_half(dst) || is_half(src)) return cast_half(dst, src, L);
  visit_dtype_with_unsigned(dst, [&]<class D>() {
    visit_dtype_with_unsigned(src, [&]<class S>() {
      if constexpr (std::is_same_v<D, S>) {
        // A plain copy (copy_, contiguous, cat): memmove's wide stores for contiguous runs,
        // twice the speed of this file's baseline-ISA loop; a broadcast source is a fill.
        for_each(L, [&](char** p, const int64_t* s, int64_t n) {
          if (s[0] == sizeof(D) && s[1] == sizeof(D)) {
            std::memmove(p[0], p[1], size_t(n) * sizeof(D));
          } else if (s[0] == sizeof(D) && s[1] == 0) {
            D v;
            std::memcpy(&v, p[1], sizeof(D));
            std::fill_n(reinterpret_cast<D*>(p[0]), n, v);
          } else {
            for (int64_t i = 0; i < n; ++i)
              std::memcpy(p[0] + i * s[0], p[1] + i * s[1], sizeof(D));
          }
        });
      } else {
        run1<D, S>(L, [](S x) { return convert<D, S>(x); });
      }
    });
  });
}

void fill(DType dt, const Loop& L, Scalar value) {
  visit_dtype_with_half(dt, [&]<class T>() {
    const T v = value.to<T>();
    // All-zero bytes (zero_, zeros, zero_grad): memset, whose AVX2 stores run at twice the
    // speed of this file's baseline-ISA loop (400 KB: 2.7 us against 6.5 us). -0.0 is not.
    const T zero{};
    const bool zero_bytes = std::memcmp(&v, &zero, sizeof(T)) == 0;
    for_each(L, [&](char** p, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(T) && zero_bytes) {
        std::memset(p[0], 0, size_t(n) * sizeof(T));
      } else if (s[0] == sizeof(T)) {
        T* o = reinterpret_cast<T*>(p[0]);
        for (int64_t i = 0; i < n; ++i) o[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
      }
    });
  });
}

// out[i] = c[i] ? a[i * A] : b[i * B] with both values loaded, so it compiles to a vector
// blend; A and B are 1, or 0 for a broadcast scalar.
template <class T, int A, int B>
void where_run(T* out, const uint8_t* c, const T* a, const T* b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const T x = a[i * A], y = b[i * B];
    out[i] = c[i] ? x : y;
  }
}

void where(DType dt, const Loop& L) {
  auto body = [&]<class T>() {
    for_each(L, [&](char** p, const int64_t* s, int64_t n) {
      const int64_t e = int64_t(sizeof(T));
      if (s[0] == e && s[1] == 1 && (s[2] == e || s[2] == 0) && (s[3] == e || s[3] == 0)) {
        auto* out = reinterpret_cast<T*>(p[0]);
        auto* c = reinterpret_cast<const uint8_t*>(p[1]);
        auto* a = reinterpret_cast<const T*>(p[2]);
        auto* b = reinterpret_cast<const T*>(p[3]);
        if (s[2] && s[3]) where_run<T, 1, 1>(out, c, a, b, n);
        else if (s[2]) where_run<T, 1, 0>(out, c, a, b, n);
        else if (s[3]) where_run<T, 0, 1>(out, c, a, b, n);
        else where_run<T, 0, 0>(out, c, a, b, n);
        return;
      }
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const bool*>(p[1] + i * s[1])
                                                     ? *reinterpret_cast<const T*>(p[2] + i * s[2])
                                                     : *reinterpret_cast<const T*>(p[3] + i * s[3]);
    });
  };
  if (is_half(dt)) return body.template operator()<uint16_t>();  // moves bits only
  visit_dtype_with_unsigned(dt, body);
}

void clamp(DType dt, const Loop& L, const Scalar* lo_s, const Scalar* hi_s) {
  if (is_half(dt))
    return run_in_float(L, {dt, dt}, [&](const Loop& F) { clamp(DType::Float32, F, lo_s, hi_s); });
  visit_dtype(dt, [&]<class T>() {
    const bool has_lo = lo_s != nullptr, has_hi = hi_s != nullptr;
    const T lo = has_lo ? lo_s->to<T>() : T(0), hi = has_hi ? hi_s->to<T>() : T(0);
    // Branch-free, so the contiguous loop vectorizes; a NaN compares false and stays NaN.
    run1<T, T>(L, [=](T x) {
      x = has_lo && x < lo ? lo : x;
      return has_hi && x > hi ? hi : x;
    });
  });
}

}  // namespace ember::kernels
