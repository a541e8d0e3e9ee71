// RMSprop, centered or not, with momentum, weight decay and maximize
// (torch/optim/rmsprop.py, _single_tensor_rmsprop).
#include "ember/optim.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/optim.h"
#include "optim/fused.h"

namespace ember::optim {

void rmsprop_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                  const std::vector<Tensor>& square_avgs, const std::vector<Tensor>& grad_avgs,
                  const std::vector<Tensor>& momentum_buffers, const std::vector<Tensor>& steps,
                  const RMSpropOptions& o) {
  EMBER_RECORD(rmsprop_step, params, grads, square_avgs, grad_avgs, momentum_buffers, steps, o);
  EMBER_PROFILE_OP("rmsprop_step");
  const char* op = "rmsprop_step";
  const bool momentum = o.momentum > 0;  // torch tests momentum > 0 here, not != 0
  std::vector<detail::StateList> states = {{"square_avgs", &square_avgs}};
  if (o.centered) states.push_back({"grad_avgs", &grad_avgs});
  if (momentum) states.push_back({"momentum_buffers", &momentum_buffers});
  detail::check_step_args(op, params, grads, states, &steps);
  const kernels::RMSpropArgs args{o.lr,       o.alpha,    o.eps,     o.weight_decay,
                                  o.momentum, o.centered, o.maximize};
  detail::run_step<kernels::RMSpropSlot>(
      params, grads,
      [&](size_t i, detail::Staging& st) {
        const Tensor& p = params[i];
        detail::advance_step(steps[i]);  // counted, as in torch; the update does not use it
        return kernels::RMSpropSlot{detail::kernel_dtype(p),
                                    p.numel(),
                                    st.write(p),
                                    st.read(grads[i], p),
                                    st.write(square_avgs[i]),
                                    o.centered ? st.write(grad_avgs[i]) : nullptr,
                                    momentum ? st.write(momentum_buffers[i]) : nullptr};
      },
      [&](std::span<const kernels::RMSpropSlot> slots) { kernels::rmsprop(slots, args); });
}

}  // namespace ember::optim
