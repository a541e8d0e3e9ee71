// What every optimizer step shares: argument checks, contiguous staging of strided
// tensors, step counters, and the driver that hands all parameters to one kernel call.
#pragma once
#include <span>
#include <vector>

#include "ember/autograd.h"
#include "ember/tensor.h"

namespace ember::optim::detail {

// A named list of per-parameter state tensors, for the checks.
struct StateList {
  const char* name;
  const std::vector<Tensor>* tensors;
  bool may_be_undefined = false;  // SGD's momentum buffers before their first step
};

// Throws, before anything is written, unless: grads and every state list have one entry
// per param; each param is a float32/float64 tensor that can be written; each defined grad
// and the state of its param match the param's shape and dtype; each step counter is a
// one-element float tensor.
void check_step_args(const char* op, const std::vector<Tensor>& params,
                     const std::vector<Tensor>& grads, const std::vector<StateList>& states,
                     const std::vector<Tensor>* steps);

// Adds one to a step counter (in its own dtype, as torch's `step_t += 1`) and returns it.
double advance_step(const Tensor& step);

// The dtype an optimizer kernel updates a parameter in: float32 for bfloat16/float16 ones
// (Staging hands the kernel float32 copies of them and rounds the results back once).
inline DType kernel_dtype(const Tensor& p) {
  return is_half(p.dtype()) ? DType::Float32 : p.dtype();
}

// Gives the kernels contiguous memory (float32 copies of bfloat16/float16 tensors): a tensor's own
// when it is contiguous, else a contiguous copy, which finish() copies back for tensors the kernel
// writes. finish() also bumps the version of every written tensor.
class Staging {
 public:
  void* write(const Tensor& t);
  // A tensor only read; copied also when it shares memory with `written`, the parameter
  // updated beside it, since the kernels assume their arrays do not overlap.
  const void* read(const Tensor& t, const Tensor& written);
  void finish();

 private:
  std::vector<Tensor> written_;                  // contiguous: written in place
  std::vector<std::pair<Tensor, Tensor>> back_;  // (strided tensor, its contiguous copy)
  std::vector<Tensor> keep_;                     // read-only copies the kernel uses
};

// True when two parameters (or a parameter and another one's grad) share memory: their
// updates must then run one after the other in list order, as torch's per-parameter loop.
bool must_run_in_order(const std::vector<Tensor>& params, const std::vector<Tensor>& grads);

// Builds a slot for every parameter with a grad (make(i, staging)) and runs the kernel
// over all of them in one call, or one at a time when must_run_in_order.
template <class Slot, class Make, class Kernel>
void run_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads, const Make& make,
              const Kernel& kernel) {
  // Parameters are leaves that require grad: the update is not part of any graph.
  NoGradGuard no_grad;
  const bool in_order = must_run_in_order(params, grads);
  Staging staging;
  std::vector<Slot> slots;
  slots.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    if (!grads[i].defined()) continue;
    slots.push_back(make(i, staging));
    if (in_order) {
      kernel(std::span<const Slot>(&slots.back(), 1));
      staging.finish();
    }
  }
  if (!in_order) {
    kernel(std::span<const Slot>(slots));
    staging.finish();
  }
}

}  // namespace ember::optim::detail
