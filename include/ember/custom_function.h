// Custom autograd functions in C++: an op whose forward and backward you write yourself
// (torch::autograd::Function). Subclass Function<T> with two static members:
//
//   struct MulAdd : ember::autograd::Function<MulAdd> {
//     // any arguments; tensors among them become inputs of the graph
//     static ember::Tensor forward(AutogradContext* ctx, ember::Tensor x, ember::Tensor y, double
//     a) {
//       ctx->save_for_backward({x, y});
//       ctx->saved_data["a"] = a;
//       return ember::add(ember::mul(x, y), ember::Scalar(a));
//     }
//     // one gradient per output in; one per forward argument out (undefined for non-tensors)
//     static ember::Grads backward(AutogradContext* ctx, ember::Grads g) {
//       auto s = ctx->get_saved_variables();
//       return {ember::mul(g[0], s[1]), ember::mul(g[0], s[0]), ember::Tensor()};
//     }
//   };
//   ember::Tensor z = MulAdd::apply(x, y, 2.0);   // z.grad_fn runs MulAdd::backward
//
// forward runs with grad mode off and returns a Tensor or a std::vector of tensors (any type
// derived from Tensor, such as the torch compatibility header's at::Tensor). When grad mode is
// on and a tensor argument requires grad, apply() records one node whose backward calls
// T::backward; gradients of a broadcast shape are summed back to the input's shape, as torch's
// engine does. Lower level: subclass ember::Node and wire it with autograd::set_history.
#pragma once
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <variant>
#include <vector>

#include "ember/autograd.h"

namespace ember::autograd {

// A non-tensor value kept for backward in ctx->saved_data (what torch's IValue holds there).
class SavedValue {
 public:
  SavedValue() = default;
  SavedValue(bool v) : v_(v) {}
  SavedValue(int v) : v_(int64_t(v)) {}
  SavedValue(int64_t v) : v_(v) {}
  SavedValue(double v) : v_(v) {}
  SavedValue(Tensor v) : v_(std::move(v)) {}
  SavedValue(std::string v) : v_(std::move(v)) {}
  SavedValue(const char* v) : v_(std::string(v)) {}
  SavedValue(std::vector<int64_t> v) : v_(std::move(v)) {}

  bool isNone() const { return v_.index() == 0; }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isDouble() const { return std::holds_alternative<double>(v_); }
  bool isTensor() const { return std::holds_alternative<Tensor>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }
  bool isIntList() const { return std::holds_alternative<std::vector<int64_t>>(v_); }
  // Each throws ember::TypeError naming what the value holds when it holds something else.
  bool toBool() const;
  int64_t toInt() const;
  double toDouble() const;  // an int converts, as IValue::toDouble does not; ember is lenient
  Tensor toTensor() const;
  const std::string& toStringRef() const;
  std::vector<int64_t> toIntVector() const;
  const char* kind() const;  // "None", "bool", "int", "double", "Tensor", "str", "int[]"

 private:
  std::variant<std::monostate, bool, int64_t, double, Tensor, std::string, std::vector<int64_t>> v_;
};

class FunctionNode;

// What forward leaves for backward (torch::autograd::AutogradContext).
class AutogradContext {
 public:
  AutogradContext();
  virtual ~AutogradContext();
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

  // Tensors backward needs (inputs or outputs of forward); get_saved_variables() gives them
  // back and throws if one was modified in place in between (torch's version check).
  void save_for_backward(const std::vector<Tensor>& tensors);
  std::vector<Tensor> get_saved_variables() const;
  // Outputs that get no gradient (indices, masks): they do not require grad.
  void mark_non_differentiable(const std::vector<Tensor>& outputs);
  // Whether backward receives zeros (true, the default) or undefined tensors for outputs
  // that got no gradient.
  void set_materialize_grads(bool value);
  // Whether tensor input `index` (counting tensor arguments of forward only) needs a gradient.
  bool needs_input_grad(size_t index) const;

  std::unordered_map<std::string, SavedValue> saved_data;

