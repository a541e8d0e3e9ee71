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

  Tensor y = matmul(x, w);                         // (4, 2), BLAS sgemm
  Tensor h = clamp(y, Scalar(0.0), std::nullopt);  // relu
  Tensor loss = sum(mul(h, h));                    // 0-d
  autograd::backward({loss}, {}, false, false);

  std::printf("loss = %.4f\n", loss.item().to_double());
  Tensor g = autograd::grad(w);
  std::printf("dloss/dw has shape (%lld, %lld)\n", (long long)g.size(0), (long long)g.size(1));

  Tensor v = transpose(x, 0, 1);  // a view: shares x's storage
  std::printf("view contiguous: %d, shares storage: %d\n", int(v.is_contiguous()),
              int(v.storage() == x.storage()));

  // Layers and optimizers (ember/nn.h, ember/optim.h): one training step of an MLP.
  Tensor images = randn({64, 1000});
  Tensor labels = randint(0, 10, {64});
  nn::Sequential model({std::make_shared<nn::Linear>(1000, 128), std::make_shared<nn::ReLU>(),
                        std::make_shared<nn::Linear>(128, 10)});
  optim::Adam opt(model.parameters(), {.lr = 1e-3});
  Tensor l = cross_entropy(model(images), labels);
  opt.zero_grad();
  autograd::backward(l);
  opt.step();
  std::printf("MLP cross-entropy before the step: %.4f (about log(10) = 2.30)\n",
              l.item().to_double());
  return 0;
}
