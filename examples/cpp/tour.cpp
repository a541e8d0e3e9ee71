// A tour of ember's C++ API: tensors, views, broadcasting, BLAS, autograd.
// Built by CMake as `ember_tour`.
#include <cstdio>

#include <ember/ember.h>

using namespace ember;

int main() {
  manual_seed(0);
  Tensor x = randn({4, 3});
  Tensor w = randn({3, 2});
  autograd::set_requires_grad(w, true);

  Tensor y = matmul(x, w);                      // (4, 2), BLAS sgemm
  Tensor h = clamp(y, Scalar(0.0), std::nullopt);  // relu
  Tensor loss = sum(mul(h, h));                 // 0-d
  autograd::backward({loss}, {}, false, false);

  std::printf("loss = %.4f\n", loss.item().to_double());
  Tensor g = autograd::grad(w);
  std::printf("dloss/dw has shape (%lld, %lld)\n", (long long)g.size(0), (long long)g.size(1));

  Tensor v = transpose(x, 0, 1);  // a view: shares x's storage
  std::printf("view contiguous: %d, shares storage: %d\n", int(v.is_contiguous()),
              int(v.storage() == x.storage()));
  return 0;
}
