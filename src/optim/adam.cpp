// Adam and AdamW, with amsgrad and maximize (torch/optim/adam.py, _single_tensor_adam;
// AdamW is Adam with decoupled weight decay).
#include <cmath>

#include "ember/optim.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/optim.h"
#include "optim/fused.h"

namespace ember::optim {

void adam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
               const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
               const std::vector<Tensor>& max_exp_avg_sqs, const std::vector<Tensor>& steps,
               const AdamOptions& o) {
  EMBER_RECORD(adam_step, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, o);
  EMBER_PROFILE_OP("adam_step");
  const char* op = o.decoupled_weight_decay ? "adamw_step" : "adam_step";
  std::vector<detail::StateList> states = {{"exp_avgs", &exp_avgs}, {"exp_avg_sqs", &exp_avg_sqs}};
  if (o.amsgrad) states.push_back({"max_exp_avg_sqs", &max_exp_avg_sqs});
  detail::check_step_args(op, params, grads, states, &steps);
  const kernels::AdamArgs args{o.lr,
                               o.beta1,
                               o.beta2,
                               o.eps,
                               o.weight_decay,
                               o.decoupled_weight_decay ? kernels::WeightDecay::Decoupled
                                                        : kernels::WeightDecay::L2,
                               o.amsgrad,
                               o.maximize};
  detail::run_step<kernels::AdamSlot>(
      params, grads,
      [&](size_t i, detail::Staging& st) {
        const Tensor& p = params[i];
        // Python floats, as torch computes them: beta**step, (1 - beta2**step)**0.5.
        const double step = detail::advance_step(steps[i]);
        const double bc1 = 1 - std::pow(o.beta1, step), bc2 = 1 - std::pow(o.beta2, step);
        return kernels::AdamSlot{detail::kernel_dtype(p),
                                 p.numel(),
                                 st.write(p),
                                 st.read(grads[i], p),
                                 st.write(exp_avgs[i]),
                                 st.write(exp_avg_sqs[i]),
                                 o.amsgrad ? st.write(max_exp_avg_sqs[i]) : nullptr,
                                 o.lr / bc1,
                                 std::pow(bc2, 0.5)};
      },
      [&](std::span<const kernels::AdamSlot> slots) { kernels::adam(slots, args); });
}

void adamw_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
                const std::vector<Tensor>& max_exp_avg_sqs, const std::vector<Tensor>& steps,
                AdamOptions options) {
  options.decoupled_weight_decay = true;
  adam_step(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, options);
}

}  // namespace ember::optim
