// Per-tensor autograd state, graph wiring, saved tensors, grad mode.
#include <atomic>

#include "autograd/accumulate.h"
#include "autograd/function.h"
#include "ember/record.h"
#include "ember/saved_hooks.h"

namespace ember {

namespace {
thread_local bool g_grad_enabled = true;
std::atomic<uint64_t> g_sequence{0};
}  // namespace

bool GradMode::is_enabled() { return g_grad_enabled; }
// Recorded: a function that turns grad mode off (no_grad) is replayed with it off there.
void GradMode::set_enabled(bool on) {
  EMBER_RECORD(GradMode::set_enabled, on);
  g_grad_enabled = on;
}

Node::Node() : sequence_nr(g_sequence.fetch_add(1, std::memory_order_relaxed)) {}
Node::~Node() = default;

namespace autograd {

AutogradMeta* meta(const Tensor& t) {
  return static_cast<AutogradMeta*>(t.impl()->autograd_.get());
}

AutogradMeta& ensure_meta(const Tensor& t) {
  if (!t.impl()->autograd_) t.impl()->autograd_ = std::make_unique<AutogradMeta>();
  return *meta(t);
}

bool requires_grad(const Tensor& t) { return t.impl()->requires_grad_; }

bool is_leaf(const Tensor& t) {
  AutogradMeta* m = meta(t);
  return !m || !m->grad_fn;
}

void set_requires_grad(const Tensor& t, bool on) {
  EMBER_RECORD(set_requires_grad, t, on);
  EMBER_CHECK(is_leaf(t), Error,
              "requires_grad_: you can only change requires_grad flags of "
              "leaf variables. If you want to use a computed variable in a subgraph that doesn't "
              "require differentiation use var_no_grad = var.detach().");
  EMBER_CHECK(
      !on || is_floating_point(t.dtype()) || is_complex(t.dtype()), Error,
      "requires_grad_: only Tensors of floating point and complex dtype can require gradients (got ",
      dtype_name(t.dtype()), ")");
  t.impl()->requires_grad_ = on;
  if (on) ensure_meta(t);
}

Tensor grad(const Tensor& t) {
  EMBER_RECORD(grad, t);
  AutogradMeta* m = meta(t);
  if (!m) return Tensor();
  if (m->grad_fn) return m->retained ? m->retained->grad : Tensor();
  return m->grad;
}

void set_grad(const Tensor& t, const Tensor& g) {
  EMBER_RECORD(set_grad, t, g);
  if (g.defined()) {
    EMBER_CHECK(g.sizes() == t.sizes(), ValueError,
                "assigned grad has data of a different size: ", g.sizes(), " vs the tensor's ",
                t.sizes());
    EMBER_CHECK(g.dtype() == t.dtype(), TypeError,
                "assigned grad has data of a different type: ", dtype_name(g.dtype()),
                " vs the tensor's ", dtype_name(t.dtype()));
  }
  AutogradMeta& m = ensure_meta(t);
  if (m.grad_fn && m.retained) m.retained->grad = g;
  else m.grad = g;
}

IntrusivePtr<Node> grad_fn(const Tensor& t) {
  AutogradMeta* m = meta(t);
  return m ? m->grad_fn : IntrusivePtr<Node>();
}

void retain_grad(const Tensor& t) {
  EMBER_CHECK(requires_grad(t), Error,
              "retain_grad: can't retain_grad on Tensor that has requires_grad=False");
  AutogradMeta& m = ensure_meta(t);
  if (!m.grad_fn || m.retained) return;  // leaves keep their grad anyway
  capture::not_captured("retain_grad");  // a replay would not make the hook
  m.retained = make_intrusive<GradSlot>();
  IntrusivePtr<GradSlot> slot = m.retained;
  m.grad_fn->pre_hooks.emplace_back(m.output_nr, [slot](const Tensor& g) {
    if (!slot->grad.defined()) slot->grad = GradMode::is_enabled() ? g : clone(g);
    else slot->grad = add(slot->grad, g);
    return Tensor();
  });
}

bool retains_grad(const Tensor& t) {
  AutogradMeta* m = meta(t);
  return m && m->retained;
}

void register_hook(const Tensor& t, TensorHook hook) {
  EMBER_CHECK(requires_grad(t), Error,
              "register_hook: cannot register a hook on a tensor that "
              "doesn't require gradient");
  capture::not_captured("register_hook");  // Note [Hooks end a capture]
  AutogradMeta& m = ensure_meta(t);
  if (m.grad_fn) m.grad_fn->pre_hooks.emplace_back(m.output_nr, std::move(hook));
  else m.leaf_hooks.push_back(std::move(hook));
}

void register_post_accumulate_grad_hook(const Tensor& t, PostAccumulateGradHook hook) {
  EMBER_CHECK(requires_grad(t), Error,
              "register_post_accumulate_grad_hook: cannot register a hook "
              "on a tensor that doesn't require gradient");
  EMBER_CHECK(is_leaf(t), Error,
              "register_post_accumulate_grad_hook: post accumulate grad hooks "
              "cannot be registered on non-leaf tensors");
  capture::not_captured("register_post_accumulate_grad_hook");
  ensure_meta(t).post_acc_hooks.push_back(std::move(hook));
}

// Note [Hooks end a capture]: registering a hook is Python's side effect on the graph the
// forward built; a replay builds its graph again without running the function, so the hook
// would be missing and backward would give other values. Registering one while a capture
// records stops the recording there (the rest of the call runs eager), as .item() does.
namespace {
std::atomic<uint64_t> g_node_hook_id{1};
NodeHooks& node_hooks(Node& n) {
  capture::not_captured("a hook on an autograd node");
  if (!n.hooks) n.hooks = std::make_unique<NodeHooks>();
  return *n.hooks;
}
}  // namespace

uint64_t add_node_prehook(Node& n, NodePreHook hook) {
  uint64_t id = g_node_hook_id.fetch_add(1, std::memory_order_relaxed);
  node_hooks(n).pre.emplace_back(id, std::move(hook));
  return id;
}

uint64_t add_node_hook(Node& n, NodePostHook hook) {
  uint64_t id = g_node_hook_id.fetch_add(1, std::memory_order_relaxed);
  node_hooks(n).post.emplace_back(id, std::move(hook));
  return id;
}

bool remove_node_hook(Node& n, uint64_t id) {
  if (!n.hooks) return false;
  auto drop = [id](auto& list) {
    return std::erase_if(list, [id](const auto& h) { return h.first == id; }) > 0;
  };
  bool removed = drop(n.hooks->pre) || drop(n.hooks->post);
  if (n.hooks->pre.empty() && n.hooks->post.empty()) n.hooks.reset();
  return removed;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.impl()->requires_grad_) return {};
  AutogradMeta& m = ensure_meta(t);
  if (m.grad_fn) return {m.grad_fn, m.output_nr};
  if (m.grad_accumulator) return {IntrusivePtr<Node>(m.grad_accumulator), 0};
  auto acc = make_intrusive<AccumulateGrad>(t);
  m.grad_accumulator = acc.get();
  return {acc, 0};
}

namespace {
void attach_output(const IntrusivePtr<Node>& node, const Tensor& out, uint32_t nr) {
  AutogradMeta& m = ensure_meta(out);
  m.grad_fn = node;
  m.output_nr = nr;
  m.retained.reset();
  out.impl()->requires_grad_ = true;
}
}  // namespace

void set_history(const IntrusivePtr<Node>& node, std::initializer_list<const Tensor*> inputs,
                 std::initializer_list<const Tensor*> outputs) {
  node->next_edges.reserve(inputs.size());
  for (const Tensor* t : inputs) node->next_edges.push_back(gradient_edge(*t));
  node->num_outputs = uint32_t(outputs.size());
  uint32_t nr = 0;
  for (const Tensor* t : outputs) attach_output(node, *t, nr++);
}

void set_history(const IntrusivePtr<Node>& node, const std::vector<Tensor>& inputs,
                 const std::vector<Tensor>& outputs) {
  node->next_edges.reserve(inputs.size());
  for (const Tensor& t : inputs) node->next_edges.push_back(gradient_edge(t));
  node->num_outputs = uint32_t(outputs.size());
  uint32_t nr = 0;
  for (const Tensor& t : outputs) attach_output(node, t, nr++);
}

bool any_requires_grad(const std::vector<Tensor>& ts) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : ts)
    if (t.impl()->requires_grad_) return true;
  return false;
}

