// How an op records its backward: the op computes its output, then, only when an input
// requires grad, calls record() with a lambda that maps output gradients to input
// gradients. The lambda sits right under the forward, in the op's own file:
//
//   Tensor out = ...forward...;
//   if (autograd::any_requires_grad(a, b))
//     autograd::record("MulBackward", {&a, &b}, {&out},
//         [sa = SavedTensor(a), sb = SavedTensor(b)](Grads& g, const Node& n) -> Grads {
//           return {n.needs_input_grad(0) ? mul(g[0], sb.get()) : Tensor(), ...};
//         });
//
// One heap allocation per recorded op (the node, with the lambda's captures inside it),
// nothing at all when no input requires grad.
#pragma once
#include <memory>
#include <optional>

#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember::autograd {

inline bool any_requires_grad(const Tensor& a) {
  return a.impl()->requires_grad_ && GradMode::is_enabled();
}
template <class... T>
bool any_requires_grad(const Tensor& a, const T&... rest) {
  return GradMode::is_enabled() && (a.impl()->requires_grad_ || ... || rest.impl()->requires_grad_);
}
bool any_requires_grad(const std::vector<Tensor>& ts);

// A tensor saved for backward, with the version it had when saved. get() throws if it was
// modified in place since (PyTorch's error). An op's own output is saved without its
// grad_fn (that would be a reference cycle) and re-attached on get() under create_graph.
struct HookedSave;  // what saved-tensor hooks packed (ember/saved_hooks.h), in meta.cpp

class SavedTensor {
 public:
  SavedTensor() = default;
  explicit SavedTensor(const Tensor& t, bool is_output = false);
  Tensor get() const;
  bool defined() const { return data_.defined() || hooked_; }

 private:
  Tensor data_;
  std::shared_ptr<const HookedSave> hooked_;  // set instead of data_ while hooks are pushed
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool requires_grad_ = false;
};

// The node whose apply() is running on this thread (for SavedTensor::get).
Node* current_node();

// What every op's node is (the engine tells them from custom Functions' nodes: Note
// [Expanded backward] in docs/compile.md).
class LambdaNodeBase : public Node {};

template <class F>
class LambdaNode final : public LambdaNodeBase {
 public:
  LambdaNode(const char* name, F f) : name_(name), f_(std::move(f)) {}
  Grads apply(Grads&& g) override {
    check_not_released();
    return (*f_)(g, *this);
  }
  std::string name() const override { return name_; }
  void release_saved() override { f_.reset(); }

 private:
  void check_not_released() const;
  const char* name_;
  std::optional<F> f_;
};

template <class F>
void LambdaNode<F>::check_not_released() const {
  if (!f_) throw_released(name_);
}

template <class F>
IntrusivePtr<Node> record(const char* name, std::initializer_list<const Tensor*> inputs,
                          std::initializer_list<const Tensor*> outputs, F&& f) {
  IntrusivePtr<Node> node(new LambdaNode<std::decay_t<F>>(name, std::forward<F>(f)));
  set_history(node, inputs, outputs);
  return node;
}

template <class F>
IntrusivePtr<Node> record(const char* name, const std::vector<Tensor>& inputs,
                          const std::vector<Tensor>& outputs, F&& f) {
  IntrusivePtr<Node> node(new LambdaNode<std::decay_t<F>>(name, std::forward<F>(f)));
  set_history(node, inputs, outputs);
  return node;
}

void mark_view(const Tensor& base, const Tensor& view);

// Records a view op: like record(), and remembers the viewed base so that an in-place write
// through the view later rewrites the base's history (Note [In-place on views]).
template <class F>
IntrusivePtr<Node> record_view(const char* name, const Tensor& base, const Tensor& view, F&& f) {
  IntrusivePtr<Node> node = record(name, {&base}, {&view}, std::forward<F>(f));
  mark_view(base, view);
  return node;
}

// Runs an in-place op with autograd: computes f(x) out of place on a differentiable copy x
// of `self`, writes the result into self, and moves the result's history onto self (or onto
// the base self views). Used by every in-place op when an input requires grad.
Tensor& apply_inplace(Tensor& self, const char* op, const std::function<Tensor(const Tensor&)>& f);

// Note [In-place with the result saved]: an in-place op whose backward reads only its own
// result (relu_, tanh_, sigmoid_, leaky_relu_ with a slope >= 0) may write self directly and
// record its node on self, saving self as its output, as torch does: no clone, no out-of-place
// result, no copy back (apply_inplace's three passes). True when that is allowed: self has no
// autograd view base (a view's base needs CopySlices: apply_inplace) and is its producer's
// output 0 (the saved output is re-attached with that number under create_graph). The caller
// still calls check_inplace before writing, then bumps the version and records.
bool can_write_in_place(const Tensor& self);

// Raises PyTorch's error when an in-place op would write to a leaf that requires grad
// (or a view of one) while grad mode is on. Call before writing anything.
void check_inplace(const Tensor& t, const char* op);

// Note [Gradient into .grad]: the buffer a backward may add input i's gradient into, in
// place, instead of returning a new tensor: the existing .grad of the leaf that input i
// is, when that gives the same result as returning the gradient for AccumulateGrad to add.
// That holds when nothing else flows into the leaf in this backward, no hook sees the
// gradient, the graph is not being differentiated (create_graph) and the gradient is not
// captured (autograd::grad, backward(inputs=)); see AccumulateGrad::inplace_target for
// the buffer's own conditions. Undefined otherwise. A backward that uses the buffer must
// add exactly its gradient into it and return the buffer itself as input i's gradient.
// It saves one pass over the gradient: a matmul's BLAS call adds into .grad with beta = 1
// where `w.grad.zero_()` (rather than `= None`) keeps the buffer between steps.
Tensor grad_destination(const Node& n, size_t i);

// The gradient of a broadcast: sums `g` over the dims that broadcasting added or
// stretched, so the result has `shape`.
Tensor sum_to(const Tensor& g, IntList shape);
// The same, then cast to `dtype` (the input's): the gradient of a broadcasting op for an
// input whose dtype the op promoted. An undefined `g` stays undefined.
Tensor sum_to(const Tensor& g, IntList shape, DType dtype);

}  // namespace ember::autograd
