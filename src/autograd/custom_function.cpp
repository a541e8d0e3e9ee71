// Custom autograd functions written in C++ (include/ember/custom_function.h): the context
// forward fills, and the node whose backward calls the user's T::backward.
#include "ember/custom_function.h"

#include <cxxabi.h>

#include <cstdlib>

#include "autograd/function.h"

namespace ember::autograd {

// ---- SavedValue -------------------------------------------------------------------------

const char* SavedValue::kind() const {
  static const char* names[] = {"None", "bool", "int", "double", "Tensor", "str", "int[]"};
  return names[v_.index()];
}

#define EMBER_SAVED_AS(Type, want)                         \
  EMBER_CHECK(std::holds_alternative<Type>(v_), TypeError, \
              "saved_data: expected a " want " but the value is a ", kind())

bool SavedValue::toBool() const {
  EMBER_SAVED_AS(bool, "bool");
  return std::get<bool>(v_);
}
int64_t SavedValue::toInt() const {
  EMBER_SAVED_AS(int64_t, "int");
  return std::get<int64_t>(v_);
}
double SavedValue::toDouble() const {
  if (isInt()) return double(std::get<int64_t>(v_));
  EMBER_SAVED_AS(double, "double");
  return std::get<double>(v_);
}
Tensor SavedValue::toTensor() const {
  EMBER_SAVED_AS(Tensor, "Tensor");
  return std::get<Tensor>(v_);
}
const std::string& SavedValue::toStringRef() const {
  EMBER_SAVED_AS(std::string, "str");
  return std::get<std::string>(v_);
}
std::vector<int64_t> SavedValue::toIntVector() const {
  EMBER_SAVED_AS(std::vector<int64_t>, "int[]");
  return std::get<std::vector<int64_t>>(v_);
}
#undef EMBER_SAVED_AS

// ---- AutogradContext --------------------------------------------------------------------

struct AutogradContext::State {
  std::vector<Tensor> to_save;     // what forward passed to save_for_backward
  std::vector<SavedTensor> saved;  // the same, version-checked, once the node is recorded
  bool recorded = false;           // finish_function recorded the node
  bool released = false;           // backward ran without retain_graph
  std::vector<Tensor> non_differentiable;
  bool materialize_grads = true;
  std::vector<bool> needs_input_grad;  // per tensor input
};

AutogradContext::AutogradContext() : state_(std::make_unique<State>()) {}
AutogradContext::~AutogradContext() = default;

void AutogradContext::save_for_backward(const std::vector<Tensor>& tensors) {
  state_->to_save = tensors;
}

std::vector<Tensor> AutogradContext::get_saved_variables() const {
  if (state_->released) throw_released("get_saved_variables");
  if (!state_->recorded) return state_->to_save;
  std::vector<Tensor> out;
  out.reserve(state_->saved.size());
  for (const SavedTensor& s : state_->saved) out.push_back(s.get());
  return out;
}

void AutogradContext::mark_non_differentiable(const std::vector<Tensor>& outputs) {
  state_->non_differentiable.insert(state_->non_differentiable.end(), outputs.begin(),
                                    outputs.end());
}

void AutogradContext::set_materialize_grads(bool value) { state_->materialize_grads = value; }

bool AutogradContext::needs_input_grad(size_t index) const {
  EMBER_CHECK(index < state_->needs_input_grad.size(), IndexError, "needs_input_grad: index ",
              index, " is out of range for a function with ", state_->needs_input_grad.size(),
              " tensor input(s)");
  return state_->needs_input_grad[index];
}

// ---- FunctionNode -----------------------------------------------------------------------

namespace detail {
std::string backward_name(const char* mangled) {
  int status = 0;
  char* readable = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && readable ? readable : mangled;
  std::free(readable);
  return name + "Backward";
}
}  // namespace detail

FunctionNode::FunctionNode(std::string name, std::unique_ptr<AutogradContext> ctx,
                           detail::BackwardFn backward, std::vector<bool> is_tensor_arg,
                           const std::vector<Tensor>& inputs)
    : name_(std::move(name)), ctx_(std::move(ctx)), backward_(backward),
      is_tensor_arg_(std::move(is_tensor_arg)) {
  for (const Tensor& t : inputs) {
    ctx_->state_->needs_input_grad.push_back(GradMode::is_enabled() && t.defined() &&
                                             t.impl()->requires_grad_);
    input_sizes_.push_back(t.defined() ? t.sizes() : Dims());
    input_dtypes_.push_back(t.defined() ? t.dtype() : DType::Float32);
  }
}

FunctionNode::~FunctionNode() = default;

void FunctionNode::release_saved() {
  released_ = true;
  ctx_->state_->saved.clear();
  ctx_->state_->released = true;
  ctx_->saved_data.clear();
}

namespace {
bool contains(const std::vector<Tensor>& ts, const Tensor& t) {
  for (const Tensor& x : ts)
    if (x.is_same(t)) return true;
  return false;
}

// Whether a gradient of shape `from` can be summed down to `to` (to broadcasts to from).
bool reducible(const Dims& from, const Dims& to) {
  if (to.size() > from.size()) return false;
  const size_t lead = from.size() - to.size();
  for (size_t i = 0; i < to.size(); ++i)
    if (to[i] != 1 && to[i] != from[lead + i]) return false;
  return true;
}
}  // namespace

Tensor fit_function_grad(const std::string& name, size_t k, Tensor g, const Dims& sizes,
                         DType dtype) {
  if (g.sizes() != sizes) {
    auto as_list = [](const Dims& d) {  // torch prints these shapes as lists: [1, 384]
      std::string s = "[";
      for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
      return s + "]";
    };
    EMBER_CHECK(reducible(g.sizes(), sizes), Error, "Function ", name,
                " returned an invalid gradient at index ", k, " - got ", as_list(g.sizes()),
                " but expected shape compatible with ", as_list(sizes));
    g = sum_to(g, sizes);
  }
  return g.dtype() == dtype ? g : to_dtype(g, dtype);
}

void finish_function(const IntrusivePtr<FunctionNode>& node, const std::vector<Tensor>& inputs,
                     std::vector<Tensor>& outputs) {
  FunctionNode& n = *node;
  AutogradContext::State& st = *n.ctx_->state_;
  bool record = false;
  for (bool b : st.needs_input_grad) record = record || b;
  for (Tensor& o : outputs) {
    EMBER_CHECK(o.defined(), Error, n.name_, ": forward returned an undefined tensor");
    // An input returned as it is becomes a new tensor, so its own history is left alone.
    if (record && contains(inputs, o)) o = o.alias();
  }
  if (!record) return;  // nothing to differentiate: the context dies with the node
  set_history(node, std::vector<Tensor>{}, outputs);
  for (const Tensor& t : inputs) n.next_edges.push_back(t.defined() ? gradient_edge(t) : Edge{});
  for (const Tensor& o : outputs) {
    n.output_sizes_.push_back(o.sizes());
    n.output_dtypes_.push_back(o.dtype());
    // Integer and bool outputs, and those forward marked, get no gradient (as in torch).
    const bool differentiable =
        (is_floating(o.dtype()) || is_complex(o.dtype())) && !contains(st.non_differentiable, o);
    if (!differentiable) {
      meta(o)->grad_fn.reset();
      o.impl()->requires_grad_ = false;
    }
  }
  st.non_differentiable.clear();
  for (const Tensor& t : st.to_save)
    st.saved.push_back(t.defined() ? SavedTensor(t, contains(outputs, t)) : SavedTensor());
  st.to_save.clear();
  st.recorded = true;
}

Grads FunctionNode::apply(Grads&& grads) {
  if (released_) throw_released(name_);
  AutogradContext::State& st = *ctx_->state_;
  for (size_t i = 0; i < grads.size() && i < output_sizes_.size(); ++i)
    if (!grads[i].defined() && st.materialize_grads)
      grads[i] = zeros(output_sizes_[i], output_dtypes_[i]);
  Grads r = backward_(ctx_.get(), std::move(grads));
  const size_t nargs = is_tensor_arg_.size();
  EMBER_CHECK(r.size() >= nargs, Error, name_,
              ": function backward returned an incorrect number of "
              "gradients (expected ",
              nargs, ", got ", r.size(), ")");
  for (size_t i = nargs; i < r.size(); ++i)
    EMBER_CHECK(!r[i].defined(), Error, name_,
                ": function backward returned an incorrect number of "
                "gradients (expected ",
                nargs, ", got ", r.size(), ")");
  Grads out;
  out.reserve(next_edges.size());
  for (size_t i = 0; i < nargs; ++i) {
    if (!is_tensor_arg_[i]) {
      EMBER_CHECK(!r[i].defined(), Error, name_,
                  ": function backward returned a gradient different "
                  "than an undefined tensor at position ",
                  i,
                  ", but the corresponding forward "
                  "input was not a tensor");
      continue;
    }
    const size_t k = out.size();
    Tensor g = std::move(r[i]);
    if (!g.defined() || !needs_input_grad(k)) {
      out.emplace_back();
      continue;
    }
    out.push_back(fit_function_grad(name_, k, std::move(g), input_sizes_[k], input_dtypes_[k]));
  }
  return out;
}

}  // namespace ember::autograd
