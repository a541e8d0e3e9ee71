#include "ember/dtype.h"

#include <atomic>

#include "ember/error.h"
#include "ember/profiler.h"

namespace ember {

size_t itemsize(DType t) {
  static constexpr size_t sizes[] = {1, 1, 1, 2, 4, 8, 4, 8, 8, 16, 2, 2, 2, 4, 8};
  static_assert(std::size(sizes) == kNumDTypes);
  return sizes[int(t)];
}

std::string_view dtype_name(DType t) {
  static constexpr std::string_view names[] = {"bool",      "uint8",      "int8",     "int16",
                                               "int32",     "int64",      "float32",  "float64",
                                               "complex64", "complex128", "bfloat16", "float16",
                                               "uint16",    "uint32",     "uint64"};
  static_assert(std::size(names) == kNumDTypes);
  return names[int(t)];
}

std::string_view torch_type_name(DType t) {
  static constexpr std::string_view names[] = {"Bool",          "Byte",     "Char",
                                               "Short",         "Int",      "Long",
                                               "Float",         "Double",   "ComplexFloat",
                                               "ComplexDouble", "BFloat16", "Half",
                                               "UInt16",        "UInt32",   "UInt64"};
  static_assert(std::size(names) == kNumDTypes);
  return names[int(t)];
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  // torch 2.13 promotes uint16/uint32/uint64 with the floating types only (which win by
  // category below); bool, another integer type or a complex type is refused, as torch.
  EMBER_CHECK(!((is_wide_unsigned(a) || is_wide_unsigned(b)) && category(a) != 2 &&
                category(b) != 2),
              Error,
              "Promotion for uint16, uint32, uint64 types is not supported, attempted to "
              "promote ",
              dtype_name(a), " and ", dtype_name(b));
  // complex64 with float64 keeps float64's precision: complex128 (as torch).
  if (is_complex(a) && b == DType::Float64) return DType::Complex128;
  if (is_complex(b) && a == DType::Float64) return DType::Complex128;
  if (category(a) != category(b)) return category(a) > category(b) ? a : b;
  // bfloat16 and float16 rank below float32 (the enum lists them last); together they need
  // float32, which holds both (as torch: bfloat16 + float16 -> float32).
  if (is_half(a) && is_half(b)) return DType::Float32;
  if (is_half(a)) return b;
  if (is_half(b)) return a;
  // Same category: the wider one. uint8 with a wider signed type promotes to the signed type
  // (int16/int32/int64 hold all of uint8), so the enum order is the answer, but uint8 with
  // int8 needs int16 (neither holds the other), as torch.
  if ((a == DType::UInt8 && b == DType::Int8) || (a == DType::Int8 && b == DType::UInt8))
    return DType::Int16;
  return int(a) > int(b) ? a : b;
}

bool can_cast(DType from, DType to) { return category(from) <= category(to); }

namespace {
std::atomic<DType> g_default_dtype{DType::Float32};
}

DType default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }

void set_default_dtype(DType t) {
  EMBER_CHECK(is_floating_point(t), TypeError,
              "set_default_dtype: only floating-point types are supported as the default type, "
              "got ",
              dtype_name(t));
  g_default_dtype.store(t, std::memory_order_relaxed);
}

DType default_complex_dtype() {
  return default_dtype() == DType::Float64 ? DType::Complex128 : DType::Complex64;
}

const char* current_op_name() {
  const char* op = profiler::detail::t_op;
  return op ? op : "this op";
}

void throw_unsupported_dtype(DType t) {
  // NotImplementedError, as torch's dispatch ("lt_cpu" not implemented for 'ComplexFloat').
  throw NotImplementedError(
      detail::cat(current_op_name(), ": not implemented for '", dtype_name(t), "'"));
}

}  // namespace ember
