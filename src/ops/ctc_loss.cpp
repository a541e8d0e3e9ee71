// ctc_loss (torch.ctc_loss / F.ctc_loss): the per-sample negative log-likelihoods of the
// targets under the CTC alignment model, with torch's checks on lengths and targets. The
// reduction ('mean' divides each loss by its target length first) is done by the caller
// with ember ops (python/ember/nn/_ctc_loss.py). One kernel call each way
// (src/kernels/cpu/ctc.cpp); the backward is torch's formula, which assumes log_probs came
// from a log_softmax, and is not itself differentiable (as torch's).
#include "ember/record.h"
#include <limits>

#include "autograd/function.h"
#include "ember/functional.h"
#include "kernels/cpu/ctc.h"
#include "ops/iter.h"

namespace ember {

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntList input_lengths,
                IntList target_lengths, int64_t blank, bool zero_infinity) {
  EMBER_RECORD(ctc_loss, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity);
  const char* op = "ctc_loss";
  ops::check_defined(log_probs, op);
  ops::check_defined(targets, op);
  EMBER_CHECK(log_probs.dim() == 3, Error, op,
              ": expected log_probs of shape (T, N, C), but got log_probs of shape ",
              log_probs.sizes());
  EMBER_CHECK(is_floating(log_probs.dtype()), Error, op,
              ": expected float32 or float64 log_probs, but got ", dtype_name(log_probs.dtype()));
  EMBER_CHECK(is_integral(targets.dtype(), false), Error, op,
              ": expected integer targets (int32 or int64), but got ", dtype_name(targets.dtype()));
  const int64_t T = log_probs.size(0), N = log_probs.size(1), C = log_probs.size(2);
  EMBER_CHECK(blank >= 0 && blank < C, Error, op, ": blank must be in label range: blank ", blank,
              " is not in [0, ", C, ")");
  EMBER_CHECK(int64_t(input_lengths.size()) == N, Error, op,
              ": input_lengths must be of size batch_size (", N, "), but got ",
              input_lengths.size(), " values");
  EMBER_CHECK(int64_t(target_lengths.size()) == N, Error, op,
              ": target_lengths must be of size batch_size (", N, "), but got ",
              target_lengths.size(), " values");
  Dims offsets(size_t(N), 0);
  int64_t max_target = 0, total = 0;
  for (int64_t b = 0; b < N; ++b) {
    const int64_t il = input_lengths[b], tl = target_lengths[b];
    EMBER_CHECK(il >= 0 && il <= T, Error, op, ": Expected input_lengths to have value at most ", T,
                " (and at least 0), but got value ", il, " at batch ", b);
    EMBER_CHECK(tl >= 0, Error, op, ": Expected target_lengths to be non-negative, but got value ",
                tl, " at batch ", b);
    max_target = std::max(max_target, tl);
    if (targets.dim() == 2) {
      EMBER_CHECK(tl <= targets.size(1), Error, op, ": Expected targets to have size at least ", tl,
                  " at dimension 1 (target_lengths[", b, "]), but got targets of shape ",
                  targets.sizes());
      offsets[size_t(b)] = b * targets.size(1);
    } else {
      offsets[size_t(b)] = total;
    }
    total += tl;
  }
  if (targets.dim() == 2) {
    EMBER_CHECK(targets.size(0) == N, Error, op, ": expected targets of shape (N=", N,
                ", S), but got targets of shape ", targets.sizes());
  } else {
    EMBER_CHECK(targets.dim() == 1 && targets.numel() >= total, Error, op,
                ": expected targets of shape (N, S) or (sum(target_lengths)=", total,
                ") concatenated, but got targets of shape ", targets.sizes());
  }
  Tensor tg, lp;
  {
    NoGradGuard no_grad;
    tg = contiguous(to_dtype(targets, DType::Int64));
    lp = log_probs.is_contiguous() ? log_probs : contiguous(detach(log_probs));
  }
  const int64_t* tp = tg.data<int64_t>();
  for (int64_t b = 0; b < N; ++b)
    for (int64_t s = 0; s < target_lengths[b]; ++s) {
      const int64_t v = tp[offsets[size_t(b)] + s];
      EMBER_CHECK(v >= 0 && v < C, IndexError, op, ": target ", v, " (batch ", b, ", position ", s,
                  ") is out of bounds for ", C, " classes");
    }

  const DType dt = log_probs.dtype();
  kernels::CtcGeom g{T,
                     N,
                     C,
                     blank,
                     max_target,
                     tp,
                     offsets.data(),
                     input_lengths.data(),
                     target_lengths.data()};
  Tensor nll = Tensor::empty({N}, dt);
  Tensor alpha = Tensor::empty({N, T, 2 * max_target + 1}, dt);
  kernels::ctc_loss_forward(dt, g, lp.data_ptr(), nll.data_ptr(), alpha.data_ptr());
  Tensor out = nll;
  if (zero_infinity) {
    NoGradGuard no_grad;
    out = masked_fill(nll, eq(nll, Scalar(std::numeric_limits<double>::infinity())), Scalar(0.0));
  } else {
    out = clone(nll);
  }
  if (!autograd::any_requires_grad(log_probs)) return out;
  autograd::record(
      "CtcLossBackward0", {&log_probs}, {&out},
      [slo = autograd::SavedTensor(log_probs), slp = autograd::SavedTensor(lp), tg, nll, alpha,
       zero_infinity, blank, max_target, offsets, il = Dims(input_lengths),
       tl = Dims(target_lengths)](Grads& gs, const Node&) -> Grads {
        const Tensor lo = slo.get(), lp = slp.get();
        Tensor go;
        {
          NoGradGuard no_grad;
          go = contiguous(to_dtype(gs[0], lp.dtype()));
        }
        kernels::CtcGeom g{lp.size(0),         lp.size(1),     lp.size(2), blank,    max_target,
                           tg.data<int64_t>(), offsets.data(), il.data(),  tl.data()};
        Tensor grad = Tensor::empty(lp.sizes(), lp.dtype());
        kernels::ctc_loss_backward(lp.dtype(), g, lp.data_ptr(), nll.data_ptr(), alpha.data_ptr(),
                                   go.data_ptr(), zero_infinity, grad.data_ptr());
        // create_graph: differentiating this gradient raises, as torch (it has no
        // derivative for _ctc_loss_backward either), instead of silently giving 0
        if (GradMode::is_enabled() && autograd::any_requires_grad(lo, gs[0]))
          autograd::record("CtcLossBackwardBackward0", std::vector<Tensor>{lo, gs[0]},
                           std::vector<Tensor>{grad}, [](Grads&, const Node&) -> Grads {
                             throw Error(
                                 "derivative for aten::_ctc_loss_backward is not implemented");
                           });
        return {grad};
      });
  return out;
}

}  // namespace ember
