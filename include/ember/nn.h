// ember::nn: layers as C++ objects, for programs that use ember without Python.
//
//   auto model = std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
//       std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(784, 128),
//       std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(128, 10)});
//   optim::Adam opt(model->parameters(), {.lr = 1e-3});
//   Tensor loss = cross_entropy((*model)(x), y);
//   opt.zero_grad();
//   autograd::backward({loss});
//   opt.step();
//
// A Module owns its parameters (leaf tensors that require grad) and its sub-modules, in
// registration order, named like PyTorch's state_dict keys ("0.weight"). The math is the
// ops of ember/functional.h; the Python package has its own, PyTorch-shaped classes.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/functional.h"

namespace ember::nn {

class Module;
using ModulePtr = std::shared_ptr<Module>;

class Module {
 public:
  virtual ~Module() = default;
  virtual Tensor forward(const Tensor& x) = 0;
  Tensor operator()(const Tensor& x) { return forward(x); }

  std::vector<Tensor> parameters() const;  // this module's, then each child's, recursively
  std::vector<std::pair<std::string, Tensor>> named_parameters() const;
  const std::vector<std::pair<std::string, ModulePtr>>& children() const { return children_; }

  void train(bool on = true);  // recursively; Dropout and BatchNorm behave by it
  void eval() { train(false); }
  bool is_training() const { return training_; }
  void zero_grad();  // sets every parameter's grad to undefined (set_to_none)

 protected:
  // Makes t a leaf that requires grad, stores it under `name`, and returns it.
  Tensor register_parameter(std::string name, Tensor t);
  ModulePtr register_module(std::string name, ModulePtr m);

 private:
  void collect(const std::string& prefix, std::vector<std::pair<std::string, Tensor>>& out) const;
  std::vector<std::pair<std::string, Tensor>> params_;
  std::vector<std::pair<std::string, ModulePtr>> children_;
  bool training_ = true;
};

// y = x W^T + b, initialised like torch.nn.Linear: W and b uniform in +-1/sqrt(in).
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& x) override;
  Tensor weight, bias;
};

// 2-d convolution, initialised like torch.nn.Conv2d.
class Conv2d : public Module {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1,
         int64_t padding = 0, bool bias = true);
  Tensor forward(const Tensor& x) override;
  Tensor weight, bias;

 private:
  int64_t stride_, padding_;
};

class MaxPool2d : public Module {
 public:
  explicit MaxPool2d(int64_t kernel_size) : kernel_size_(kernel_size) {}
  Tensor forward(const Tensor& x) override;

 private:
  int64_t kernel_size_;
};

class ReLU : public Module {
 public:
  Tensor forward(const Tensor& x) override { return relu(x); }
};

// Flattens dims start..end (default: all but the batch dim).
class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1) : start_(start_dim), end_(end_dim) {}
  Tensor forward(const Tensor& x) override { return flatten(x, start_, end_); }

 private:
  int64_t start_, end_;
};

class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5) : p_(p) {}
  Tensor forward(const Tensor& x) override { return dropout(x, p_, is_training()); }

 private:
  double p_;
};

// Runs its modules in order; they are registered as "0", "1", ...
class Sequential : public Module {
 public:
  Sequential() = default;
  explicit Sequential(std::vector<ModulePtr> modules);
  void push_back(ModulePtr m);
  Tensor forward(const Tensor& x) override;
  size_t size() const { return children().size(); }
};

}  // namespace ember::nn
