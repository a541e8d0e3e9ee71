// SGD with momentum, dampening, Nesterov, weight decay and maximize
// (torch/optim/sgd.py, _single_tensor_sgd).
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "ember/optim.h"
#include "kernels/cpu/optim.h"
#include "optim/fused.h"

namespace ember::optim {

void sgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
              std::vector<Tensor>& momentum_buffers, const SGDOptions& o) {
  EMBER_RECORD(sgd_step, params, grads, momentum_buffers, o);
  EMBER_PROFILE_OP("sgd_step");
  const char* op = "sgd_step";
  const bool momentum = o.momentum != 0;
  std::vector<detail::StateList> states;
  if (momentum) states.push_back({"momentum_buffers", &momentum_buffers, true});
  detail::check_step_args(op, params, grads, states, nullptr);
  const kernels::SGDArgs args{o.lr,           o.momentum, o.dampening,
                              o.weight_decay, o.nesterov, o.maximize};
  detail::run_step<kernels::SGDSlot>(
      params, grads,
      [&](size_t i, detail::Staging& st) {
        const Tensor& p = params[i];
        kernels::SGDSlot s{detail::kernel_dtype(p), p.numel(), st.write(p),
                           st.read(grads[i], p),    nullptr,   false};
        if (momentum) {
          Tensor& buf = momentum_buffers[i];
          // torch starts the buffer as a copy of the first (decayed) gradient.
          s.first = !buf.defined();
          if (s.first) buf = empty(p.sizes(), p.dtype());
          s.momentum_buffer = st.write(buf);
        }
        return s;
      },
      [&](std::span<const kernels::SGDSlot> slots) { kernels::sgd(slots, args); });
}

}  // namespace ember::optim
