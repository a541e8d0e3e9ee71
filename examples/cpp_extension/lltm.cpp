// The LLTM cell of PyTorch's C++ extension tutorial ("Custom C++ and CUDA Extensions"), in
// torch's C++ style: forward and backward written by hand, built for ember with
// ember.utils.cpp_extension (load_inline, or setup.py with CppExtension + BuildExtension).
//
//   forward(input, weights, bias, old_h, old_cell) -> [new_h, new_cell, input_gate,
//            output_gate, candidate_cell, X, gate_weights]   (what backward needs)
//   backward(grad_h, grad_cell, new_cell, input_gate, output_gate, candidate_cell, X,
//            gate_weights, weights) -> [d_old_h, d_input, d_weights, d_bias, d_old_cell]
//   lltm(input, weights, bias, old_h, old_cell) -> [new_h, new_cell], differentiable: the same
//            forward and backward as one torch::autograd::Function, so no Python runs in backward.
#include <torch/extension.h>

#include <vector>

// s'(z) = (1 - s(z)) s(z)
torch::Tensor d_sigmoid(torch::Tensor z) {
  auto s = torch::sigmoid(z);
  return (1 - s) * s;
}

// tanh'(z) = 1 - tanh(z)^2
torch::Tensor d_tanh(torch::Tensor z) { return 1 - z.tanh().pow(2); }

// elu'(z) = 1 for z > 0, alpha * exp(z) otherwise
torch::Tensor d_elu(torch::Tensor z, torch::Scalar alpha = 1.0) {
  auto e = z.exp();
  auto mask = (alpha * (e - 1)) < 0;
  return (z > 0).type_as(z) + mask.type_as(z) * (alpha * e);
}

std::vector<torch::Tensor> lltm_forward(torch::Tensor input, torch::Tensor weights,
                                        torch::Tensor bias, torch::Tensor old_h,
                                        torch::Tensor old_cell) {
  auto X = torch::cat({old_h, input}, /*dim=*/1);
  auto gate_weights = torch::addmm(bias, X, weights.transpose(0, 1));
  auto gates = gate_weights.chunk(3, /*dim=*/1);

  auto input_gate = torch::sigmoid(gates[0]);
  auto output_gate = torch::sigmoid(gates[1]);
  auto candidate_cell = torch::elu(gates[2], /*alpha=*/1.0);

  auto new_cell = old_cell + candidate_cell * input_gate;
  auto new_h = torch::tanh(new_cell) * output_gate;
  return {new_h, new_cell, input_gate, output_gate, candidate_cell, X, gate_weights};
}

std::vector<torch::Tensor> lltm_backward(torch::Tensor grad_h, torch::Tensor grad_cell,
                                         torch::Tensor new_cell, torch::Tensor input_gate,
                                         torch::Tensor output_gate, torch::Tensor candidate_cell,
                                         torch::Tensor X, torch::Tensor gate_weights,
                                         torch::Tensor weights) {
  auto d_output_gate = torch::tanh(new_cell) * grad_h;
  auto d_tanh_new_cell = output_gate * grad_h;
  auto d_new_cell = d_tanh(new_cell) * d_tanh_new_cell + grad_cell;

  auto d_old_cell = d_new_cell;
  auto d_candidate_cell = input_gate * d_new_cell;
  auto d_input_gate = candidate_cell * d_new_cell;

  auto gates = gate_weights.chunk(3, /*dim=*/1);
  d_input_gate *= d_sigmoid(gates[0]);
  d_output_gate *= d_sigmoid(gates[1]);
  d_candidate_cell *= d_elu(gates[2]);

  auto d_gates = torch::cat({d_input_gate, d_output_gate, d_candidate_cell}, /*dim=*/1);

  auto d_weights = d_gates.t().mm(X);
  auto d_bias = d_gates.sum(/*dim=*/0, /*keepdim=*/true);

  auto d_X = d_gates.mm(weights);
  const auto state_size = grad_h.size(1);
  auto d_old_h = d_X.slice(/*dim=*/1, 0, state_size);
  auto d_input = d_X.slice(/*dim=*/1, state_size);
  return {d_old_h, d_input, d_weights, d_bias, d_old_cell};
}

// The whole cell as one autograd op: forward saves what lltm_backward needs, backward returns
// one gradient per forward argument (input, weights, bias, old_h, old_cell).
struct LLTMFunction : public torch::autograd::Function<LLTMFunction> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                torch::Tensor input, torch::Tensor weights,
                                                torch::Tensor bias, torch::Tensor old_h,
                                                torch::Tensor old_cell) {
    auto outputs = lltm_forward(input, weights, bias, old_h, old_cell);
    ctx->save_for_backward(
        {outputs[1], outputs[2], outputs[3], outputs[4], outputs[5], outputs[6], weights});
    return {outputs[0], outputs[1]};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    auto s = ctx->get_saved_variables();
    auto d = lltm_backward(grads[0].contiguous(), grads[1].contiguous(), s[0], s[1], s[2], s[3],
                           s[4], s[5], s[6]);
    return {d[1], d[2], d[3], d[0], d[4]};
  }
};

std::vector<torch::Tensor> lltm(torch::Tensor input, torch::Tensor weights, torch::Tensor bias,
                                torch::Tensor old_h, torch::Tensor old_cell) {
  return LLTMFunction::apply(input, weights, bias, old_h, old_cell);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &lltm_forward, "LLTM forward");
  m.def("backward", &lltm_backward, "LLTM backward");
  m.def("lltm", &lltm, "LLTM cell with its backward in C++ (torch::autograd::Function)");
}
