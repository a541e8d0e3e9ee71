// Loss kernels (see loss.h): the run-time choice between the baseline and the AVX2 + FMA
// build of the kernels in loss_impl.h (as for the reductions: Note [Reduction ISA copies] in
// reduce.h). Cross entropy is exp-bound, and AVX2 doubles the width of every exp.
#include "kernels/cpu/loss.h"

#include "kernels/cpu/cpu.h"

#define EMBER_LOSS_ISA generic
#include "kernels/cpu/loss_impl.h"
#undef EMBER_LOSS_ISA

#if defined(__x86_64__) && !defined(__AVX2__)
#define EMBER_LOSS_DISPATCH(call) (use_avx2() ? avx2::call : generic::call)
#else
#define EMBER_LOSS_DISPATCH(call) (generic::call)
#endif

namespace ember::kernels {

namespace avx2 {  // loss_avx2.cpp
#include "kernels/cpu/loss_isa.h"
}  // namespace avx2

int64_t find_bad_target(const int64_t* target, int64_t n, int64_t classes, int64_t ignore_index) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t t = target[i];
    if (t != ignore_index && (t < 0 || t >= classes)) return i;
  }
  return -1;
}

LossSums cross_entropy(DType dt, const ClassLoss& a, const char* x, char* loss, char* lse) {
  return EMBER_LOSS_DISPATCH(cross_entropy(dt, a, x, loss, lse));
}

void cross_entropy_backward(DType dt, const ClassLoss& a, const char* x, const char* lse,
                            const char* grad, double scale, char* gx) {
  EMBER_LOSS_DISPATCH(cross_entropy_backward(dt, a, x, lse, grad, scale, gx));
}

LossSums cross_entropy_probs(DType dt, const ClassLoss& a, const char* x, const char* y, char* loss,
                             char* lse) {
  return EMBER_LOSS_DISPATCH(cross_entropy_probs(dt, a, x, y, loss, lse));
}

void cross_entropy_probs_backward(DType dt, const ClassLoss& a, const char* x, const char* y,
                                  const char* lse, const char* grad, double scale, char* gx,
                                  char* gy) {
  EMBER_LOSS_DISPATCH(cross_entropy_probs_backward(dt, a, x, y, lse, grad, scale, gx, gy));
}

LossSums nll_loss(DType dt, const ClassLoss& a, const char* x, char* loss) {
  return EMBER_LOSS_DISPATCH(nll_loss(dt, a, x, loss));
}

void nll_loss_backward(DType dt, const ClassLoss& a, const char* grad, double scale, char* gx) {
  EMBER_LOSS_DISPATCH(nll_loss_backward(dt, a, grad, scale, gx));
}

double point_loss(PointLoss op, DType dt, const PointArgs& a, char* loss) {
  return EMBER_LOSS_DISPATCH(point_loss(op, dt, a, loss));
}

void point_loss_backward(PointLoss op, DType dt, const PointArgs& a, const char* grad, double scale,
                         char* gx, char* gy) {
  EMBER_LOSS_DISPATCH(point_loss_backward(op, dt, a, grad, scale, gx, gy));
}

int64_t find_outside_unit(DType dt, const char* x, int64_t n) {
  return EMBER_LOSS_DISPATCH(find_outside_unit(dt, x, n));
}

}  // namespace ember::kernels
