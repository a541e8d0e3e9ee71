#include "ember/dtype.h"

namespace ember {

size_t itemsize(DType t) {
  static constexpr size_t sizes[] = {1, 1, 4, 8, 4, 8};
  return sizes[int(t)];
}

std::string_view dtype_name(DType t) {
  static constexpr std::string_view names[] = {"bool",  "uint8",   "int32",
                                               "int64", "float32", "float64"};
  return names[int(t)];
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (category(a) != category(b)) return category(a) > category(b) ? a : b;
  // Same category: the wider one. uint8 with a signed type promotes to the signed type
  // (int32/int64 already hold all of uint8), so the enum order is the answer.
  return int(a) > int(b) ? a : b;
}

bool can_cast(DType from, DType to) {
  return category(from) <= category(to);
}

}  // namespace ember