 private:
  friend class FunctionNode;
  friend void finish_function(const IntrusivePtr<FunctionNode>& node,
                              const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);
  struct State;
  std::unique_ptr<State> state_;
};

namespace detail {
using BackwardFn = Grads (*)(AutogradContext* ctx, Grads&& grads);
}

// The graph node apply() records: runs T::backward through `backward_`. Built only by apply().
class FunctionNode final : public Node {
 public:
  FunctionNode(std::string name, std::unique_ptr<AutogradContext> ctx, detail::BackwardFn backward,
               std::vector<bool> is_tensor_arg, const std::vector<Tensor>& inputs);
  ~FunctionNode() override;
  Grads apply(Grads&& grads) override;
  std::string name() const override { return name_; }
  void release_saved() override;
  AutogradContext* context() const { return ctx_.get(); }

 private:
  friend void finish_function(const IntrusivePtr<FunctionNode>& node,
                              const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);
  std::string name_;
  std::unique_ptr<AutogradContext> ctx_;
  detail::BackwardFn backward_;
  std::vector<bool> is_tensor_arg_;  // per forward argument
  std::vector<Dims> input_sizes_;    // per tensor input: what its gradient must match
  std::vector<DType> input_dtypes_;
  std::vector<Dims> output_sizes_;  // per differentiable output: for materialized zeros
  std::vector<DType> output_dtypes_;
  bool released_ = false;
};

// Records `node` on the outputs when grad mode is on and a tensor input requires grad: an
// output that is also an input is replaced by an alias (as torch does), what forward saved is
// kept with its version. With no input requiring grad, it only drops the node.
void finish_function(const IntrusivePtr<FunctionNode>& node, const std::vector<Tensor>& inputs,
                     std::vector<Tensor>& outputs);

// Input k's gradient as the backward of Function `name` returned it, fitted to the input as
// torch's engine does: summed down to `sizes` when that shape broadcasts to the gradient's (a
// bias gradient computed with keepdim=true), cast to `dtype`; any other shape raises torch's
// "returned an invalid gradient" error. Shared by FunctionNode and Python Functions' node.
Tensor fit_function_grad(const std::string& name, size_t k, Tensor g, const Dims& sizes,
                         DType dtype);

namespace detail {
// The demangled name of a mangled C++ type name, + "Backward" (the node's name).
std::string backward_name(const char* mangled);

template <class A>
constexpr bool is_tensor_arg = std::is_base_of_v<Tensor, std::decay_t<A>>;

template <class R, class C, class G>
G grads_type(R (*)(C, G));
}  // namespace detail

// CRTP base of a custom function; Ctx is the context type forward and backward take
// (AutogradContext, or a type derived from it that adds no data).
template <class T, class Ctx = AutogradContext>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args) {
    static_assert(std::is_base_of_v<AutogradContext, Ctx>);
    std::vector<Tensor> inputs;
    std::vector<bool> is_tensor{detail::is_tensor_arg<Args>...};
    (collect(inputs, args), ...);
    IntrusivePtr<FunctionNode> node(new FunctionNode(detail::backward_name(typeid(T).name()),
                                                     std::unique_ptr<AutogradContext>(new Ctx()),
                                                     &run_backward, std::move(is_tensor), inputs));
    auto* ctx = static_cast<Ctx*>(node->context());
    using Out = std::decay_t<decltype(T::forward(ctx, std::forward<Args>(args)...))>;
    Out out;
    {
      AutoGradMode no_grad(false);
      out = T::forward(ctx, std::forward<Args>(args)...);
    }
    if constexpr (std::is_base_of_v<Tensor, Out>) {
      std::vector<Tensor> outs{out};
      finish_function(node, inputs, outs);
      return Out(outs[0]);
    } else {
      std::vector<Tensor> outs(out.begin(), out.end());
      finish_function(node, inputs, outs);
      return Out(outs.begin(), outs.end());
    }
  }

 private:
  template <class A>
  static void collect(std::vector<Tensor>& inputs, const A& a) {
    if constexpr (detail::is_tensor_arg<A>) inputs.push_back(a);
  }
  // T::backward takes the context and the output gradients (as a vector of its tensor type)
  // and returns a vector of gradients, one per forward argument.
  static Grads run_backward(AutogradContext* ctx, Grads&& grads) {
    using G = decltype(detail::grads_type(&T::backward));
    std::decay_t<G> g(grads.begin(), grads.end());
    auto r = T::backward(static_cast<Ctx*>(ctx), std::move(g));
    return Grads(r.begin(), r.end());
  }
};

}  // namespace ember::autograd
