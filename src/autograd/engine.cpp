// The backward engine. Iterative (no recursion: a chain of 100,000 ops is fine):
//  1. walk the graph from the roots once to count, for each node, how many edges point at it;
//  2. seed the roots' input buffers with the output gradients;
//  3. run ready nodes (all their incoming gradients have arrived, summed in their buffer),
//     pushing each result into the buffer of the node it flows to.
// Note [Engine order]: any order that respects the dependency counts is correct; a stack
// keeps memory low by finishing one branch before starting another.
#include <algorithm>
#include <atomic>
#include <optional>

#include "autograd/accumulate.h"
#include "autograd/callbacks.h"
#include "autograd/function.h"
#include "ember/anomaly.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "ops/iter.h"

namespace ember::autograd {
namespace {

std::atomic<bool> g_anomaly{false};
std::atomic<bool> g_anomaly_check_nan{true};

// Anomaly mode: the first node whose result holds a NaN is named (ember/anomaly.h).
void check_nan_results(const Node& n, const Grads& outs) {
  NoGradGuard no_grad;
  for (size_t i = 0; i < outs.size(); ++i) {
    const Tensor& g = outs[i];
    if (!g.defined() || !(is_floating_point(g.dtype()) || is_complex(g.dtype()))) continue;
    EMBER_CHECK(!any(isnan(g)).item().to<bool>(), Error, "Function '", n.name(),
                "' returned nan values in its ", i, "th output.");
  }
}

thread_local Node* t_current = nullptr;

struct CurrentNode {
  explicit CurrentNode(Node* n) : prev_(t_current) { t_current = n; }
  ~CurrentNode() { t_current = prev_; }
  Node* prev_;
};

struct NodeState {
  int64_t deps = 0;
  Grads buffer;
};

// Each node's state during one backward, keyed by node: open addressing in one array.
// (std::unordered_map allocated once per node, which cost more than the arithmetic of a
// small graph.) References stay valid until the next insertion of a new node.
class StateMap {
 public:
  StateMap() : slots_(16) {}
  // The node's state and whether it was just inserted.
  std::pair<NodeState*, bool> try_emplace(Node* n) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    Slot& s = probe(slots_, n);
    bool fresh = s.key == nullptr;
    if (fresh) {
      s.key = n;
      ++size_;
    }
    return {&s.value, fresh};
  }
  NodeState& operator[](Node* n) { return *try_emplace(n).first; }
  NodeState* find(Node* n) {
    Slot& s = probe(slots_, n);
    return s.key ? &s.value : nullptr;
  }

