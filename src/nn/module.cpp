// ember::nn (include/ember/nn.h): the C++ module tree and its layers.
#include <map>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/nn.h"
#include "nn/init.h"

namespace ember::nn {

Tensor Module::register_parameter(std::string key, Tensor t) {
  EMBER_CHECK(t.defined(), ValueError, name(), ": register_parameter('", key,
              "') got an undefined tensor");
  autograd::set_requires_grad(t, true);
  params_.emplace_back(std::move(key), t);
  return t;
}

Tensor Module::register_buffer(std::string key, Tensor t) {
  EMBER_CHECK(t.defined(), ValueError, name(), ": register_buffer('", key,
              "') got an undefined tensor");
  buffers_.emplace_back(std::move(key), t);
  return t;
}

ModulePtr Module::register_module(std::string key, ModulePtr m) {
  EMBER_CHECK(m != nullptr, ValueError, name(), ": register_module('", key, "') got a null module");
  children_.emplace_back(std::move(key), m);
  return m;
}

void Module::collect(const std::string& prefix, int which,
                     std::vector<std::pair<std::string, Tensor>>& out) const {
  if (which & kParams)
    for (const auto& [name, p] : params_) out.emplace_back(prefix + name, p);
  if (which & kBuffers)
    for (const auto& [name, b] : buffers_) out.emplace_back(prefix + name, b);
  for (const auto& [name, child] : children_) child->collect(prefix + name + ".", which, out);
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect("", kParams, out);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers() const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect("", kBuffers, out);
  return out;
}

std::vector<Tensor> Module::buffers() const {
  std::vector<Tensor> out;
  for (auto& [name, b] : named_buffers()) out.push_back(b);
  return out;
}

StateDict Module::state_dict() const {
  StateDict out;
  collect("", kParams | kBuffers, out);
  for (auto& [name, t] : out) t = detach(t);
  return out;
}

namespace {
std::string join_keys(const std::vector<std::string>& keys) {
  std::string s;
  for (const std::string& k : keys) s += (s.empty() ? "\"" : ", \"") + k + "\"";
  return s;
}
}  // namespace

// torch's message: "Error(s) in loading state_dict for Linear:\n\tMissing key(s) in
// state_dict: ...", one line per kind of problem; nothing is copied unless all is well.
void Module::load_state_dict(const StateDict& state, bool strict) {
  StateDict own;
  collect("", kParams | kBuffers, own);
  std::map<std::string, const Tensor*> given;
  for (const auto& [key, t] : state) given.emplace(key, &t);
  std::vector<std::string> missing, unexpected, problems;
  std::vector<std::pair<Tensor, const Tensor*>> copies;
  std::map<std::string, bool> known;
  for (const auto& [key, dst] : own) {
    known[key] = true;
    auto it = given.find(key);
    if (it == given.end()) {
      missing.push_back(key);
      continue;
    }
    const Tensor& src = *it->second;
    if (!src.defined()) {
      problems.push_back(detail::cat("the entry for ", key, " is an undefined tensor"));
    } else if (src.sizes() != dst.sizes()) {
      problems.push_back(
          detail::cat("size mismatch for ", key, ": copying a param with shape ", src.sizes(),
                      " from checkpoint, the shape in current model is ", dst.sizes(), "."));
    } else {
      copies.emplace_back(dst, &src);
    }
  }
  for (const auto& [key, t] : state)
    if (!known.count(key)) unexpected.push_back(key);
  std::string msg;
  if (strict && !unexpected.empty())
    msg += "\n\tUnexpected key(s) in state_dict: " + join_keys(unexpected) + ". ";
  if (strict && !missing.empty())
    msg += "\n\tMissing key(s) in state_dict: " + join_keys(missing) + ". ";
  for (const std::string& p : problems) msg += "\n\t" + p;
  EMBER_CHECK(msg.empty(), Error, "Error(s) in loading state_dict for ", name(), ":", msg);
  NoGradGuard no_grad;
  for (auto& [dst, src] : copies) copy_(dst, *src);
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& [name, p] : named_parameters()) out.push_back(p);
  return out;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [name, child] : children_) child->train(on);
}

void Module::to(DType dtype) {
  EMBER_CHECK(is_floating_point(dtype) || is_complex(dtype), TypeError,
              "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=",
              dtype_name(dtype));
  NoGradGuard no_grad;
  std::vector<std::pair<std::string, Tensor>> tensors;
  collect("", kParams | kBuffers, tensors);
  for (auto& [name, t] : tensors) {
    if (!(is_floating_point(t.dtype()) || is_complex(t.dtype())) || t.dtype() == dtype) continue;
    t.set_data(to_dtype(t, dtype));
    if (Tensor g = autograd::grad(t); g.defined()) autograd::set_grad(t, to_dtype(g, dtype));
  }
}

void Module::zero_grad() {
  for (const Tensor& p : parameters()) autograd::set_grad(p, Tensor());
}

Linear::Linear(int64_t in_features, int64_t out_features, bool with_bias) {
  EMBER_CHECK(in_features >= 0 && out_features >= 0, ValueError,
              "Linear: feature counts must be non-negative, got (", in_features, ", ", out_features,
              ")");
  const double bound = layer_init::fan_in_bound(in_features);
  weight =
      register_parameter("weight", layer_init::uniform_init({out_features, in_features}, bound));
  if (with_bias) bias = register_parameter("bias", layer_init::uniform_init({out_features}, bound));
}

Tensor Linear::forward(const Tensor& x) { return linear(x, weight, bias); }

Tensor MaxPool2d::forward(const Tensor& x) {
  return max_pool2d(x, {kernel_size_}, {}, {0}, {1}, false);
}

Dropout::Dropout(double p) : p_(p) {
  EMBER_CHECK(p >= 0.0 && p <= 1.0, ValueError,
              "Dropout: dropout probability has to be between 0 and 1, but got ", p);
}

Sequential::Sequential(std::vector<ModulePtr> modules) {
  for (ModulePtr& m : modules) push_back(std::move(m));
}

void Sequential::push_back(ModulePtr m) {
  register_module(std::to_string(children().size()), std::move(m));
}

const ModulePtr& Sequential::operator[](size_t i) const {
  EMBER_CHECK(i < size(), IndexError, "Sequential: index ", i, " is out of range for ", size(),
              " modules");
  return children()[i].second;
}

Tensor Sequential::forward(const Tensor& x) {
  Tensor y = x;
  for (const auto& [name, m] : children()) y = m->forward(y);
  return y;
}

}  // namespace ember::nn