namespace {
thread_local std::vector<std::shared_ptr<const SavedTensorHooks>> t_saved_hooks;
}  // namespace

void push_saved_tensors_hooks(SavedTensorHooks hooks) {
  t_saved_hooks.push_back(std::make_shared<const SavedTensorHooks>(std::move(hooks)));
}
void pop_saved_tensors_hooks() {
  EMBER_CHECK(!t_saved_hooks.empty(), Error, "pop_saved_tensors_hooks: no hooks are pushed");
  t_saved_hooks.pop_back();
}
bool has_saved_tensors_hooks() { return !t_saved_hooks.empty(); }

struct HookedSave {
  std::shared_ptr<const SavedTensorHooks> hooks;
  PackedTensor packed;
  IntrusivePtr<Node> grad_fn;  // a saved non-leaf input's history, restored on unpack
  Tensor leaf;                 // a saved leaf that requires grad (returned as itself)
};

SavedTensor::SavedTensor(const Tensor& t, bool is_output)
    : version_(t.version()), is_output_(is_output),
      requires_grad_(is_output || t.impl()->requires_grad_) {  // outputs get history right after
  if (!t_saved_hooks.empty()) {
    auto h = std::make_shared<HookedSave>();
    h->hooks = t_saved_hooks.back();
    AutogradMeta* m = meta(t);
    if (is_output) {
      output_nr_ = m ? m->output_nr : 0;
    } else if (requires_grad_) {
      if (m && m->grad_fn) {
        h->grad_fn = m->grad_fn;
        output_nr_ = m->output_nr;
      } else {
        h->leaf = t;
      }
    }
    {
      NoGradGuard no_grad;  // ops inside pack record nothing (and save nothing)
      h->packed = h->hooks->pack(is_output ? t.alias() : t);
    }
    hooked_ = std::move(h);
    return;
  }
  if (is_output) {
    data_ = t.alias();              // no grad_fn: the node must not own itself
    capture::note_alias(data_, t);  // an expanded backward reads it as t (docs/compile.md)
    AutogradMeta* m = meta(t);
    output_nr_ = m ? m->output_nr : 0;
  } else {
    data_ = t;
  }
}

