// One thread pool for everything: OpenMP's, which OpenBLAS (the OpenMP build) also
// uses, so BLAS calls and ember's own loops never fight over the two cores.
// Work smaller than `grain` elements stays on the calling thread.
#pragma once
#include <algorithm>
#include <cstdint>

#include <omp.h>

namespace ember::kernels {

int num_threads();
void set_num_threads(int n);
// OpenMP's thread count is a per-thread setting: a thread started later (a Python thread, a
// DataLoader worker thread) begins with OpenMP's default. This gives the calling thread the
// count set_num_threads last set (nothing when it was never called).
void init_num_threads();
// Sets (on) or clears the CPU's flush-to-zero and denormals-are-zero modes (MXCSR FTZ/DAZ) on
// the calling thread and on every thread of the pool. False (nothing set) without SSE.
bool set_flush_denormal(bool on);

// Elementwise work below this many elements is not worth waking a second thread.
inline constexpr int64_t kGrain = 32768;

// Calls f(begin, end) on disjoint sub-ranges covering [begin, end), in parallel when
// the range is large. f must not throw.
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  int64_t n = end - begin;
  if (n <= 0) return;
  int max_threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  int64_t want = std::min<int64_t>(max_threads, (n + grain - 1) / std::max<int64_t>(grain, 1));
  if (want <= 1) {
    f(begin, end);
    return;
  }
#pragma omp parallel num_threads(int(want))
  {
    int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    int64_t chunk = (n + nt - 1) / nt;
    int64_t b = begin + t * chunk, e = std::min(end, b + chunk);
    if (b < e) f(b, e);
  }
}

}  // namespace ember::kernels
