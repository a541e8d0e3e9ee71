// The CTC loss's kernels (torch.nn.functional.ctc_loss): the forward alpha recursion and the
// backward beta recursion, both in log space, one batch element per task, as torch's CPU
// implementation (Graves et al., 2006, eq. 6-8 and 10-16). Kernels see pointers and sizes only;
// src/ops/ctc_loss.cpp checks the lengths and targets and lays the operands out.
#pragma once
#include <cstdint>

#include "ember/dtype.h"

namespace ember::kernels {

// log_probs contiguous (T, N, C); targets int64, element s of batch b's target at
// targets[target_offset[b] + s]; lengths already checked (input <= T, target <= max_target).
// log_alpha is (N, T, 2 * max_target + 1), contiguous.
struct CtcGeom {
  int64_t T = 0, N = 0, C = 0, blank = 0, max_target = 0;
  const int64_t* targets = nullptr;
  const int64_t* target_offset = nullptr;
  const int64_t* input_lengths = nullptr;
  const int64_t* target_lengths = nullptr;
};

// nll[b] = -log p(target_b | log_probs[:input_length_b, b]); fills log_alpha.
void ctc_loss_forward(DType dt, const CtcGeom& g, const char* log_probs, char* nll,
                      char* log_alpha);
// grad (T, N, C), overwritten, as torch: exp(lp) - exp(log(sum of alpha * beta over the
// positions of class c) + nll - lp), times grad_out[b]; 0 for t >= input_length, and 0 for the
// whole element when zero_infinity and its nll is infinite.
void ctc_loss_backward(DType dt, const CtcGeom& g, const char* log_probs, const char* nll,
                       const char* log_alpha, const char* grad_out, bool zero_infinity, char* grad);

}  // namespace ember::kernels
