// Element types and PyTorch's type promotion.
#pragma once
#include <cstddef>
#include <complex>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "ember/half.h"

namespace ember {

// Ordered by promotion rank inside each category (bool < integers < floats < complex), except
// the two 16-bit floats, which came last (promote_types places them below float32), and uint8,
// which ranks below int16 but beside int8 (together they need int16, as torch).
//
// Note [Adding a dtype] (complex64/complex128 first, then bfloat16/float16 with visit_half and
// kernels/cpu/half.h; int8/int16, new members of an old family, skipped 2-3: visit_dtype lists
// them, and only hand dispatches -- switch (dt), sizeof(T) tricks, tables -- needed them):
//  1. the enum value (after the last one of its category), its itemsize and name in
//     dtype.cpp, its category below, promote_types/can_cast if the category is new;
//  2. NOT in visit_dtype: visit_dtype instantiates its lambda for every type it lists, and
//     most ops' lambdas (comparisons, min/max, integer tricks) do not compile for the new
//     type. visit_dtype throws for a dtype it does not list ("<op>: not implemented for
//     'complex64'", the op named by the enclosing EMBER_PROFILE_OP), so every op that has
//     not been taught the new type refuses it instead of misreading its bytes;
//  3. the ops that support it dispatch through visit_dtype_with_complex (all types) or
//     visit_complex (complex only) -- one visitor per new family, so that opting in is
//     explicit and greppable;
//  4. ops that dispatch by hand (`dt == Float32 ? float : double`) must check is_floating
//     first: is_floating is false for complex, as torch.is_floating_point.
// uint16/uint32/uint64 (the "wide unsigned" family, after the 16-bit floats: enum values are
// never compared across families) follow the same rule: torch 2.13 gives them "limited
// support" (creation, casts, copies, indexing, eq/ne, mul, bitwise and/or/xor) and refuses
// to promote them with any other integer or bool type, so they are not in visit_dtype (add,
// lt, max, ... refuse them, as torch's) but in visit_dtype_with_unsigned (the value movers)
// and visit_wide_unsigned (the few arithmetic kernels torch has for them).
enum class DType : uint8_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float32,
  Float64,
  Complex64,
  Complex128,
  BFloat16,
  Float16,
  UInt16,
  UInt32,
  UInt64
};
inline constexpr int kNumDTypes = 15;

using complex64_t = std::complex<float>;
using complex128_t = std::complex<double>;

size_t itemsize(DType t);
std::string_view dtype_name(DType t);  // "float32", "int64", ...
// torch's C++ ScalarType name, as its "not implemented for 'Long'" errors say: "Float", "Long", ...
std::string_view torch_type_name(DType t);
// float32/float64: the types the float kernels are written for. bfloat16/float16 are not
// is_floating (code that dispatches `float : double` after checking it stays correct);
// is_floating_point is torch's question (all four).
inline bool is_floating(DType t) { return t == DType::Float32 || t == DType::Float64; }
inline bool is_half(DType t) { return t == DType::BFloat16 || t == DType::Float16; }
inline bool is_floating_point(DType t) { return is_floating(t) || is_half(t); }
inline bool is_wide_unsigned(DType t) {
  return t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
}
inline bool is_integral(DType t, bool include_bool) {
  return t == DType::UInt8 || t == DType::Int8 || t == DType::Int16 || t == DType::Int32 ||
         t == DType::Int64 || is_wide_unsigned(t) || (include_bool && t == DType::Bool);
}
inline bool is_complex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }
// 0 = bool, 1 = integer, 2 = floating, 3 = complex: promotion compares categories first.
inline int category(DType t) {
  return t == DType::Bool ? 0 : is_floating_point(t) ? 2 : is_complex(t) ? 3 : 1;
}
// complex64 <-> float32, complex128 <-> float64 (torch's toRealValueType / toComplexType);
// other dtypes map to themselves (to_complex of an integer type is complex64).
inline DType to_real(DType t) {
  return t == DType::Complex64 ? DType::Float32 : t == DType::Complex128 ? DType::Float64 : t;
}
inline DType to_complex(DType t) {
  return t == DType::Float64 || t == DType::Complex128 ? DType::Complex128 : DType::Complex64;
}

// promote_types(int32, float32) == float32, (uint8, int32) == int32, ... as torch.promote_types.
// uint16/uint32/uint64 promote only with themselves and with floating types; with bool,
// any other integer or a complex type it throws RuntimeError, as torch 2.13.
DType promote_types(DType a, DType b);
// True when a value of `from` may be written into a tensor of `to` by an in-place op
// (torch.can_cast: no float -> integer, no integer -> bool).
bool can_cast(DType from, DType to);

// The dtype of floating tensors made without one: torch.get_default_dtype(). float32 unless
// set_default_dtype changed it; process-wide, as torch's. Factories (zeros, rand, tensor of
// Python floats), a float scalar with an integer tensor, and integer inputs of floating ops
// (sin, true division) take it.
DType default_dtype();
// Only floating dtypes (float32, float64, bfloat16, float16), else TypeError.
void set_default_dtype(DType t);
// The complex dtype that goes with it (complex128 for float64, else complex64): a Python
// complex number's tensor.
DType default_complex_dtype();

