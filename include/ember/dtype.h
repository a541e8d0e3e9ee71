// Element types and PyTorch's type promotion.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace ember {

// Ordered by promotion rank inside each category (bool < integers < floats).
enum class DType : uint8_t { Bool, UInt8, Int32, Int64, Float32, Float64 };
inline constexpr int kNumDTypes = 6;

size_t itemsize(DType t);
std::string_view dtype_name(DType t);  // "float32", "int64", ...
inline bool is_floating(DType t) { return t == DType::Float32 || t == DType::Float64; }
inline bool is_integral(DType t, bool include_bool) {
  return t == DType::UInt8 || t == DType::Int32 || t == DType::Int64 ||
         (include_bool && t == DType::Bool);
}
// 0 = bool, 1 = integer, 2 = floating: promotion compares categories first.
inline int category(DType t) { return t == DType::Bool ? 0 : is_floating(t) ? 2 : 1; }

// promote_types(int32, float32) == float32, (uint8, int32) == int32, ... as torch.promote_types.
DType promote_types(DType a, DType b);
// True when a value of `from` may be written into a tensor of `to` by an in-place op
// (torch.can_cast: no float -> integer, no integer -> bool).
bool can_cast(DType from, DType to);

template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DType value = DType::Bool; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = DType::UInt8; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::Int32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::Int64; };
template <> struct dtype_of<float> { static constexpr DType value = DType::Float32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::Float64; };

// Calls f.template operator()<T>() with T the C++ type of `t`:
//   visit_dtype(t, [&]<class T>() { ... });
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::Bool: return f.template operator()<bool>();
    case DType::UInt8: return f.template operator()<uint8_t>();
    case DType::Int32: return f.template operator()<int32_t>();
    case DType::Int64: return f.template operator()<int64_t>();
    case DType::Float32: return f.template operator()<float>();
    case DType::Float64: break;
  }
  return f.template operator()<double>();
}

// Same, for the two floating types only (callers check is_floating first).
template <class F>
decltype(auto) visit_floating(DType t, F&& f) {
  if (t == DType::Float32) return f.template operator()<float>();
  return f.template operator()<double>();
}

}  // namespace ember
