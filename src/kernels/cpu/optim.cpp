// Optimizer kernels: the run-time choice between the baseline and the AVX2 + FMA build of
// the kernels in optim_impl.h.
#include "kernels/cpu/cpu.h"
#include "kernels/cpu/optim.h"

#include <cstdlib>

#define EMBER_OPTIM_ISA generic
#include "kernels/cpu/optim_impl.h"
#undef EMBER_OPTIM_ISA

namespace ember::kernels {

namespace avx2 {  // optim_avx2.cpp
void sgd(std::span<const SGDSlot> slots, const SGDArgs& a);
void adam(std::span<const AdamSlot> slots, const AdamArgs& a);
void rmsprop(std::span<const RMSpropSlot> slots, const RMSpropArgs& a);
void adagrad(std::span<const AdagradSlot> slots, const AdagradArgs& a);
}  // namespace avx2

void sgd(std::span<const SGDSlot> slots, const SGDArgs& a) {
  use_avx2() ? avx2::sgd(slots, a) : generic::sgd(slots, a);
}
void adam(std::span<const AdamSlot> slots, const AdamArgs& a) {
  use_avx2() ? avx2::adam(slots, a) : generic::adam(slots, a);
}
void rmsprop(std::span<const RMSpropSlot> slots, const RMSpropArgs& a) {
  use_avx2() ? avx2::rmsprop(slots, a) : generic::rmsprop(slots, a);
}
void adagrad(std::span<const AdagradSlot> slots, const AdagradArgs& a) {
  use_avx2() ? avx2::adagrad(slots, a) : generic::adagrad(slots, a);
}

}  // namespace ember::kernels
