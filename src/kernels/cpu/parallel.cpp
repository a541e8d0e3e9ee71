#include "kernels/cpu/parallel.h"

#include <cblas.h>

namespace ember::kernels {

int num_threads() { return omp_get_max_threads(); }

void set_num_threads(int n) {
  omp_set_num_threads(std::max(n, 1));
  openblas_set_num_threads(std::max(n, 1));
}

}  // namespace ember::kernels
