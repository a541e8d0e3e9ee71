// Layer ops of ember/functional.h: linear, activations, dropout, normalization, embedding,
// with torch.nn.functional's argument names and defaults.
#include "ember/functional.h"

#include "common.h"

namespace ember::py {

namespace {
Tensor opt(const std::optional<Tensor>& t) { return t.value_or(Tensor()); }
}  // namespace

void bind_layers(nb::module_& m) {
  m.def(
      "linear",
      [](const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
        return linear(input, weight, opt(bias));
      },
      nb::arg("input"), nb::arg("weight"), nb::arg("bias").none() = nb::none(),
      docstring("linear"));

  m.def(
      "gelu",
      [](const Tensor& input, const std::string& approximate) {
        if (approximate != "none" && approximate != "tanh")
          throw ValueError(
              detail::cat("gelu: approximate argument must be either 'none' or 'tanh', got '",
                          approximate, "'"));
        return gelu(input, approximate == "tanh");
      },
      nb::arg("input"), nb::arg("approximate") = "none", docstring("gelu"));

  m.def("silu", &silu, nb::arg("input"), docstring("silu"));
  m.def("hardswish", &hardswish, nb::arg("input"), docstring("hardswish"));
  m.def("softplus", &softplus, nb::arg("input"), nb::arg("beta") = 1.0, nb::arg("threshold") = 20.0,
        docstring("softplus"));

  m.def("leaky_relu", &leaky_relu, nb::arg("input"), nb::arg("negative_slope") = 0.01,
        docstring("leaky_relu"));
  m.def(
      "leaky_relu_",
      [](nb::handle input, Scalar negative_slope) {
        if (!nb::isinstance<Tensor>(input))
          throw TypeError(detail::cat("leaky_relu_: expected a Tensor, got ",
                                      nb::type_name(input.type()).c_str()));
        return inplace(input, [&](Tensor& x) { leaky_relu_(x, negative_slope); });
      },
      nb::arg("input"), nb::arg("negative_slope") = 0.01, docstring("leaky_relu_"));

  m.def("dropout", &dropout, nb::arg("input"), nb::arg("p") = 0.5, nb::arg("training") = true,
        docstring("dropout"));

  m.def(
      "batch_norm",
      [](const Tensor& input, const std::optional<Tensor>& running_mean,
         const std::optional<Tensor>& running_var, const std::optional<Tensor>& weight,
         const std::optional<Tensor>& bias, bool training, double momentum, double eps) {
        return batch_norm(input, opt(running_mean), opt(running_var), opt(weight), opt(bias),
                          training, momentum, eps);
      },
      nb::arg("input"), nb::arg("running_mean").none(), nb::arg("running_var").none(),
      nb::arg("weight").none() = nb::none(), nb::arg("bias").none() = nb::none(),
      nb::arg("training") = false, nb::arg("momentum") = 0.1, nb::arg("eps") = 1e-5,
      docstring("batch_norm"));

  m.def(
      "layer_norm",
      [](const Tensor& input, nb::handle normalized_shape, const std::optional<Tensor>& weight,
         const std::optional<Tensor>& bias, double eps) {
        return layer_norm(input, shape_from_sequence(normalized_shape, "layer_norm"), opt(weight),
                          opt(bias), eps);
      },
      nb::arg("input"), nb::arg("normalized_shape"), nb::arg("weight").none() = nb::none(),
      nb::arg("bias").none() = nb::none(), nb::arg("eps") = 1e-5, docstring("layer_norm"));

  m.def("embedding", &embedding, nb::arg("input"), nb::arg("weight"),
        nb::arg("padding_idx").none() = nb::none(), docstring("embedding"));

  m.def("scaled_dot_product_attention_fused", &scaled_dot_product_attention, nb::arg("query"),
        nb::arg("key"), nb::arg("value"), nb::arg("is_causal"), nb::arg("scale"),
        docstring("scaled_dot_product_attention_fused"));

  m.def(
      "rnn_layer",
      [](const std::string& mode, const Tensor& xp, const Tensor& h0,
         const std::optional<Tensor>& c0, const Tensor& w_hh, const std::optional<Tensor>& b_hh,
         const std::optional<Tensor>& w_hr, const std::vector<int64_t>& batch_sizes, bool reverse) {
        return rnn_layer(mode, xp, h0, opt(c0), w_hh, opt(b_hh), opt(w_hr),
                         IntList(batch_sizes.data(), batch_sizes.size()), reverse);
      },
      nb::arg("mode"), nb::arg("xp"), nb::arg("h0"), nb::arg("c0").none(), nb::arg("w_hh"),
      nb::arg("b_hh").none() = nb::none(), nb::arg("w_hr").none() = nb::none(),
      nb::arg("batch_sizes") = std::vector<int64_t>(), nb::arg("reverse") = false,
      docstring("rnn_layer"));
}

}  // namespace ember::py
