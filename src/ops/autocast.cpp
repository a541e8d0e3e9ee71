// Note [Autocast] (include/ember/autocast.h): the per-thread state and the three casts.
#include "ember/autocast.h"

#include "ember/ops.h"

namespace ember::autocast {
namespace {
thread_local bool t_enabled = false;
thread_local DType t_dtype = DType::BFloat16;
}  // namespace

bool is_enabled() { return t_enabled; }
void set_enabled(bool on) { t_enabled = on; }
DType dtype() { return t_dtype; }
void set_dtype(DType dt) {
  EMBER_CHECK(is_half(dt), ValueError,
              "autocast: the CPU autocast dtype must be bfloat16 or "
              "float16, got ",
              dtype_name(dt));
  t_dtype = dt;
}

Tensor lower(const Tensor& t) {
  if (!t.defined() || !is_floating_point(t.dtype()) || t.dtype() == DType::Float64 ||
      t.dtype() == t_dtype)
    return t;
  return to_dtype(t, t_dtype);
}

Tensor fp32(const Tensor& t) {
  return t.defined() && is_half(t.dtype()) ? to_dtype(t, DType::Float32) : t;
}

std::vector<Tensor> promote(const std::vector<Tensor>& ts) {
  std::optional<DType> widest;
  for (const Tensor& t : ts)
    if (t.defined() && is_floating_point(t.dtype()))
      widest = widest ? promote_types(*widest, t.dtype()) : t.dtype();
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts)
    out.push_back(widest && t.defined() && is_floating_point(t.dtype()) && t.dtype() != *widest
                      ? to_dtype(t, *widest)
                      : t);
  return out;
}

}  // namespace ember::autocast
