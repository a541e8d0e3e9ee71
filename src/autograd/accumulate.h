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

 private:
  Tensor leaf_;
};

// Calls the leaf's post-accumulate-grad hooks (after its .grad was updated).
void run_post_accumulate_hooks(const Tensor& leaf);

}  // namespace ember::autograd