Tensor SavedTensor::get() const {
  if (hooked_) {
    Tensor v;
    {
      NoGradGuard no_grad;
      v = hooked_->hooks->unpack(hooked_->packed);
    }
    EMBER_CHECK(v.defined(), TypeError, "saved tensor unpack hook of ",
                current_node() ? current_node()->name() : std::string("a node"),
                " returned no tensor");
    if (!(requires_grad_ && GradMode::is_enabled() && current_node())) return v;
    if (hooked_->leaf.defined()) return hooked_->leaf;
    Tensor t = v.alias();  // create_graph: the value leads back to where it came from
    AutogradMeta& m = ensure_meta(t);
    m.grad_fn = is_output_ ? IntrusivePtr<Node>(current_node()) : hooked_->grad_fn;
    m.output_nr = output_nr_;
    t.impl()->requires_grad_ = true;
    return t;
  }
  if (!data_.defined()) return data_;
  EMBER_CHECK(data_.version() == version_, Error,
              "one of the variables needed for gradient computation has been modified by an "
              "inplace operation: [",
              is_output_ ? "an output" : "an input", " of ",
              current_node() ? current_node()->name() : std::string("a node"), ", shape ",
              data_.sizes(), "] is at version ", data_.version(), "; expected version ", version_,
              " instead.");
  if (is_output_ && requires_grad_ && GradMode::is_enabled() && current_node()) {
    // create_graph: the saved output must lead back to the node that made it.
    Tensor t = data_.alias();
    AutogradMeta& m = ensure_meta(t);
    m.grad_fn = IntrusivePtr<Node>(current_node());
    m.output_nr = output_nr_;
    t.impl()->requires_grad_ = true;
    return t;
  }
  return data_;
}

void throw_released(const std::string& node) {
  throw Error(
      "Trying to backward through the graph a second time (or directly access saved "
      "tensors after they have already been freed) in " +
      node +
      ". Saved intermediate "
      "values of the graph are freed when you call .backward() or autograd.grad(). "
      "Specify retain_graph=True if you need to backward through the graph a second time.");
}

void check_inplace(const Tensor& t, const char* op) {
  if (!GradMode::is_enabled() || !t.impl()->requires_grad_) return;
  AutogradMeta* m = meta(t);
  EMBER_CHECK(!is_leaf(t), Error, op,
              ": a leaf Variable that requires grad is being used in an "
              "in-place operation.");
  EMBER_CHECK(!(m && m->is_view_of_leaf), Error, op,
              ": a view of a leaf Variable that requires "
              "grad is being used in an in-place operation.");
}

Tensor sum_to(const Tensor& g, IntList shape) {
  if (g.sizes() == Dims(shape)) return g;
  int64_t lead = g.dim() - int64_t(shape.size());
  Dims dims;
  for (int64_t i = 0; i < g.dim(); ++i)
    if (i < lead || (shape[i - lead] == 1 && g.sizes()[i] != 1)) dims.push_back(i);
  if (dims.empty()) return reshape(g, shape);
  return view(sum(g, dims, /*keepdim=*/true, g.dtype()), shape);
}

Tensor sum_to(const Tensor& g, IntList shape, DType dtype) {
  if (!g.defined()) return g;
  Tensor r = sum_to(g, shape);
  return r.dtype() == dtype ? r : to_dtype(r, dtype);
}

}  // namespace autograd
}  // namespace ember
