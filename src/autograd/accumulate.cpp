#include "autograd/accumulate.h"

#include "ember/ops.h"
#include "ember/record.h"

namespace ember::autograd {

AccumulateGrad::~AccumulateGrad() {
  AutogradMeta* m = meta(leaf_);
  if (m && m->grad_accumulator == this) m->grad_accumulator = nullptr;
}

DType accumulated_grad_dtype(const Tensor& leaf, DType incoming) {
  AutogradMeta* m = meta(leaf);
  if (m && m->any_grad_dtype) return incoming;
  return m && m->grad_dtype ? *m->grad_dtype : leaf.dtype();
}

Tensor AccumulateGrad::inplace_target() const {
  AutogradMeta* m = meta(leaf_);
  if (!m || !m->leaf_hooks.empty() || !pre_hooks.empty() || !m->grad.defined()) return {};
  const Tensor& g = m->grad;
  if (g.impl()->use_count() != 1 || g.storage()->use_count() != 1 || !g.is_contiguous() ||
      g.impl()->requires_grad_ || g.dtype() != leaf_.dtype() || g.sizes() != leaf_.sizes() ||
      accumulated_grad_dtype(leaf_, g.dtype()) != leaf_.dtype())
    return {};
  return g;
}

// Note [Expanded backward] (docs/compile.md): while a recording expands a backward, the
// update of .grad is made of recorded calls (set_grad, clone, add_ on the .grad read with
// grad()), so a replay does it without this node. The branch taken is guarded.
bool AccumulateGrad::apply_recorded(Tensor& g) {
  AutogradMeta& m = ensure_meta(leaf_);
  if (!m.leaf_hooks.empty() || !m.post_acc_hooks.empty()) {
    capture::expand_fails("a hook on a leaf's gradient");
    return false;
  }
  if (g.impl()->requires_grad_ || g.sizes() != leaf_.sizes() ||
      accumulated_grad_dtype(leaf_, g.dtype()) != leaf_.dtype() || g.dtype() != leaf_.dtype() ||
      GradMode::is_enabled()) {
    capture::expand_fails("AccumulateGrad: a gradient of another shape or dtype");
    return false;
  }
  capture::detail::t_sink->on_leaf_grad(leaf_, m.grad.defined());
  if (!m.grad.defined()) {
    const bool steal =
        g.impl()->use_count() == 1 && g.storage()->use_count() == 1 && g.is_contiguous();
    set_grad(leaf_, steal ? g : clone(g));
  } else {
    Tensor cur = grad(leaf_);
    add_(cur, g);
  }
  return true;
}

Grads AccumulateGrad::apply(Grads&& grads) {
  const TensorImpl* added = pending_;
  pending_ = nullptr;
  Tensor g = std::move(grads[0]);
  if (!g.defined()) return {};
  if (capture::recording() && apply_recorded(g)) return {};
  AutogradMeta& m = ensure_meta(leaf_);
  if (added && g.impl() == added && m.grad.impl() == added) {  // Note [Gradient into .grad]
    run_post_accumulate_hooks(leaf_);
    return {};
  }
  for (auto& hook : m.leaf_hooks) {
    Tensor r = hook(g);
    if (r.defined()) g = r;
  }
  EMBER_CHECK(g.sizes() == leaf_.sizes(), Error, "AccumulateGrad: gradient of shape ", g.sizes(),
              " does not match the leaf's shape ", leaf_.sizes());
  DType want = accumulated_grad_dtype(leaf_, g.dtype());
  if (g.dtype() != want) g = to_dtype(g, want);
  if (!m.grad.defined()) {
    // Steal the buffer when nobody else holds it; otherwise copy, so that later in-place
    // accumulation never writes into a tensor the user can see.
    bool steal =
        GradMode::is_enabled() || (g.impl()->use_count() == 1 && g.storage()->use_count() == 1 &&
                                   g.is_contiguous() && !g.impl()->requires_grad_);
    m.grad = steal ? g : clone(g);
    if (!GradMode::is_enabled() && m.grad.impl()->requires_grad_) m.grad = detach(m.grad);
  } else if (GradMode::is_enabled()) {
    m.grad = add(m.grad, g);  // create_graph: keep the graph of the sum
  } else {
    add_(m.grad, g);  // accumulate into the existing buffer
  }
  run_post_accumulate_hooks(leaf_);
  return {};
}

void run_post_accumulate_hooks(const Tensor& leaf) {
  AutogradMeta* m = meta(leaf);
  // By index: a hook may register another hook (the vector may grow under us).
  for (size_t i = 0; m && i < m->post_acc_hooks.size(); ++i) {
    PostAccumulateGradHook hook = m->post_acc_hooks[i];
    hook(leaf);
  }
}

}  // namespace ember::autograd
