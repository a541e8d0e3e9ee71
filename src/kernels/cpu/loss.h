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

// The first position whose target is neither in [0, classes) nor ignore_index, or -1.
int64_t find_bad_target(const int64_t* target, int64_t n, int64_t classes, int64_t ignore_index);

// Cross entropy with class-index targets: per position, lse = logsumexp over the classes and
//   loss = (1 - s) * w[t] * (lse - x[t]) + s / C * sum_c w[c] * (lse - x[c])   (s: smoothing),
// 0 at ignored positions. Writes the losses to `loss` and lse to `lse` when they are not null.
LossSums cross_entropy(DType dt, const ClassLoss& a, const char* x, char* loss, char* lse);
// gx = d loss / d x from the saved lse: per position, with gi = (grad ? grad[i] : 1) * scale,
//   gx[c] = gi * (((1 - s) * w[t] + s / C * sum(w)) * softmax[c] - s / C * w[c] - (1 - s) * w[t] *
//   [c == t]),
// 0 at ignored positions. One pass over the input; writes every element of gx.
void cross_entropy_backward(DType dt, const ClassLoss& a, const char* x, const char* lse,
                            const char* grad, double scale, char* gx);

// Cross entropy with class probabilities y (contiguous, shaped like x): with
// q = (1 - s) * y + s / C, loss = -sum_c w[c] * q[c] * log_softmax(x)[c]. LossSums::weight
// counts positions.
LossSums cross_entropy_probs(DType dt, const ClassLoss& a, const char* x, const char* y, char* loss,
                             char* lse);
// gx[c] = gi * (softmax[c] * sum_k w[k] q[k] - w[c] q[c]), gy[c] = -gi * (1 - s) * w[c] *
// log_softmax[c]; gx or gy may be null (not wanted).
void cross_entropy_probs_backward(DType dt, const ClassLoss& a, const char* x, const char* y,
                                  const char* lse, const char* grad, double scale, char* gx,
                                  char* gy);

// nll on log-probabilities x: loss = -w[t] * x[t], 0 at ignored positions.
LossSums nll_loss(DType dt, const ClassLoss& a, const char* x, char* loss);
// gx = -gi * w[t] at the target of each position, 0 elsewhere (writes every element).
void nll_loss_backward(DType dt, const ClassLoss& a, const char* grad, double scale, char* gx);

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

// Writes the losses to `loss` when not null; returns their sum.
double point_loss(PointLoss op, DType dt, const PointArgs& a, char* loss);
// gx, gy (either may be null) = d loss / d x, d loss / d y times gi = (grad ? grad[i] : 1) * scale:
//   Mse: 2 (x - y), -2 (x - y)     L1: sign(x - y), -sign(x - y)
//   Bce: w (x - y) / max(x (1 - x), 1e-12), -w * logit(x)
//   BceLogits: w ((pw y + 1 - y) sigmoid(x) - pw y), w (log_sigmoid(-x) - pw log_sigmoid(x))
void point_loss_backward(PointLoss op, DType dt, const PointArgs& a, const char* grad, double scale,
                         char* gx, char* gy);

// The first of n elements of x outside [0, 1] (NaN included), or -1 (bce's input check).
int64_t find_outside_unit(DType dt, const char* x, int64_t n);

}  // namespace ember::kernels
