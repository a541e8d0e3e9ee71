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

bool use_avx512() {
#if defined(__x86_64__) && !defined(__AVX512F__)
  static const bool yes =
      use_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
      !std::getenv("EMBER_DISABLE_AVX512");
  return yes;
#else
  return false;
#endif
}

}  // namespace ember::kernels
