#include "kernels/cpu/parallel.h"

#include <cblas.h>

#include <atomic>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace ember::kernels {
namespace {
std::atomic<int> g_threads{0};  // what set_num_threads last set; 0: never called
}  // namespace

int num_threads() { return omp_get_max_threads(); }

void set_num_threads(int n) {
  g_threads.store(std::max(n, 1));
  omp_set_num_threads(std::max(n, 1));
  openblas_set_num_threads(std::max(n, 1));
}

void init_num_threads() {
  if (const int n = g_threads.load(); n > 0) omp_set_num_threads(n);
}

bool set_flush_denormal(bool on) {
#if defined(__SSE__)
  constexpr unsigned kFtzDaz = 0x8040;  // MXCSR bit 15 (FTZ) and bit 6 (DAZ)
  auto apply = [on] { _mm_setcsr(on ? (_mm_getcsr() | kFtzDaz) : (_mm_getcsr() & ~kFtzDaz)); };
  apply();
  // Every thread of OpenMP's pool runs the region once (the pool's threads persist).
#pragma omp parallel num_threads(omp_get_max_threads())
  apply();
  return true;
#else
  (void)on;
  return false;
#endif
}

}  // namespace ember::kernels
