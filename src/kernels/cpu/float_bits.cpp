// frexp and nextafter from the C++ library, elementwise.
#include "kernels/cpu/float_bits.h"

#include <cmath>

namespace ember::kernels {

void frexp(DType dt, const Loop& L) {
  visit_floating(dt, [&]<class T>() {
    for_each(L, [](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        int e = 0;
        const T m = std::frexp(*reinterpret_cast<const T*>(p[2] + i * s[2]), &e);
        *reinterpret_cast<T*>(p[0] + i * s[0]) = m;
        *reinterpret_cast<int32_t*>(p[1] + i * s[1]) = std::isfinite(m) ? int32_t(e) : 0;
      }
    });
  });
}

void nextafter(DType dt, const Loop& L) {
  visit_floating(dt, [&]<class T>() {
    for_each(L, [](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<T*>(p[0] + i * s[0]) =
            std::nextafter(*reinterpret_cast<const T*>(p[1] + i * s[1]),
                           *reinterpret_cast<const T*>(p[2] + i * s[2]));
    });
  });
}

}  // namespace ember::kernels
