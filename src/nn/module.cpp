// ember::nn (include/ember/nn.h): the C++ module tree and its layers.
#include <cmath>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/nn.h"

namespace ember::nn {

Tensor Module::register_parameter(std::string name, Tensor t) {
  autograd::set_requires_grad(t, true);
  params_.emplace_back(std::move(name), t);
  return t;
}

ModulePtr Module::register_module(std::string name, ModulePtr m) {
  EMBER_CHECK(m != nullptr, ValueError, "Module: register_module('", name, "') got a null module");
  children_.emplace_back(std::move(name), m);
  return m;
}

void Module::collect(const std::string& prefix, std::vector<std::pair<std::string, Tensor>>& out) const {
  for (const auto& [name, p] : params_) out.emplace_back(prefix + name, p);
  for (const auto& [name, child] : children_) child->collect(prefix + name + ".", out);
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect("", out);
  return out;
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

void Module::zero_grad() {
  for (const Tensor& p : parameters()) autograd::set_grad(p, Tensor());
}

namespace {
// torch.nn.Linear/Conv2d's reset_parameters: kaiming_uniform_(a=sqrt(5)) on the weight is
// uniform in +-1/sqrt(fan_in), the same bound as the bias.
Tensor uniform_init(IntList shape, int64_t fan_in) {
  Tensor t = empty(shape);
  double bound = fan_in > 0 ? 1.0 / std::sqrt(double(fan_in)) : 0.0;
  uniform_(t, -bound, bound);
  return t;
}
}  // namespace

Linear::Linear(int64_t in_features, int64_t out_features, bool with_bias) {
  EMBER_CHECK(in_features >= 0 && out_features >= 0, ValueError,
              "Linear: feature counts must be non-negative, got (", in_features, ", ", out_features, ")");
  weight = register_parameter("weight", uniform_init({out_features, in_features}, in_features));
  if (with_bias) bias = register_parameter("bias", uniform_init({out_features}, in_features));
}

Tensor Linear::forward(const Tensor& x) { return linear(x, weight, bias); }

Conv2d::Conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride,
               int64_t padding, bool with_bias)
    : stride_(stride), padding_(padding) {
  EMBER_CHECK(in_channels > 0 && out_channels > 0 && kernel_size > 0, ValueError,
              "Conv2d: channels and kernel_size must be positive, got in_channels=", in_channels,
              ", out_channels=", out_channels, ", kernel_size=", kernel_size);
  int64_t fan_in = in_channels * kernel_size * kernel_size;
  weight = register_parameter("weight",
                              uniform_init({out_channels, in_channels, kernel_size, kernel_size}, fan_in));
  if (with_bias) bias = register_parameter("bias", uniform_init({out_channels}, fan_in));
}

Tensor Conv2d::forward(const Tensor& x) {
  return conv2d(x, weight, bias, {stride_}, {padding_}, {1}, 1);
}

Tensor MaxPool2d::forward(const Tensor& x) {
  return max_pool2d(x, {kernel_size_}, {}, {0}, {1}, false);
}

Sequential::Sequential(std::vector<ModulePtr> modules) {
  for (ModulePtr& m : modules) push_back(std::move(m));
}

void Sequential::push_back(ModulePtr m) { register_module(std::to_string(children().size()), std::move(m)); }

Tensor Sequential::forward(const Tensor& x) {
  Tensor y = x;
  for (const auto& [name, m] : children()) y = m->forward(y);
  return y;
}

}  // namespace ember::nn
