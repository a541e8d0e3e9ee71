// ember._C._optim: one call per parameter group for each optimizer's step. Lists of
// tensors come in as Python lists (None -> an undefined tensor: a parameter without a
// grad, or an SGD momentum buffer not created yet).
#include "common.h"
#include "ember/optim.h"

namespace ember::py {
namespace {

std::vector<Tensor> tensor_list(nb::handle h, const char* op, const char* name) {
  if (!PyList_Check(h.ptr()) && !PyTuple_Check(h.ptr()))
    throw TypeError(detail::cat(op, ": ", name, " must be a list of tensors, got ",
                                nb::type_name(h.type()).c_str()));
  std::vector<Tensor> out;
  out.reserve(nb::len(h));
  for (nb::handle x : h) {
    if (x.is_none()) {
      out.emplace_back();
    } else if (nb::isinstance<Tensor>(x)) {
      out.push_back(nb::cast<Tensor>(x));
    } else {
      throw TypeError(detail::cat(op, ": ", name, " must hold tensors, got an element of type ",
                                  nb::type_name(x.type()).c_str()));
    }
  }
  return out;
}

}  // namespace

void bind_optim(nb::module_& m) {
  nb::module_ o = m.def_submodule("_optim", "fused optimizer steps (ember.optim calls these)");

  o.def(
      "sgd",
      [](nb::handle params, nb::handle grads, nb::handle bufs, double lr, double momentum,
         double dampening, double weight_decay, bool nesterov, bool maximize) {
        const char* op = "sgd_step";
        std::vector<Tensor> b = tensor_list(bufs, op, "momentum_buffers");
        optim::sgd_step(tensor_list(params, op, "params"), tensor_list(grads, op, "grads"), b,
                        {lr, momentum, dampening, weight_decay, nesterov, maximize});
        nb::list out;  // the buffers, with the ones created by this step
        for (const Tensor& t : b) out.append(t.defined() ? nb::cast(t) : nb::none());
        return out;
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("momentum_buffers"), nb::arg("lr"),
      nb::arg("momentum"), nb::arg("dampening"), nb::arg("weight_decay"), nb::arg("nesterov"),
      nb::arg("maximize"));

  o.def(
      "adam",
      [](nb::handle params, nb::handle grads, nb::handle exp_avgs, nb::handle exp_avg_sqs,
         nb::handle max_exp_avg_sqs, nb::handle steps, double lr, double beta1, double beta2,
         double eps, double weight_decay, bool amsgrad, bool maximize,
         bool decoupled_weight_decay) {
        const char* op = decoupled_weight_decay ? "adamw_step" : "adam_step";
        optim::adam_step(tensor_list(params, op, "params"), tensor_list(grads, op, "grads"),
                         tensor_list(exp_avgs, op, "exp_avgs"),
                         tensor_list(exp_avg_sqs, op, "exp_avg_sqs"),
                         tensor_list(max_exp_avg_sqs, op, "max_exp_avg_sqs"),
                         tensor_list(steps, op, "steps"),
                         {lr, beta1, beta2, eps, weight_decay, amsgrad, maximize,
                          decoupled_weight_decay});
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"), nb::arg("exp_avg_sqs"),
      nb::arg("max_exp_avg_sqs"), nb::arg("steps"), nb::arg("lr"), nb::arg("beta1"),
      nb::arg("beta2"), nb::arg("eps"), nb::arg("weight_decay"), nb::arg("amsgrad"),
      nb::arg("maximize"), nb::arg("decoupled_weight_decay"));

  o.def(
      "rmsprop",
      [](nb::handle params, nb::handle grads, nb::handle square_avgs, nb::handle grad_avgs,
         nb::handle momentum_buffers, nb::handle steps, double lr, double alpha, double eps,
         double weight_decay, double momentum, bool centered, bool maximize) {
        const char* op = "rmsprop_step";
        optim::rmsprop_step(tensor_list(params, op, "params"), tensor_list(grads, op, "grads"),
                            tensor_list(square_avgs, op, "square_avgs"),
                            tensor_list(grad_avgs, op, "grad_avgs"),
                            tensor_list(momentum_buffers, op, "momentum_buffers"),
                            tensor_list(steps, op, "steps"),
                            {lr, alpha, eps, weight_decay, momentum, centered, maximize});
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("square_avgs"), nb::arg("grad_avgs"),
      nb::arg("momentum_buffers"), nb::arg("steps"), nb::arg("lr"), nb::arg("alpha"),
      nb::arg("eps"), nb::arg("weight_decay"), nb::arg("momentum"), nb::arg("centered"),
      nb::arg("maximize"));

  o.def(
      "adagrad",
      [](nb::handle params, nb::handle grads, nb::handle sums, nb::handle steps, double lr,
         double lr_decay, double weight_decay, double eps, bool maximize) {
        const char* op = "adagrad_step";
        optim::adagrad_step(tensor_list(params, op, "params"), tensor_list(grads, op, "grads"),
                            tensor_list(sums, op, "sums"), tensor_list(steps, op, "steps"),
                            {lr, lr_decay, weight_decay, eps, maximize});
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("sums"), nb::arg("steps"), nb::arg("lr"),
      nb::arg("lr_decay"), nb::arg("weight_decay"), nb::arg("eps"), nb::arg("maximize"));
}

}  // namespace ember::py
