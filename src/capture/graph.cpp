// The recorder (a Sink of include/ember/record.h) and the replay of what it recorded.
//
// Note [What capture sees]: a value is known to the recorder when it is an input of the
// function, or a result of a recorded call. A tensor that reaches a recorded call without
// being known is either older than the recording (a parameter, an optimizer's state, a
// constant: an "external", read live at each replay and guarded on its metadata), or it was
// made while recording by something that was not recorded: then the recording is refused.
// Tensor serial numbers tell the two apart. Three more alarms stop a recording: an op that
// opened its profiler scope without recording itself, memory allocated between recorded
// calls, and Python reading a tensor's values (item, tolist, bool, numpy).
#include "capture/graph.h"

#include <sstream>

#include "autograd/function.h"
#include "ember/autograd.h"
#include "ember/storage.h"

namespace ember::capture {

Meta Meta::of(const Tensor& t) {
  return {Dims(t.sizes()), Dims(t.strides()), t.offset(), t.dtype(), t.impl()->requires_grad_};
}

bool Meta::matches(const Tensor& t) const {
  return t.defined() && t.dtype() == dtype && t.impl()->requires_grad_ == requires_grad &&
         t.offset() == offset && t.sizes() == sizes && t.strides() == strides;
}

namespace {

std::string mismatch(const char* what, size_t i, const Meta& m, const Tensor& t) {
  std::ostringstream os;
  os << what << " " << i << ": ";
  if (!t.defined()) {
    os << "undefined";
    return os.str();
  }
  if (t.sizes() != m.sizes) os << "size " << t.sizes() << ", recorded " << m.sizes;
  else if (t.dtype() != m.dtype)
    os << "dtype " << dtype_name(t.dtype()) << ", recorded " << dtype_name(m.dtype);
  else if (t.strides() != m.strides) os << "stride " << t.strides() << ", recorded " << m.strides;
  else if (t.offset() != m.offset)
    os << "storage offset " << t.offset() << ", recorded " << m.offset;
  else
    os << "requires_grad " << (t.impl()->requires_grad_ ? "True" : "False") << ", recorded "
       << (m.requires_grad ? "True" : "False");
  return os.str();
}

int alias_of(const std::vector<Tensor>& inputs, size_t i) {
  for (size_t j = 0; j < i; ++j)
    if (inputs[j].defined() && inputs[i].defined() && inputs[j].storage() == inputs[i].storage())
      return int(j);
  return -1;
}

}  // namespace

// ---- guards and replay --------------------------------------------------------------------

bool Graph::check(const std::vector<Tensor>& inputs, std::string* why) const {
  if (inputs.size() != input_meta.size()) {
    if (why) *why = "number of tensor inputs changed";
    return false;
  }
  if (GradMode::is_enabled() != grad_mode) {
    if (why)
      *why = std::string("grad mode is ") + (grad_mode ? "off" : "on") + ", recorded " +
             (grad_mode ? "on" : "off");
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!input_meta[i].matches(inputs[i])) {
      if (why) *why = mismatch("input", i, input_meta[i], inputs[i]);
      return false;
    }
    if (alias_of(inputs, i) != input_alias[i]) {
      if (why) *why = "input " + std::to_string(i) + ": shares memory differently than recorded";
      return false;
    }
  }
  for (size_t i = 0; i < externals.size(); ++i) {
    if (!external_meta[i].matches(externals[i].second)) {
      if (why)
        *why = mismatch("tensor read from outside (parameter or state)", i, external_meta[i],
                        externals[i].second);
      return false;
    }
  }
  for (auto [slot, defined] : leaf_grads) {
    const Tensor* leaf = nullptr;
    for (size_t i = 0; i < input_slots.size() && !leaf; ++i)
      if (input_slots[i] == slot) leaf = &inputs[i];
    for (size_t i = 0; i < externals.size() && !leaf; ++i)
      if (externals[i].first == slot) leaf = &externals[i].second;
    if (!leaf) continue;
    Suspend quiet;
    if (autograd::grad(*leaf).defined() != defined) {
      if (why)
        *why = std::string("a leaf's .grad is ") + (defined ? "None" : "a tensor") + ", recorded " +
               (defined ? "a tensor" : "None");
      return false;
    }
  }
  return true;
}

void run_fused(FusedProgram& p, std::vector<Tensor>& values);  // fusion.cpp