 private:
  struct Slot {
    Node* key = nullptr;
    NodeState value;
  };
  static Slot& probe(std::vector<Slot>& slots, Node* n) {
    size_t mask = slots.size() - 1;
    size_t i = (reinterpret_cast<uintptr_t>(n) >> 4) * 0x9E3779B97F4A7C15ull >> 20 & mask;
    while (slots[i].key != nullptr && slots[i].key != n) i = (i + 1) & mask;
    return slots[i];
  }
  void grow() {
    std::vector<Slot> bigger(2 * slots_.size());
    for (Slot& s : slots_) {
      if (s.key) probe(bigger, s.key) = std::move(s);
    }
    slots_.swap(bigger);
  }
  std::vector<Slot> slots_;  // size: a power of two, at most half full
  size_t size_ = 0;
};

// The backward running on this thread, for grad_destination (Note [Gradient into .grad]).
struct Run {
  Run(StateMap& s, bool fuse) : state(s), fuse(fuse), prev(t_run) { t_run = this; }
  ~Run() {  // after an exception, no AccumulateGrad keeps a mark for a later backward
    for (AccumulateGrad* a : handed_out) a->clear_pending();
    t_run = prev;
  }
  StateMap& state;
  bool fuse;
  Run* prev;
  std::vector<AccumulateGrad*> handed_out;
  static thread_local Run* t_run;
};
thread_local Run* Run::t_run = nullptr;

// Note [Expanded backward]: the nodes whose apply() a recording of their ops stands for:
// the ops' own (LambdaNode) and AccumulateGrad, without hooks (Python code).
void expand_check(const Node& n) {
  if (!n.pre_hooks.empty()) capture::expand_fails("a hook on the gradient of " + n.name());
  else if (n.hooks) capture::expand_fails("a hook on node " + n.name());
  else if (!dynamic_cast<const LambdaNodeBase*>(&n) && !dynamic_cast<const AccumulateGrad*>(&n))
    capture::expand_fails("node " + n.name() + " (a custom Function) runs Python");
}

// The node's hooks' results must keep the count of the gradients they replace.
void check_hook_result(const Node& n, const Grads& got, size_t expected, const char* what) {
  EMBER_CHECK(got.size() == expected, Error, what, " of ", n.name(),
              " has returned an incorrect number of values (got ", got.size(), ", but expected ",
              expected, ")");
}

// Node pre-hooks (Node.register_prehook) replace the gradients the node is given; returns
// them as given, for its post hooks' grad_outputs. A copy of the list: a hook may remove
// itself.
Grads run_node_prehooks(Node& n, Grads& grads) {
  std::vector<std::pair<uint64_t, NodePreHook>> pre = n.hooks->pre;
  for (auto& [id, hook] : pre) {
    std::optional<Grads> r = hook(grads);
    if (r) {
      check_hook_result(n, *r, grads.size(), "a pre-hook");
      grads = std::move(*r);
    }
  }
  return n.hooks && !n.hooks->post.empty() ? grads : Grads();
}

// Node hooks (Node.register_hook): (grad_inputs, grad_outputs) -> new grad_inputs.
void run_node_hooks(Node& n, Grads& outs, const Grads& given) {
  outs.resize(n.next_edges.size());
  std::vector<std::pair<uint64_t, NodePostHook>> post = n.hooks->post;
  for (auto& [id, hook] : post) {
    std::optional<Grads> r = hook(outs, given);
    if (r) {
      check_hook_result(n, *r, outs.size(), "a hook");
      outs = std::move(*r);
    }
  }
}

void accumulate(Grads& buffer, uint32_t slot, Tensor g) {
  if (buffer.size() <= slot) buffer.resize(slot + 1);
  Tensor& cur = buffer[slot];
  if (!cur.defined()) cur = std::move(g);
  else cur = add(cur, g);
}

Tensor seed_for(const Tensor& out, const Tensor& given, size_t i) {
  if (given.defined()) {
    EMBER_CHECK(given.sizes() == out.sizes(), ValueError,
                "backward: mismatch in shape: grad_output[", i, "] has a shape of ", given.sizes(),
                " and output[", i, "] has a shape of ", out.sizes());
    return given;
  }
  EMBER_CHECK(out.numel() == 1, Error,
              "backward: grad can be implicitly created only for scalar "
              "outputs (output ",
              i, " has shape ", out.sizes(), ")");
  EMBER_CHECK(!is_complex(out.dtype()), Error,
              "backward: grad can be implicitly created only for "
              "real scalar outputs (output ",
              i, " is ", dtype_name(out.dtype()), ")");
  // An expanded backward (Note [Expanded backward]) makes its seed with a recorded op.
  if (capture::recording()) return full(out.sizes(), Scalar(1), out.dtype());
  Tensor one = Tensor::empty(out.sizes(), out.dtype());
  ops::store_scalar(out.dtype(), Scalar(1), one.data_ptr());
  return one;
}

// Runs the graph. `captures` maps (node, slot) -> index in `captured`: for autograd.grad(),
// the gradient arriving there is recorded, and AccumulateGrad nodes are not run.
void run(const std::vector<Edge>& roots, const Grads& root_grads, bool keep_graph,
         bool create_graph, const std::vector<Edge>* captures, Grads* captured) {
  StateMap state;
  Run run(state, !create_graph && captures == nullptr);
  std::vector<Node*> stack;
  for (const Edge& e : roots) {
    if (e.valid() && state.try_emplace(e.fn.get()).second) stack.push_back(e.fn.get());
  }
  while (!stack.empty()) {  // 1. dependency counts
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges) {
      if (!e.valid()) continue;
      auto [st, fresh] = state.try_emplace(e.fn.get());
      ++st->deps;
      if (fresh) stack.push_back(e.fn.get());
    }
  }
  for (size_t i = 0; i < roots.size(); ++i) {  // 2. seeds
    if (roots[i].valid())
      accumulate(state[roots[i].fn.get()].buffer, roots[i].input_nr, root_grads[i]);
  }
  std::vector<Node*> ready;
  for (const Edge& e : roots) {
    if (e.valid() && state[e.fn.get()].deps == 0 &&
        (ready.empty() || std::find(ready.begin(), ready.end(), e.fn.get()) == ready.end()))
      ready.push_back(e.fn.get());
  }
  AutoGradMode mode(create_graph);
  while (!ready.empty()) {  // 3. execution
    Node* n = ready.back();
    ready.pop_back();
    IntrusivePtr<Node> keep(n);  // a hook or release must not free it mid-call
    Grads grads = std::move(state[n].buffer);
    grads.resize(n->num_outputs);
    if (capture::recording()) expand_check(*n);
    for (auto& [slot, hook] : n->pre_hooks) {
      if (slot < grads.size() && grads[slot].defined()) {
        Tensor r = hook(grads[slot]);
        if (r.defined()) grads[slot] = r;
      }
    }
    Grads given;  // what the node was given, for its own hooks' grad_outputs
    if (n->hooks) given = run_node_prehooks(*n, grads);
    if (captures) {
      for (size_t k = 0; k < captures->size(); ++k) {
        const Edge& c = (*captures)[k];
        if (c.fn.get() == n && c.input_nr < grads.size() && grads[c.input_nr].defined())
          (*captured)[k] = grads[c.input_nr];
      }
    }
    bool any = false;
    for (const Tensor& g : grads) any |= g.defined();
    Grads outs;
    bool skip = captures && dynamic_cast<AccumulateGrad*>(n) != nullptr;
    if (any && !skip) {
      CurrentNode cur(n);
      std::optional<profiler::Scope> timed;  // the node's name is built only when profiling
      if (profiler::enabled()) timed.emplace(n->name(), true);
      outs = n->apply(std::move(grads));
      if (g_anomaly.load(std::memory_order_relaxed) &&
          g_anomaly_check_nan.load(std::memory_order_relaxed))
        check_nan_results(*n, outs);
      if (!keep_graph) n->release_saved();
      if (n->hooks && !n->hooks->post.empty()) run_node_hooks(*n, outs, given);
    }
    for (size_t i = 0; i < n->next_edges.size(); ++i) {
      const Edge& e = n->next_edges[i];
      if (!e.valid()) continue;
      NodeState& s = state[e.fn.get()];
      if (i < outs.size() && outs[i].defined())
        accumulate(s.buffer, e.input_nr, std::move(outs[i]));
      if (--s.deps == 0) ready.push_back(e.fn.get());
    }
  }
}

