// The losses of ember/functional.h, with torch.nn.functional's argument names and defaults;
// reduction is a string, 'none', 'mean' or 'sum'.
#include "ember/functional.h"

#include "common.h"

namespace ember::py {

namespace {

Tensor opt(const std::optional<Tensor>& t) { return t.value_or(Tensor()); }

Reduction reduction_from(const std::string& s, const char* op) {
  if (s == "mean") return Reduction::Mean;
  if (s == "sum") return Reduction::Sum;
  if (s == "none") return Reduction::None;
  throw ValueError(detail::cat(op, ": '", s, "' is not a valid value for reduction"));
}

}  // namespace

void bind_losses(nb::module_& m) {
  m.def(
      "cross_entropy",
      [](const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
         int64_t ignore_index, const std::string& reduction, double label_smoothing) {
        return cross_entropy(input, target, opt(weight), reduction_from(reduction, "cross_entropy"),
                             ignore_index, label_smoothing);
      },
      nb::arg("input"), nb::arg("target"), nb::arg("weight").none() = nb::none(),
      nb::arg("ignore_index") = -100, nb::arg("reduction") = "mean",
      nb::arg("label_smoothing") = 0.0, docstring("cross_entropy"));

  m.def(
      "nll_loss",
      [](const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
         int64_t ignore_index, const std::string& reduction) {
        return nll_loss(input, target, opt(weight), reduction_from(reduction, "nll_loss"),
                        ignore_index);
      },
      nb::arg("input"), nb::arg("target"), nb::arg("weight").none() = nb::none(),
      nb::arg("ignore_index") = -100, nb::arg("reduction") = "mean", docstring("nll_loss"));

  m.def(
      "mse_loss",
      [](const Tensor& input, const Tensor& target, const std::string& reduction) {
        return mse_loss(input, target, reduction_from(reduction, "mse_loss"));
      },
      nb::arg("input"), nb::arg("target"), nb::arg("reduction") = "mean", docstring("mse_loss"));

  m.def(
      "l1_loss",
      [](const Tensor& input, const Tensor& target, const std::string& reduction) {
        return l1_loss(input, target, reduction_from(reduction, "l1_loss"));
      },
      nb::arg("input"), nb::arg("target"), nb::arg("reduction") = "mean", docstring("l1_loss"));

  m.def(
      "binary_cross_entropy",
      [](const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
         const std::string& reduction) {
        return binary_cross_entropy(input, target, opt(weight),
                                    reduction_from(reduction, "binary_cross_entropy"));
      },
      nb::arg("input"), nb::arg("target"), nb::arg("weight").none() = nb::none(),
      nb::arg("reduction") = "mean", docstring("binary_cross_entropy"));

  m.def(
      "binary_cross_entropy_with_logits",
      [](const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
         const std::string& reduction, const std::optional<Tensor>& pos_weight) {
        return binary_cross_entropy_with_logits(input, target, opt(weight), opt(pos_weight),
                                                reduction_from(reduction,
                                                               "binary_cross_entropy_with_logits"));
      },
      nb::arg("input"), nb::arg("target"), nb::arg("weight").none() = nb::none(),
      nb::arg("reduction") = "mean", nb::arg("pos_weight").none() = nb::none(),
      docstring("binary_cross_entropy_with_logits"));

  // The aten-level forms (torch.ctc_loss's per-sample core, torch.grid_sampler): python/ember
  // maps F.ctc_loss's tensors of lengths and F.grid_sample's strings onto them.
  m.def(
      "ctc_loss_per_sample",
      [](const Tensor& log_probs, const Tensor& targets, const std::vector<int64_t>& input_lengths,
         const std::vector<int64_t>& target_lengths, int64_t blank, bool zero_infinity) {
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity);
      },
      nb::arg("log_probs"), nb::arg("targets"), nb::arg("input_lengths"), nb::arg("target_lengths"),
      nb::arg("blank") = 0, nb::arg("zero_infinity") = false, docstring("ctc_loss_per_sample"));
  m.def("grid_sampler", &grid_sampler, nb::arg("input"), nb::arg("grid"),
        nb::arg("interpolation_mode") = 0, nb::arg("padding_mode") = 0,
        nb::arg("align_corners") = false, docstring("grid_sampler"));
}

}  // namespace ember::py
