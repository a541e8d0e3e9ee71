// Thread settings exposed to users (torch.set_num_threads / get_num_threads).
#include "ember/ops.h"
#include "kernels/cpu/parallel.h"

namespace ember {

int get_num_threads() { return kernels::num_threads(); }

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, ValueError, "set_num_threads: expected a positive number of threads, got ", n);
  kernels::set_num_threads(n);
}

}  // namespace ember
