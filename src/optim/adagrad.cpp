// Adagrad with learning-rate decay, weight decay and maximize
// (torch/optim/adagrad.py, _single_tensor_adagrad; dense gradients only).
#include "ember/optim.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/optim.h"
#include "optim/fused.h"

namespace ember::optim {

void adagrad_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                  const std::vector<Tensor>& sums, const std::vector<Tensor>& steps,
                  const AdagradOptions& o) {
  EMBER_RECORD(adagrad_step, params, grads, sums, steps, o);
  EMBER_PROFILE_OP("adagrad_step");
  detail::check_step_args("adagrad_step", params, grads, {{"sums", &sums}}, &steps);
  const kernels::AdagradArgs args{o.weight_decay, o.eps, o.maximize};
  detail::run_step<kernels::AdagradSlot>(
      params, grads,
      [&](size_t i, detail::Staging& st) {
        const Tensor& p = params[i];
        const double step = detail::advance_step(steps[i]);
        return kernels::AdagradSlot{detail::kernel_dtype(p),
                                    p.numel(),
                                    st.write(p),
                                    st.read(grads[i], p),
                                    st.write(sums[i]),
                                    o.lr / (1 + (step - 1) * o.lr_decay)};
      },
      [&](std::span<const kernels::AdagradSlot> slots) { kernels::adagrad(slots, args); });
}

}  // namespace ember::optim