void collect_roots(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
                   std::vector<Edge>& roots, Grads& seeds) {
  EMBER_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), ValueError,
              "backward: got ", grad_outputs.size(), " gradients for ", outputs.size(), " outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    EMBER_CHECK(out.defined() && out.impl()->requires_grad_, Error, "element ", i,
                " of tensors does not require grad and does not have a grad_fn");
    roots.push_back(gradient_edge(out));
    seeds.push_back(seed_for(out, grad_outputs.empty() ? Tensor() : grad_outputs[i], i));
  }
}

}  // namespace

Node* current_node() { return t_current; }

void set_anomaly_enabled(bool on, bool check_nan) {
  g_anomaly_check_nan.store(check_nan);
  g_anomaly.store(on);
}
bool anomaly_enabled() { return g_anomaly.load(); }
bool anomaly_check_nan() { return g_anomaly_check_nan.load(); }

Tensor grad_destination(const Node& n, size_t i) {
  Run* run = Run::t_run;
  if (!run || !run->fuse || &n != t_current || i >= n.next_edges.size()) return {};
  if (capture::recording()) return {};  // an expansion records the add into .grad as an op
  auto* acc = dynamic_cast<AccumulateGrad*>(n.next_edges[i].fn.get());
  if (!acc) return {};
  // Only this input's edge leads there, and nothing has arrived yet.
  size_t edges = 0;
  for (const Edge& e : n.next_edges) edges += e.fn.get() == acc;
  const NodeState* s = run->state.find(acc);
  if (edges != 1 || !s || s->deps != 1 || !s->buffer.empty()) return {};
  Tensor dest = acc->inplace_target();
  if (dest.defined()) {
    acc->set_pending(dest.impl());
    run->handed_out.push_back(acc);
  }
  return dest;
}

