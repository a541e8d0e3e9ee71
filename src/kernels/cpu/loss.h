// Loss kernels: the fused cross entropy (log_softmax + nll in one pass over each row), nll,
// and the pointwise losses (mse, l1, bce, bce with logits), each forward and backward.
// Kernels see pointers and sizes only; the ops layer (src/ops/loss.cpp) checks arguments,
// validates targets, makes operands contiguous and allocates outputs.
//
// Every forward returns the sum of its losses (and of the weights of the counted targets),
// so the reductions 'mean' and 'sum' need no second pass and no per-position buffer. The sum
// is deterministic: positions are cut into FIXED blocks (a function of the sizes alone, never
// of the thread count), blocks may run on any thread, and their partial sums are combined in
// block order (see Note [Deterministic reductions] in reduce.h). Sums accumulate in double.
#pragma once
#include <cstdint>

#include "ember/dtype.h"

namespace ember::kernels {

// A loss over classes. The input is contiguous, viewed as (outer, classes, inner): (N, C)
// is (N, C, 1), (N, C, d1, d2) is (N, C, d1 * d2), (C) is (1, C, 1). Each of the
// outer * inner positions has one target; per-position arrays (targets, losses, lse, grads)
// are contiguous in (outer, inner) order.
struct ClassLoss {
  int64_t outer = 1, classes = 1, inner = 1;
  const int64_t* target =
      nullptr;  // class indices, validated (find_bad_target); null for probabilities
  const char* weight = nullptr;  // `classes` values of the input dtype, or null (all 1)
  int64_t ignore_index = -100;   // positions with this target add nothing, not even weight
  double smoothing = 0;          // label smoothing in [0, 1]
  int64_t positions() const { return outer * inner; }
};

struct LossSums {
  double loss = 0;    // sum of the per-position losses
  double weight = 0;  // sum of the target weights of non-ignored positions (the 'mean' divisor)
};

// Losses of one element each, over n contiguous elements of x, y and the optional (null)
// weight w and pos_weight pw, already broadcast to x's shape:
//   Mse: (x - y)^2                 L1: |x - y|
//   Bce: -w * (y * max(log x, -100) + (1 - y) * max(log(1 - x), -100))
//   BceLogits: w * ((1 - y) * x - (1 + (pw - 1) * y) * log_sigmoid(x))   (stable for any x)
enum class PointLoss : uint8_t { Mse, L1, Bce, BceLogits };

struct PointArgs {
  int64_t n = 0;
  const char *x = nullptr, *y = nullptr, *w = nullptr, *pw = nullptr;
};

// The first position whose target is neither in [0, classes) nor ignore_index, or -1.
int64_t find_bad_target(const int64_t* target, int64_t n, int64_t classes, int64_t ignore_index);

// The kernels compiled once per instruction set (cross entropy, nll, the pointwise losses,
// bce's input check): loss_isa.h.
#include "kernels/cpu/loss_isa.h"

}  // namespace ember::kernels
