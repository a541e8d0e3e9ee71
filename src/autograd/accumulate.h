// AccumulateGrad: the node at a leaf. It adds the incoming gradient to the leaf's .grad,
// in place when it can (no new buffer per backward), after running the leaf's hooks;
// then it runs the leaf's post-accumulate-grad hooks.
#pragma once
#include "ember/autograd.h"

namespace ember::autograd {

class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor leaf) : leaf_(std::move(leaf)) { num_outputs = 1; }
  ~AccumulateGrad() override;
  Grads apply(Grads&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  const Tensor& leaf() const { return leaf_; }

  // Note [Gradient into .grad]: the leaf's .grad when a backward may add its gradient
  // straight into it (BLAS beta = 1) instead of returning a new tensor for apply() to add:
  // defined, contiguous, in the leaf's dtype and shape, held by nobody else, and no hook
  // wants to see the gradient alone. Undefined otherwise. The engine decides the rest
  // (autograd::grad_destination).
  Tensor inplace_target() const;
  // Marks `grad` (the target handed out) as already added: apply() then only runs the
  // post-accumulate hooks when it receives that tensor. clear_pending() undoes the mark.
  void set_pending(const TensorImpl* grad) { pending_ = grad; }
  void clear_pending() { pending_ = nullptr; }

 private:
  bool apply_recorded(Tensor& g);  // Note [Expanded backward]: false when it cannot
  Tensor leaf_;
  const TensorImpl* pending_ = nullptr;
};

// Calls the leaf's post-accumulate-grad hooks (after its .grad was updated).
void run_post_accumulate_hooks(const Tensor& leaf);

}  // namespace ember::autograd