namespace {
// backward() into every leaf's .grad, without create_graph.
void backward_run(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
                  bool retain_graph) {
  std::vector<Edge> roots;
  Grads seeds;
  collect_roots(outputs, grad_outputs, roots, seeds);
  GraphTaskScope task;  // callbacks queued by hooks run at the end (autograd::queue_callback)
  run(roots, seeds, retain_graph, false, nullptr, nullptr);
  task.run_callbacks();
}
}  // namespace

void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
              bool retain_graph, bool create_graph, const std::vector<Tensor>& inputs) {
  // A recording keeps the backward as the ops its nodes make (Note [Expanded backward]), or
  // else as one call, whose replay runs this engine on the graph the replayed forward built.
  if (capture::recording() && inputs.empty() && !create_graph && !anomaly_enabled() &&
      capture::detail::t_sink->begin_expand(outputs, retain_graph)) {
    capture::Sink* sink = capture::detail::t_sink;
    bool stood = false;
    try {
      backward_run(outputs, grad_outputs, retain_graph);
    } catch (...) {
      sink->end_expand();
      throw;
    }
    stood = sink->end_expand();
    if (!stood) {  // already run: recorded whole, not run again
      std::vector<Tensor> none;
      sink->on_call(capture::make_call(
          "backward", {}, [](auto&&... a) { backward(a...); }, outputs, grad_outputs, retain_graph,
          create_graph, none));
    }
    return;
  }
  EMBER_RECORD(backward, outputs, grad_outputs, retain_graph, create_graph, inputs);
  if (inputs.empty() && !create_graph) {
    backward_run(outputs, grad_outputs, retain_graph);
    return;
  }
  std::vector<Edge> roots;
  Grads seeds;
  collect_roots(outputs, grad_outputs, roots, seeds);
  GraphTaskScope task;  // callbacks queued by hooks run at the end (autograd::queue_callback)
  if (inputs.empty()) {
    run(roots, seeds, retain_graph || create_graph, create_graph, nullptr, nullptr);
    task.run_callbacks();
    return;
  }
  // backward(inputs=...): accumulate only into the given tensors.
  std::vector<Edge> caps;
  for (const Tensor& t : inputs) caps.push_back(gradient_edge(t));
  Grads got(caps.size());
  run(roots, seeds, retain_graph || create_graph, create_graph, &caps, &got);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!got[i].defined()) continue;
    AutogradMeta& m = ensure_meta(inputs[i]);
    Tensor g = create_graph ? got[i] : detach(got[i]);
    if (m.grad_fn) {
      if (!m.retained) continue;
      m.retained->grad = m.retained->grad.defined() ? add(m.retained->grad, g) : g;
    } else {
      m.grad = m.grad.defined() ? add(m.grad, g) : (create_graph ? g : clone(g));
      run_post_accumulate_hooks(inputs[i]);
    }
  }
  task.run_callbacks();
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, bool retain_graph,
                         bool create_graph, bool allow_unused) {
  EMBER_RECORD(grad, outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused);
  std::vector<Edge> roots;
  Grads seeds;
  collect_roots(outputs, grad_outputs, roots, seeds);
  std::vector<Edge> caps;
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(inputs[i].impl()->requires_grad_, Error, "grad: input ", i,
                " does not require grad");
    caps.push_back(gradient_edge(inputs[i]));
  }
  Grads got(caps.size());
  GraphTaskScope task;
  run(roots, seeds, retain_graph || create_graph, create_graph, &caps, &got);
  task.run_callbacks();
  for (size_t i = 0; i < got.size(); ++i) {
    EMBER_CHECK(got[i].defined() || allow_unused, Error,
                "grad: one of the differentiated "
                "Tensors (input ",
                i,
                ") appears to not have been used in the graph. Set "
                "allow_unused=True if this is the desired behavior.");
    if (got[i].defined() && !create_graph) got[i] = detach(got[i]);
  }
  return got;
}

}  // namespace ember::autograd
