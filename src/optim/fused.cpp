#include "optim/fused.h"

#include <algorithm>

#include "ember/ops.h"
#include "ops/iter.h"

namespace ember::optim::detail {
namespace {

void check_like(const char* op, const char* what, size_t i, const Tensor& t, const Tensor& param) {
  EMBER_CHECK(t.sizes() == param.sizes(), ValueError, op, ": ", what, "[", i, "] has shape ",
              t.sizes(), " but its parameter has shape ", param.sizes());
  EMBER_CHECK(t.dtype() == param.dtype(), TypeError, op, ": ", what, "[", i, "] has dtype ",
              dtype_name(t.dtype()), " but its parameter has dtype ", dtype_name(param.dtype()));
}

void check_count(const char* op, const char* what, size_t n, size_t want) {
  EMBER_CHECK(n == want, ValueError, op, ": got ", want, " parameters but ", n, " ", what);
}

}  // namespace

void check_step_args(const char* op, const std::vector<Tensor>& params,
                     const std::vector<Tensor>& grads, const std::vector<StateList>& states,
                     const std::vector<Tensor>* steps) {
  const size_t n = params.size();
  check_count(op, "grads", grads.size(), n);
  for (const StateList& s : states) check_count(op, s.name, s.tensors->size(), n);
  if (steps) check_count(op, "step counters", steps->size(), n);
  for (size_t i = 0; i < n; ++i) {
    const Tensor& p = params[i];
    EMBER_CHECK(p.defined(), ValueError, op, ": params[", i, "] is undefined");
    EMBER_CHECK(is_floating_point(p.dtype()), TypeError, op, ": params[", i, "] has dtype ",
                dtype_name(p.dtype()), "; optimizers update floating point tensors only");
    if (!grads[i].defined()) continue;  // skipped, like a parameter whose .grad is None
    if (p.numel() > 0) ops::check_no_internal_overlap(p, op);
    check_like(op, "grads", i, grads[i], p);
    for (const StateList& s : states) {
      const Tensor& t = (*s.tensors)[i];
      if (!t.defined() && s.may_be_undefined) continue;
      EMBER_CHECK(t.defined(), ValueError, op, ": ", s.name, "[", i, "] is undefined");
      check_like(op, s.name, i, t, p);
      if (t.numel() > 0) ops::check_no_internal_overlap(t, op);
    }
    if (steps) {
      const Tensor& st = (*steps)[i];
      EMBER_CHECK(st.defined() && st.numel() == 1 && is_floating(st.dtype()), ValueError, op,
                  ": step counter ", i, " must be a one-element float tensor");
    }
  }
}

double advance_step(const Tensor& step) {
  double v;
  if (step.dtype() == DType::Float64) {
    v = *step.data<double>() += 1.0;
  } else {
    v = *step.data<float>() += 1.0f;
  }
  step.bump_version();
  return v;
}

void* Staging::write(const Tensor& t) {
  if (is_half(t.dtype())) {  // the kernels update a float32 copy, rounded back once by finish()
    Tensor copy = contiguous(to_dtype(t, DType::Float32));
    back_.emplace_back(t, copy);
    return copy.data_ptr();
  }
  if (t.is_contiguous() || t.numel() == 0) {
    written_.push_back(t);
    return t.data_ptr();
  }
  Tensor copy = clone(t);
  back_.emplace_back(t, copy);
  return copy.data_ptr();
}

const void* Staging::read(const Tensor& t, const Tensor& written) {
  if (is_half(t.dtype())) {
    keep_.push_back(contiguous(to_dtype(t, DType::Float32)));
    return keep_.back().data_ptr();
  }
  if (t.numel() == 0 || (t.is_contiguous() && t.storage() != written.storage()))
    return t.data_ptr();
  keep_.push_back(clone(t));
  return keep_.back().data_ptr();
}

void Staging::finish() {
  for (auto& [dst, copy] : back_) copy_(dst, copy);  // bumps dst's version
  for (const Tensor& t : written_) t.bump_version();
  written_.clear();
  back_.clear();
  keep_.clear();
}

bool must_run_in_order(const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  std::vector<std::pair<const Storage*, size_t>> owners;
  for (size_t i = 0; i < params.size(); ++i)
    if (grads[i].defined()) owners.emplace_back(params[i].storage().get(), i);
  std::sort(owners.begin(), owners.end());
  for (size_t k = 1; k < owners.size(); ++k)
    if (owners[k].first == owners[k - 1].first) return true;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) continue;
    auto it = std::lower_bound(owners.begin(), owners.end(),
                               std::pair<const Storage*, size_t>(grads[i].storage().get(), 0));
    if (it != owners.end() && it->first == grads[i].storage().get() && it->second != i) return true;
  }
  return false;
}

}  // namespace ember::optim::detail