std::vector<Tensor> Graph::run(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> v(static_cast<size_t>(num_slots));
  for (size_t i = 0; i < inputs.size(); ++i) v[size_t(input_slots[i])] = inputs[i];
  for (auto& [s, t] : externals) v[size_t(s)] = t;
  Suspend quiet;  // a replay inside another recording is not recorded op by op (nor is the
                  // grad mode switch below, which this outlives)
  // Note [Flat replay]: no step builds an autograd node when the graph is flat.
  AutoGradMode mode(grad_mode && !flat);
  std::vector<Tensor> in, out;
  // Note [Kernel replay]: set when an op-level run of a kernel step gave a result of another
  // layout than planned; the later kernel steps then check all their operands.
  bool check_all = false;
  for (const RunStep& r : order) {
    if (r.fused) {
      run_fused(*r.fused, v);
    } else if (r.step->constant && !r.step->kept.empty()) {
      for (size_t j = 0; j < r.step->out.size(); ++j)
        if (r.step->out[j] >= 0) v[size_t(r.step->out[j])] = r.step->kept[j];
    } else if (!r.kernel || !run_kernel(*r.kernel, v, buffers, check_all)) {
      Step& st = *r.step;
      in.clear();
      for (int k : st.in) in.push_back(k < 0 ? Tensor() : v[size_t(k)]);
      st.call.replay(in, out);
      EMBER_CHECK(out.size() == st.out.size(), Error, "compile: replay of ", st.call.op, " gave ",
                  out.size(), " results, recorded ", st.out.size());
      for (size_t j = 0; j < out.size(); ++j)
        if (st.out[j] >= 0) v[size_t(st.out[j])] = std::move(out[j]);
      if (st.constant)
        for (int o : st.out) st.kept.push_back(o >= 0 ? v[size_t(o)] : Tensor());
      if (r.kernel) {
        check_all |= !kernel_result_as_planned(*r.kernel, v);
        prepare_kernel(*r.kernel, v);
      }
    }
    for (int i = r.rel0; i < r.rel1; ++i) v[size_t(released[size_t(i)])] = Tensor();
  }
  std::vector<Tensor> res;
  res.reserve(output_slots.size());
  for (int s : output_slots) res.push_back(s < 0 ? Tensor() : v[size_t(s)]);
  return res;
}

std::vector<std::string> Graph::op_names() const {
  std::vector<std::string> names;
  for (const Step& s : steps) names.push_back(fused_name(s));
  return names;
}

std::string Graph::describe() const {
  std::ostringstream os;
  for (const Step& s : steps) {
    os << fused_name(s) << "(";
    for (size_t i = 0; i < s.in.size(); ++i) os << (i ? ", " : "") << "%" << s.in[i];
    os << ") -> ";
    for (size_t i = 0; i < s.out.size(); ++i) os << (i ? ", " : "") << "%" << s.out[i];
    os << "\n";
  }
  return os.str();
}

// ---- the recorder ---------------------------------------------------------------------------

Recorder::Recorder(const std::vector<Tensor>& inputs) : g_(std::make_shared<Graph>()) {
  // Everything made from here on is "new": the inputs themselves are older.
  start_serial_ = TensorImpl::next_serial();
  // A training loop records thousands of calls: growing these from empty moved every step
  // a dozen times and touched twice the memory (an untouched reserve costs nothing).
  g_->steps.reserve(1024);
  g_->slots.reserve(1024);
  seen_.reserve(1024);
  g_->grad_mode = GradMode::is_enabled();
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(inputs[i].defined(), ValueError, "compile: input ", i, " is an undefined tensor");
    g_->input_meta.push_back(Meta::of(inputs[i]));
    g_->input_alias.push_back(alias_of(inputs, i));
    auto it = seen_.find(inputs[i].impl());
    if (it != seen_.end()) {  // the same tensor passed twice
      g_->input_slots.push_back(it->second.slot);
      continue;
    }
    g_->input_slots.push_back(new_slot(inputs[i], SlotInfo::Kind::Input));
  }
  prev_ = detail::t_sink;
  detail::t_sink = this;
  installed_ = true;
  bytes_ = thread_allocated_bytes();
}

Recorder::~Recorder() { uninstall(); }

void Recorder::uninstall() {
  if (!installed_) return;
  detail::t_sink = prev_;
  installed_ = false;
}

void Recorder::breaks(std::string why) {
  if (expanding_) {  // only the expansion fails: the backward is then recorded as one call
    expand_fails(why);
    return;
  }
  if (why_.empty()) why_ = std::move(why);
  uninstall();  // the rest of the function runs eagerly, unrecorded
}

int Recorder::new_slot(const Tensor& t, SlotInfo::Kind kind) {
  SlotInfo info;
  info.kind = kind;
  info.sizes = t.sizes();
  info.strides = t.strides();
  info.offset = t.offset();
  info.dtype = t.dtype();
  info.requires_grad = t.impl()->requires_grad_;
  info.contiguous = t.is_contiguous();
  g_->slots.push_back(std::move(info));
  int s = g_->num_slots++;
  auto [it, added] = seen_.try_emplace(t.impl(), Seen{s, t.impl()->serial_});
  if (expanding_) expanding_->undo.push_back({t.impl(), !added, it->second});
  if (!added) it->second = {s, t.impl()->serial_};
  if (kind == SlotInfo::Kind::External) {
    g_->externals.emplace_back(s, t);
    g_->external_meta.push_back(Meta::of(t));
  }
  return s;
}