template <class T>
struct dtype_of;
template <>
struct dtype_of<bool> {
  static constexpr DType value = DType::Bool;
};
template <>
struct dtype_of<uint8_t> {
  static constexpr DType value = DType::UInt8;
};
template <>
struct dtype_of<int8_t> {
  static constexpr DType value = DType::Int8;
};
template <>
struct dtype_of<int16_t> {
  static constexpr DType value = DType::Int16;
};
template <>
struct dtype_of<int32_t> {
  static constexpr DType value = DType::Int32;
};
template <>
struct dtype_of<int64_t> {
  static constexpr DType value = DType::Int64;
};
template <>
struct dtype_of<uint16_t> {
  static constexpr DType value = DType::UInt16;
};
template <>
struct dtype_of<uint32_t> {
  static constexpr DType value = DType::UInt32;
};
template <>
struct dtype_of<uint64_t> {
  static constexpr DType value = DType::UInt64;
};
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::Float32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::Float64;
};
template <>
struct dtype_of<complex64_t> {
  static constexpr DType value = DType::Complex64;
};
template <>
struct dtype_of<complex128_t> {
  static constexpr DType value = DType::Complex128;
};
template <>
struct dtype_of<bfloat16_t> {
  static constexpr DType value = DType::BFloat16;
};
template <>
struct dtype_of<float16_t> {
  static constexpr DType value = DType::Float16;
};
template <class T>
inline constexpr bool is_complex_v = false;
template <class T>
inline constexpr bool is_complex_v<std::complex<T>> = true;

// Throws NotImplementedError "<op>: not implemented for '<dtype>'" (the op named by the innermost
// EMBER_PROFILE_OP scope on this thread): what visit_dtype does for a dtype it does not list.
[[noreturn]] void throw_unsupported_dtype(DType t);
// The name of the innermost public op running on this thread ("add"), or "this op".
const char* current_op_name();

// The dtype of a real op that computes in floating point (sinh, logsumexp, ...): t when
// floating (bfloat16/float16 included), the default dtype for bool and integers; throws for complex
// (no complex kernel: converting would silently drop the imaginary part).
inline DType real_float_dtype(DType t) {
  if (t == DType::Complex64 || t == DType::Complex128) throw_unsupported_dtype(t);
  return is_floating_point(t) ? t : default_dtype();
}

// Calls f.template operator()<T>() with T the C++ type of `t`:
//   visit_dtype(t, [&]<class T>() { ... });
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::Bool: return f.template operator()<bool>();
    case DType::UInt8: return f.template operator()<uint8_t>();
    case DType::Int8: return f.template operator()<int8_t>();
    case DType::Int16: return f.template operator()<int16_t>();
    case DType::Int32: return f.template operator()<int32_t>();
    case DType::Int64: return f.template operator()<int64_t>();
    case DType::Float32: return f.template operator()<float>();
    case DType::Float64: return f.template operator()<double>();
    default: break;
  }
  throw_unsupported_dtype(t);  // complex, bfloat16, float16: see Note [Adding a dtype]
}

// The three wide unsigned types only (anything else throws as visit_dtype does for a dtype it
// does not list): the kernels torch 2.13 has for them (mul, bitwise and/or/xor, eq/ne).
template <class F>
decltype(auto) visit_wide_unsigned(DType t, F&& f) {
  if (t == DType::UInt16) return f.template operator()<uint16_t>();
  if (t == DType::UInt32) return f.template operator()<uint32_t>();
  if (t != DType::UInt64) throw_unsupported_dtype(t);
  return f.template operator()<uint64_t>();
}

// visit_dtype plus complex64/complex128 (std::complex<float>/<double>): for the ops that
// are complex-aware (copies, casts, fills, indexing, arithmetic that std::complex has).
template <class F>
decltype(auto) visit_dtype_with_complex(DType t, F&& f) {
  if (t == DType::Complex64) return f.template operator()<complex64_t>();
  if (t == DType::Complex128) return f.template operator()<complex128_t>();
  return visit_dtype(t, std::forward<F>(f));
}

// The two complex types only (callers check is_complex first).
template <class F>
decltype(auto) visit_complex(DType t, F&& f) {
  if (t == DType::Complex64) return f.template operator()<complex64_t>();
  return f.template operator()<complex128_t>();
}

// visit_dtype_with_complex plus uint16/uint32/uint64: the types casts and where move (no
// 16-bit floats: those cast through float32).
template <class F>
decltype(auto) visit_dtype_with_unsigned(DType t, F&& f) {
  if (is_wide_unsigned(t)) return visit_wide_unsigned(t, std::forward<F>(f));
  return visit_dtype_with_complex(t, std::forward<F>(f));
}

// Every dtype: visit_dtype_with_unsigned plus bfloat16/float16 (bfloat16_t/float16_t): for the
// ops that move values without arithmetic or convert them one at a time (copies, fills, item).
template <class F>
decltype(auto) visit_dtype_with_half(DType t, F&& f) {
  if (t == DType::BFloat16) return f.template operator()<bfloat16_t>();
  if (t == DType::Float16) return f.template operator()<float16_t>();
  return visit_dtype_with_unsigned(t, std::forward<F>(f));
}

// visit_dtype plus bfloat16/float16 (no complex): for code that converts each value through
// T(double) or T(int64) and back (arange, linspace, eye).
template <class F>
decltype(auto) visit_dtype_or_half(DType t, F&& f) {
  if (t == DType::BFloat16) return f.template operator()<bfloat16_t>();
  if (t == DType::Float16) return f.template operator()<float16_t>();
  return visit_dtype(t, std::forward<F>(f));
}

// The two 16-bit floating types only (callers check is_half first).
template <class F>
decltype(auto) visit_half(DType t, F&& f) {
  if (t == DType::BFloat16) return f.template operator()<bfloat16_t>();
  return f.template operator()<float16_t>();
}

// Same, for the two floating types only (callers check is_floating first; anything else
// throws as visit_dtype does for a dtype it does not list).
template <class F>
decltype(auto) visit_floating(DType t, F&& f) {
  if (t == DType::Float32) return f.template operator()<float>();
  if (t != DType::Float64) throw_unsupported_dtype(t);
  return f.template operator()<double>();
}

}  // namespace ember
