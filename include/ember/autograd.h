// Reverse-mode automatic differentiation.
//
// Every op that sees an input with requires_grad (while grad mode is on) records a Node:
// the op's backward, holding what it saved from the forward and an Edge to the Node of
// each input. backward() walks that graph from the output, iteratively, counting
// dependencies so each Node runs once with the sum of its incoming gradients.
// Leaves accumulate into .grad through an AccumulateGrad node.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember {

class Node;

// Where a gradient goes: input number `input_nr` of `fn`.
struct Edge {
  IntrusivePtr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return bool(fn); }
};

using Grads = std::vector<Tensor>;
using TensorHook = std::function<Tensor(const Tensor&)>;  // returns a replacement or undefined
// Called with the leaf after its .grad was updated (Tensor.register_post_accumulate_grad_hook).
using PostAccumulateGradHook = std::function<void(const Tensor&)>;

// Hooks on a node itself (torch's Node.register_prehook / Node.register_hook): a pre-hook sees
// the gradients flowing into the node (one per forward output) before it runs, a hook sees
// the gradients it computed for its inputs (one per next edge) and the ones it was given. A
// returned value replaces the gradients (same count); nullopt keeps them. Each has an id for
// remove_node_hook.
using NodePreHook = std::function<std::optional<Grads>(const Grads& grad_outputs)>;
using NodePostHook =
    std::function<std::optional<Grads>(const Grads& grad_inputs, const Grads& grad_outputs)>;
struct NodeHooks {
  std::vector<std::pair<uint64_t, NodePreHook>> pre;
  std::vector<std::pair<uint64_t, NodePostHook>> post;
};

class Node : public RefCounted {
 public:
  Node();
  ~Node() override;
  // Gradients w.r.t. this node's forward outputs in, gradients w.r.t. its inputs out
  // (one per next edge; undefined where an input needs none).
  virtual Grads apply(Grads&& grads_out) = 0;
  virtual std::string name() const = 0;
  // Frees what the forward saved; later apply() calls must throw (retain_graph=False).
  virtual void release_saved() {}
  // Tells apply() which inputs need a gradient (ctx.needs_input_grad).
  bool needs_input_grad(size_t i) const { return i < next_edges.size() && next_edges[i].valid(); }

  std::vector<Edge> next_edges;
  uint32_t num_outputs = 1;
  uint64_t sequence_nr;
  // Hooks on the gradient of forward output k (Tensor.register_hook / retain_grad on non-leaves).
  std::vector<std::pair<uint32_t, TensorHook>> pre_hooks;
  // The node's own hooks (rare: out of line, so that a node without them stays small).
  std::unique_ptr<NodeHooks> hooks;
};

// Grad mode: thread-local on/off switch (no_grad, enable_grad, set_grad_enabled).
struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool on);
};
struct AutoGradMode {
  explicit AutoGradMode(bool on) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(on); }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};
struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

namespace autograd {

// The .grad of a non-leaf that called retain_grad(): shared by the tensor and the hook
// that fills it, so the hook does not keep the tensor (and its graph) alive.
struct GradSlot : RefCounted {
  Tensor grad;
};

// Per-tensor state, created on first need (most tensors never have one).
struct AutogradMeta : AutogradMetaBase {
  Tensor grad;                 // a leaf's .grad
  IntrusivePtr<Node> grad_fn;  // null for leaves
  uint32_t output_nr = 0;
  Node* grad_accumulator = nullptr;    // a leaf's AccumulateGrad while it exists (non-owning)
  IntrusivePtr<GradSlot> retained;     // set by retain_grad() on a non-leaf
  std::vector<TensorHook> leaf_hooks;  // hooks on a leaf's gradient
  std::vector<PostAccumulateGradHook> post_acc_hooks;  // run after a leaf's .grad is updated
  bool is_view_of_leaf = false;  // in-place writes through it must raise, as in PyTorch
  Tensor view_base;              // for a view recorded by autograd: the tensor it views
  // Tensor.grad_dtype: a leaf's incoming gradients are cast to this dtype before they
  // accumulate into .grad (unset: the leaf's own dtype; any_grad_dtype: kept as they come).
  std::optional<DType> grad_dtype;
  bool any_grad_dtype = false;
};
// The dtype AccumulateGrad gives `leaf`'s .grad for an incoming gradient of dtype `incoming`.
DType accumulated_grad_dtype(const Tensor& leaf, DType incoming);
AutogradMeta* meta(const Tensor& t);  // null when the tensor has none
AutogradMeta& ensure_meta(const Tensor& t);

bool requires_grad(const Tensor& t);
void set_requires_grad(const Tensor& t, bool on);  // leaves only
bool is_leaf(const Tensor& t);
Tensor grad(const Tensor& t);
void set_grad(const Tensor& t, const Tensor& g);
IntrusivePtr<Node> grad_fn(const Tensor& t);
void retain_grad(const Tensor& t);
bool retains_grad(const Tensor& t);
void register_hook(const Tensor& t, TensorHook hook);
// Runs `hook(leaf)` each time backward() has accumulated a gradient into the leaf's .grad
// (after the register_hook hooks; not for autograd::grad(), which leaves .grad alone).
// Data-parallel training starts a bucket's all-reduce from here while backward goes on.
void register_post_accumulate_grad_hook(const Tensor& t, PostAccumulateGradHook hook);
// Node.register_prehook / Node.register_hook; the id removes it (false: already removed).
uint64_t add_node_prehook(Node& n, NodePreHook hook);
uint64_t add_node_hook(Node& n, NodePostHook hook);
bool remove_node_hook(Node& n, uint64_t id);
// Runs `callback` once, when the backward() or grad() call that is running on this thread
// has finished every node and hook (torch: Variable._execution_engine.queue_callback).
// Callbacks run in the order queued, and may queue more; they do not run if backward throws.
// Throws when no backward is running on this thread.
void queue_callback(std::function<void()> callback);
// The edge a gradient for `t` flows into: its grad_fn, or its leaf accumulator.
Edge gradient_edge(const Tensor& t);

// Connects a node to its inputs and outputs: sets next edges from `inputs`, makes the node the
// grad_fn of each output (output k gets output_nr k).
void set_history(const IntrusivePtr<Node>& node, std::initializer_list<const Tensor*> inputs,
                 std::initializer_list<const Tensor*> outputs);
void set_history(const IntrusivePtr<Node>& node, const std::vector<Tensor>& inputs,
                 const std::vector<Tensor>& outputs);

// Throws PyTorch's "backward through the graph a second time" error for `node`.
[[noreturn]] void throw_released(const std::string& node);

// Computes gradients of `outputs` (seeded with grad_outputs; undefined = ones for a scalar)
// and accumulates them into the .grad of the leaves.
void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
              bool retain_graph, bool create_graph, const std::vector<Tensor>& inputs = {});
// loss.backward(): backward from one scalar, freeing the graph.
inline void backward(const Tensor& root) { backward({root}, {}, false, false); }
// Returns d(outputs)/d(inputs) instead of accumulating (torch.autograd.grad).
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, bool retain_graph,
                         bool create_graph, bool allow_unused);

}  // namespace autograd
}  // namespace ember