int Recorder::slot_of(const Tensor& t, const char* op) {
  if (!t.defined()) return -1;
  auto it = seen_.find(t.impl());
  if (it != seen_.end() && it->second.serial == t.impl()->serial_) return it->second.slot;
  auto al = aliases_.find(t.impl());
  if (al != aliases_.end() && al->second.serial == t.impl()->serial_) {
    auto of = seen_.find(al->second.of);
    if (of != seen_.end() && of->second.serial == al->second.of_serial) {
      const SlotInfo& info = g_->slots[size_t(of->second.slot)];
      if (info.sizes == t.sizes() && info.strides == t.strides() && info.offset == t.offset())
        return of->second.slot;
    }
  }
  if (t.impl()->serial_ < start_serial_) return new_slot(t, SlotInfo::Kind::External);
  breaks(
      std::string("a tensor made while recording, by something that was not recorded, reached ") +
      op + " (Note [What capture sees])");
  return -1;
}

void Recorder::on_enter(const char* op) {
  if (thread_allocated_bytes() != bytes_)
    breaks(std::string("memory was allocated outside a recorded op (before ") + op + ")");
}

void Recorder::on_call(Call&& call) {
  if (call.own_generator) {
    breaks(std::string(call.op) +
           " draws from a Generator object: not captured (the default "
           "generator is)");
    return;
  }
  if (call.mutates_list) {
    breaks(std::string(call.op) + " created state that Python keeps (first optimizer step?)");
    return;
  }
  // A backward or autograd.grad kept whole needs the autograd graph at replay. (The .grad
  // read is also named "grad": it has one tensor argument, autograd.grad at least two.)
  const std::string_view name(call.op);
  if (name == "backward" || (name == "grad" && call.inputs.size() != 1)) ++opaque_backwards_;
  if (name == "set_grad" && !call.inputs.empty()) grad_written_.push_back(call.inputs[0].impl());
  Step st;
  st.in.reserve(call.inputs.size());
  st.out.reserve(call.outputs.size());
  for (const Tensor& t : call.inputs) {
    st.in.push_back(slot_of(t, call.op));
    if (broken()) return;
  }
  for (const Tensor& t : call.outputs) {
    if (!t.defined()) {
      st.out.push_back(-1);
      continue;
    }
    auto it = seen_.find(t.impl());
    if (it != seen_.end() && it->second.serial == t.impl()->serial_) {
      st.out.push_back(it->second.slot);  // in place, or the op returned an input as is
      // its metadata may have changed (in-place view ops): keep the latest
      SlotInfo& info = g_->slots[size_t(it->second.slot)];
      info.sizes = t.sizes();
      info.strides = t.strides();
      info.requires_grad = t.impl()->requires_grad_;
      info.contiguous = t.is_contiguous();
    } else if (t.impl()->serial_ < start_serial_) {
      st.out.push_back(new_slot(t, SlotInfo::Kind::External));
    } else {
      st.out.push_back(new_slot(t, SlotInfo::Kind::Produced));
    }
  }
  // Tensors are kept by slot from here on: drop the recording's references, so memory
  // is freed as eagerly as without capture.
  call.inputs.clear();
  call.outputs.clear();
  st.call = std::move(call);
  g_->steps.push_back(std::move(st));
  bytes_ = thread_allocated_bytes();
}

void Recorder::on_unrecorded(const char* op) {
  breaks(std::string("op `") + op + "` is not captured yet: it ran outside the recording");
}

void Recorder::on_data_read(const char* what) {
  breaks(std::string(what) +
         " reads a tensor's values: Python control flow may depend on "
         "them (data-dependent), so the rest runs eagerly");
}

// ---- Note [Expanded backward] -------------------------------------------------------------

bool Recorder::begin_expand(const std::vector<Tensor>& roots, bool retain_graph) {
  if (broken() || expanding_) return false;
  on_enter("backward");
  if (broken()) return false;
  auto e = std::make_unique<Expansion>();
  e->steps = g_->steps.size();
  e->slots = g_->slots.size();
  e->externals = g_->externals.size();
  e->leaf_grads = g_->leaf_grads.size();
  e->num_slots = g_->num_slots;
  if (!retain_graph)
    for (const Tensor& t : roots)
      if (t.defined()) e->roots.push_back(t.impl());
  expanding_ = std::move(e);
  return true;
}

void Recorder::expand_fails(const std::string& why) {
  if (!expanding_ || !expanding_->failed.empty()) return;
  expanding_->failed = why;
  ++detail::t_depth;  // the rest of the backward runs unrecorded (end_expand undoes this)
}

