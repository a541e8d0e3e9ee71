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
// A Module owns its parameters (leaf tensors that require grad), its buffers (state that is
// saved but not trained: BatchNorm's running statistics) and its sub-modules, in
// registration order, named like PyTorch's state_dict keys ("0.weight"), so a state dict
// moves between C++, ember's Python modules and torch's (ember::save / ember::load,
// ember/serialize.h). The math is the ops of ember/functional.h; the Python package has
// its own, PyTorch-shaped classes. The layers beyond these few live in ember/nn/*.h, one
// header per concept (docs/cpp_frontend.md lists them next to their Python names).
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/functional.h"
#include "ember/serialize.h"

namespace ember::nn {

class Module;
using ModulePtr = std::shared_ptr<Module>;

class Module {
 public:
  virtual ~Module() = default;
  virtual Tensor forward(const Tensor& x) = 0;
  Tensor operator()(const Tensor& x) { return forward(x); }
  // The class name, as torch prints it ("Conv2d", "LSTM"): what error messages name.
  virtual const char* name() const { return "Module"; }

  std::vector<Tensor> parameters() const;  // this module's, then each child's, recursively
  std::vector<std::pair<std::string, Tensor>> named_parameters() const;
  std::vector<Tensor> buffers() const;
  std::vector<std::pair<std::string, Tensor>> named_buffers() const;
  const std::vector<std::pair<std::string, ModulePtr>>& children() const { return children_; }

  // Parameters and buffers by name in torch's order (each module's parameters, then its
  // buffers, then its children's), detached: the tensors share the module's data.
  StateDict state_dict() const;
  // Copies each entry into the parameter or buffer of that name (converting the dtype), under
  // no-grad. Everything is checked first: a shape mismatch, or with `strict` a missing or
  // unexpected key, throws ember::Error naming the keys and changes nothing.
  void load_state_dict(const StateDict& state, bool strict = true);

  void train(bool on = true);  // recursively; Dropout and BatchNorm behave by it
  void eval() { train(false); }
  bool is_training() const { return training_; }
  void zero_grad();  // sets every parameter's grad to undefined (set_to_none)
  // Casts every floating-point or complex parameter and buffer (and defined grad), recursively,
  // to `dtype`, in place: each tensor keeps its identity, so the module's fields and earlier
  // parameters() see the new data. Integer buffers are kept, as Python's Module.to(dtype) does
  // (libtorch would cast them too). Throws TypeError for a dtype that is neither.
  void to(DType dtype);

 protected:
  // Makes t a leaf that requires grad, stores it under `name`, and returns it.
  Tensor register_parameter(std::string name, Tensor t);
  // Stores t (which never requires grad) under `name`; returns it.
  Tensor register_buffer(std::string name, Tensor t);
  ModulePtr register_module(std::string name, ModulePtr m);

 private:
  enum Which : uint8_t { kParams = 1, kBuffers = 2 };
  void collect(const std::string& prefix, int which,
               std::vector<std::pair<std::string, Tensor>>& out) const;
  std::vector<std::pair<std::string, Tensor>> params_, buffers_;
  std::vector<std::pair<std::string, ModulePtr>> children_;
  bool training_ = true;
};

// y = x W^T + b, initialised like torch.nn.Linear: W and b uniform in +-1/sqrt(in).
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& x) override;
  const char* name() const override { return "Linear"; }
  Tensor weight, bias;
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
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1)
      : start_(start_dim), end_(end_dim) {}
  Tensor forward(const Tensor& x) override { return flatten(x, start_, end_); }

 private:
  int64_t start_, end_;
};

// Zeroes elements with probability p and scales the rest by 1 / (1 - p) in training mode;
// the identity in eval mode. p outside [0, 1] throws ValueError.
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5);
  Tensor forward(const Tensor& x) override { return dropout(x, p_, is_training()); }
  const char* name() const override { return "Dropout"; }

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
  const ModulePtr& operator[](size_t i) const;  // IndexError past the end
  const char* name() const override { return "Sequential"; }
};

}  // namespace ember::nn

// The other layers, one header per concept (each includes this one).
#include "ember/nn/conv.h"
#include "ember/nn/embedding.h"
#include "ember/nn/normalization.h"
#include "ember/nn/rnn.h"
