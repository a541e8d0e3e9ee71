// ember: a deep-learning tensor library. This header includes everything.
//
//   #include <ember/ember.h>
//   using namespace ember;
//
//   int main() {
//     manual_seed(0);
//     Tensor x = randn({64, 1000});                 // float32 by default
//     Tensor w = randn({1000, 10});
//     Tensor y = matmul(x, w);                      // BLAS sgemm
//     Tensor h = clamp(y, Scalar(0.0), std::nullopt);  // relu
//     Tensor loss = sum(mul(h, h));                 // 0-d tensor
//     std::printf("%f\n", loss.item().to_double());
//
//     Tensor v = transpose(x, 0, 1);                // a view: same storage
//     add_(v, Scalar(1.0));                         // in place, bumps the version
//     Tensor row = select(x, 0, 3);                 // x[3]
//     Tensor m = gt(x, Scalar(0.0));                // bool mask
//     Tensor pos = masked_fill(x, m, Scalar(0.0));  // x[x > 0] = 0, out of place
//   }
//
// Ops throw ember::ValueError / IndexError / TypeError / Error naming the op and
// the shapes involved; they never leave their inputs half-modified.
#pragma once
#include "ember/autograd.h"
#include "ember/capture.h"
#include "ember/complex.h"
#include "ember/data.h"
#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/functional.h"
#include "ember/lr_scheduler.h"
#include "ember/nn.h"
#include "ember/ops.h"
#include "ember/optim.h"
#include "ember/profiler.h"
#include "ember/random.h"
#include "ember/scalar.h"
#include "ember/serialize.h"
#include "ember/shape.h"
#include "ember/storage.h"
#include "ember/tensor.h"
