// histogramdd's binning: one thread (every point may land in any bin), a binary search per dim.
#include "kernels/cpu/histogram.h"

#include <algorithm>

namespace ember::kernels {

void histogramdd(DType dt, const char* points, int64_t n, int64_t D,
                 const std::vector<const char*>& edges, const std::vector<int64_t>& nbins,
                 const char* weight, char* hist) {
  visit_floating(dt, [&]<class T>() {
    const T* x = reinterpret_cast<const T*>(points);
    const T* w = reinterpret_cast<const T*>(weight);
    T* h = reinterpret_cast<T*>(hist);
    for (int64_t i = 0; i < n; ++i) {
      int64_t flat = 0;
      bool inside = true;
      for (int64_t d = 0; d < D && inside; ++d) {
        const T v = x[i * D + d];
        const T* e = reinterpret_cast<const T*>(edges[size_t(d)]);
        const int64_t nb = nbins[size_t(d)];
        if (!(v >= e[0] && v <= e[nb])) {  // outside, or NaN
          inside = false;
          break;
        }
        int64_t k = int64_t(std::upper_bound(e, e + nb + 1, v) - e) - 1;
        k = std::min(k, nb - 1);  // the last edge closes the last bin
        flat = flat * nb + k;
      }
      if (inside) h[flat] += w ? w[i] : T(1);
    }
  });
}

}  // namespace ember::kernels
