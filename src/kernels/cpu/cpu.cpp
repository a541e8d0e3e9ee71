#include "kernels/cpu/cpu.h"

#include <cstdlib>

namespace ember::kernels {

bool use_avx2() {
#if defined(__x86_64__) && !defined(__AVX2__)
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                          !std::getenv("EMBER_DISABLE_AVX2");
  return yes;
#else
  return false;
#endif
}

}  // namespace ember::kernels
