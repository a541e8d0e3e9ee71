// Optimizer::state_dict / load_state_dict (include/ember/optim.h): the per-parameter state
// under torch's names, "state.<i>.<name>", which is how ember::load flattens the "state"
// part of torch.save(optimizer.state_dict()); so a checkpoint torch wrote resumes in C++.
#include <cstdlib>
#include <map>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/optim.h"

namespace ember::optim {

StateDict Optimizer::state_dict() const {
  StateDict out;
  auto lists = const_cast<Optimizer*>(this)->state_lists();
  for (size_t i = 0; i < params_.size(); ++i)
    for (auto& [name, list] : lists)
      if ((*list)[i].defined())
        out.emplace_back("state." + std::to_string(i) + "." + name, detach((*list)[i]));
  return out;
}

void Optimizer::load_state_dict(const StateDict& state) {
  std::map<std::string, std::vector<Tensor>*> lists;
  for (auto& [name, list] : state_lists()) lists[name] = list;
  struct Copy {
    Tensor* dst;
    const Tensor* src;
    size_t param;
  };
  std::vector<Copy> copies;
  for (const auto& [key, src] : state) {
    if (!key.starts_with("state.")) continue;
    // "state.<i>.<name>"
    const size_t dot = key.find('.', 6);
    char* end = nullptr;
    const unsigned long long i = std::strtoull(key.c_str() + 6, &end, 10);
    EMBER_CHECK(dot != std::string::npos && end == key.c_str() + dot && dot > 6, Error,
                "optimizer load_state_dict: '", key, "' is not of the form state.<index>.<name>");
    EMBER_CHECK(i < params_.size(), Error, "optimizer load_state_dict: '", key,
                "' names parameter ", i, ", but the optimizer has ", params_.size(), " parameters");
    auto it = lists.find(key.substr(dot + 1));
    EMBER_CHECK(it != lists.end(), Error, "optimizer load_state_dict: '", key,
                "': this optimizer (with these ", "options) keeps no state named '",
                key.substr(dot + 1), "'");
    Tensor& dst = (*it->second)[i];
    const Dims want = it->first == "step" ? Dims{} : params_[i].sizes();
    EMBER_CHECK(src.defined() && src.sizes() == want, Error, "optimizer load_state_dict: '", key,
                "' has shape ", src.defined() ? src.sizes() : Dims{}, ", expected ", want);
    copies.push_back({&dst, &src, i});
  }
  NoGradGuard no_grad;
  for (Copy& c : copies) {
    if (!c.dst->defined())
      *c.dst = empty(c.src->sizes(), params_[c.param].dtype());  // a lazy buffer
    copy_(*c.dst, *c.src);
  }
}

std::vector<std::pair<const char*, std::vector<Tensor>*>> SGD::state_lists() {
  if (options.momentum == 0) return {};
  return {{"momentum_buffer", &momentum_buffers_}};
}

std::vector<std::pair<const char*, std::vector<Tensor>*>> Adam::state_lists() {
  std::vector<std::pair<const char*, std::vector<Tensor>*>> out = {{"step", &steps_},
                                                                   {"exp_avg", &exp_avgs_},
                                                                   {"exp_avg_sq", &exp_avg_sqs_}};
  if (!max_exp_avg_sqs_.empty()) out.emplace_back("max_exp_avg_sq", &max_exp_avg_sqs_);
  return out;
}

std::vector<std::pair<const char*, std::vector<Tensor>*>> RMSprop::state_lists() {
  std::vector<std::pair<const char*, std::vector<Tensor>*>> out = {{"step", &steps_},
                                                                   {"square_avg", &square_avgs_}};
  if (!momentum_buffers_.empty()) out.emplace_back("momentum_buffer", &momentum_buffers_);
  if (!grad_avgs_.empty()) out.emplace_back("grad_avg", &grad_avgs_);
  return out;
}

std::vector<std::pair<const char*, std::vector<Tensor>*>> Adagrad::state_lists() {
  return {{"step", &steps_}, {"sum", &sums_}};
}

}  // namespace ember::optim