bool Recorder::end_expand() {
  if (!expanding_) return false;
  if (expanding_->failed.empty() && thread_allocated_bytes() != bytes_)
    expand_fails("memory was allocated outside a recorded op (end of backward)");
  std::unique_ptr<Expansion> e = std::move(expanding_);
  if (!e->failed.empty()) {
    --detail::t_depth;
    g_->steps.resize(e->steps);
    g_->slots.resize(e->slots);
    g_->externals.resize(e->externals);
    g_->external_meta.resize(e->externals);
    g_->leaf_grads.resize(e->leaf_grads);
    g_->num_slots = e->num_slots;
    for (auto u = e->undo.rbegin(); u != e->undo.rend(); ++u) {
      if (u->had) seen_[u->impl] = u->old;
      else seen_.erase(u->impl);
    }
    expand_notes_.push_back(std::move(e->failed));
    bytes_ = thread_allocated_bytes();
    return false;
  }
  for (TensorImpl* r : e->roots) freed_roots_.emplace_back(r, r->serial_);
  return true;
}

void Recorder::on_alias(const Tensor& alias, const Tensor& of) {
  aliases_[alias.impl()] = {alias.impl()->serial_, of.impl(), of.impl()->serial_};
}

void Recorder::on_leaf_grad(const Tensor& leaf, bool defined) {
  // A .grad the recording itself wrote earlier (zero_grad, a previous backward) is what the
  // replay writes too: no guard.
  for (TensorImpl* w : grad_written_)
    if (w == leaf.impl()) return;
  const int s = slot_of(leaf, "AccumulateGrad");
  if (s >= 0 && g_->slots[size_t(s)].kind != SlotInfo::Kind::Produced)
    g_->leaf_grads.emplace_back(s, defined);
}

// Note [Flat replay]: true when the recording needs no autograd graph at replay: every
// backward was expanded, and each output that requires grad is a leaf or a root whose
// graph its backward freed (calling backward on it again raises in eager too).
bool Recorder::flat_ok(const std::vector<Tensor>& outputs) const {
  if (opaque_backwards_ > 0) return false;
  for (const Tensor& t : outputs) {
    if (!t.defined() || !t.impl()->requires_grad_ || autograd::is_leaf(t)) continue;
    bool freed = false;
    for (auto [impl, serial] : freed_roots_)
      freed |= impl == t.impl() && serial == t.impl()->serial_;
    if (!freed) return false;
  }
  return true;
}

void Recorder::abandon() {
  uninstall();
  if (why_.empty()) why_ = "the function raised";
}

std::shared_ptr<Graph> Recorder::finish(const std::vector<Tensor>& outputs) {
  if (installed_ && thread_allocated_bytes() != bytes_)
    breaks("memory was allocated outside a recorded op (after the last one)");
  uninstall();
  if (broken()) return nullptr;
  for (const Tensor& t : outputs) {
    if (!t.defined()) {
      g_->output_slots.push_back(-1);
      continue;
    }
    auto it = seen_.find(t.impl());
    if (it != seen_.end() && it->second.serial == t.impl()->serial_) {
      g_->output_slots.push_back(it->second.slot);
    } else if (t.impl()->serial_ < start_serial_) {
      g_->output_slots.push_back(new_slot(t, SlotInfo::Kind::External));
    } else {
      breaks("an output was made by something that was not recorded");
      return nullptr;
    }
  }
  g_->flat = flat_ok(outputs);
  g_->notes = expand_notes_;
  optimize(*g_);
  return g_;
}

}  // namespace ember::capture

// ---- the public face (include/ember/capture.h) ----------------------------------------------
namespace ember::capture {

Recording::Recording(const std::vector<Tensor>& inputs) : r_(std::make_unique<Recorder>(inputs)) {}
Recording::~Recording() = default;
std::shared_ptr<Graph> Recording::finish(const std::vector<Tensor>& outputs) {
  return r_->finish(outputs);
}
void Recording::abandon() { r_->abandon(); }
bool Recording::broken() const { return r_->broken(); }
std::string Recording::why() const { return r_->why(); }

bool check(const Graph& g, const std::vector<Tensor>& inputs, std::string* why) {
  return g.check(inputs, why);
}
std::vector<Tensor> replay(Graph& g, const std::vector<Tensor>& inputs) { return g.run(inputs); }
std::vector<std::string> op_names(const Graph& g) { return g.op_names(); }
int64_t num_fused(const Graph& g) { return g.num_fused(); }
int64_t num_kernel_steps(const Graph& g) { return g.num_kernel_steps(); }
int64_t num_constant_steps(const Graph& g) { return g.num_constant_steps(); }
bool flat(const Graph& g) { return g.flat; }
std::vector<std::string> notes(const Graph& g) { return g.notes; }
std::string describe(const Graph& g) { return g.describe(); }

}  // namespace ember::capture
