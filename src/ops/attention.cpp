// scaled_dot_product_attention without a mask tensor or dropout: one fused kernel each way
// (src/kernels/cpu/attention.h), recorded as torch's CPU flash-attention node. The Python
// function (ember.nn.functional.scaled_dot_product_attention) takes this path when it can
// and composes ember ops otherwise (masks, dropout, broadcast heads).
#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/function.h"
#include "ember/functional.h"
#include "ember/profiler.h"
#include "kernels/cpu/attention.h"
#include "ops/iter.h"

namespace ember {
namespace {

using autograd::SavedTensor;

void check_attention(const Tensor& q, const Tensor& k, const Tensor& v) {
  const char* op = "scaled_dot_product_attention";
  for (const Tensor* t : {&q, &k, &v}) ops::check_defined(*t, op);
  EMBER_CHECK(q.dim() >= 2 && k.dim() == q.dim() && v.dim() == q.dim(), ValueError, op,
              ": expected query, key and value with the same number of dims (at least 2), but "
              "got query ",
              q.sizes(), ", key ", k.sizes(), " and value ", v.sizes());
  EMBER_CHECK(q.dtype() == k.dtype() && q.dtype() == v.dtype() && is_floating(q.dtype()), TypeError,
              op, ": expected query, key and value of the same floating dtype, but got ",
              dtype_name(q.dtype()), ", ", dtype_name(k.dtype()), " and ", dtype_name(v.dtype()));
  for (int64_t d = 0; d < q.dim() - 2; ++d)
    EMBER_CHECK(q.size(d) == k.size(d) && q.size(d) == v.size(d), ValueError, op,
                ": the fused kernel needs the same leading dims, but got query ", q.sizes(),
                ", key ", k.sizes(), " and value ", v.sizes());
  EMBER_CHECK(q.size(-1) == k.size(-1), ValueError, op, ": query ", q.sizes(), " and key ",
              k.sizes(), " must have the same embedding size (", q.size(-1), " != ", k.size(-1),
              ")");
  EMBER_CHECK(k.size(-2) == v.size(-2), ValueError, op, ": key ", k.sizes(), " and value ",
              v.sizes(), " must have the same sequence length (", k.size(-2), " != ", v.size(-2),
              ")");
  EMBER_CHECK(k.size(-2) > 0, ValueError, op, ": the fused kernel needs at least one key");
}

// A view the kernel can read in place: rows contiguous, row stride at least a row (BLAS's
// leading dimension). Otherwise a contiguous copy.
Tensor rows_readable(const Tensor& t) {
  const int64_t n = t.dim();
  const bool ok = t.stride(n - 1) == 1 && t.stride(n - 2) >= std::max<int64_t>(1, t.size(n - 1));
  return ok ? t : contiguous(t);
}

// Where each head of t starts (elements from t's data pointer), over its leading dims.
std::vector<int64_t> head_offsets(const Tensor& t, int64_t heads) {
  std::vector<int64_t> off(size_t(heads), 0);
  const int64_t lead = t.dim() - 2;
  for (int64_t h = 0; h < heads; ++h) {
    int64_t rest = h, o = 0;
    for (int64_t d = lead - 1; d >= 0; --d) {
      o += (rest % t.size(d)) * t.stride(d);
      rest /= t.size(d);
    }
    off[size_t(h)] = o;
  }
  return off;
}

// A dense tensor of `shape` whose dims lie in memory in the order of t's strides (the last
// dim innermost): out and the gradients of (B, T, H, E).transpose(1, 2) heads are laid out
// (B, T, H, E) too, so the transpose back and the view to (B, T, C) that follow copy nothing.
Tensor empty_in_order_of(const Tensor& t, IntList shape, DType dt) {
  const int64_t n = t.dim();
  std::vector<int64_t> order(size_t(n - 1));
  for (int64_t d = 0; d < n - 1; ++d) order[size_t(d)] = d;
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return t.stride(a) > t.stride(b); });
  Dims strides(shape);
  int64_t s = shape[size_t(n - 1)];
  strides[size_t(n - 1)] = 1;
  for (size_t i = order.size(); i-- > 0;) {
    strides[size_t(order[i])] = s;
    s *= shape[size_t(order[i])];
  }
  return Tensor::empty({numel_of(shape)}, dt).as_strided(shape, strides, 0);
}

// The kernel's view of the heads of t; `off` keeps the offsets it points to alive.
kernels::HeadRows rows_of(const Tensor& t, int64_t heads, std::vector<int64_t>& off) {
  if (!t.defined()) return {nullptr, 1};
  off = head_offsets(t, heads);
  return {off.data(), t.stride(-2)};
}

// The kernel's view of (q, k, v, out) and, when given, of (go, gq, gk, gv); `offsets` keeps
// the head offsets it points to alive.
kernels::AttentionShape shape_of(const Tensor& q, const Tensor& k, const Tensor& v,
                                 const Tensor& out, bool causal, double scale,
                                 std::vector<int64_t> (&offsets)[8], const Tensor& go = Tensor(),
                                 const Tensor& gq = Tensor(), const Tensor& gk = Tensor(),
                                 const Tensor& gv = Tensor()) {
  int64_t heads = 1;
  for (int64_t d = 0; d < q.dim() - 2; ++d) heads *= q.size(d);
  return {heads,
          q.size(-2),
          k.size(-2),
          q.size(-1),
          v.size(-1),
          causal,
          scale,
          rows_of(q, heads, offsets[0]),
          rows_of(k, heads, offsets[1]),
          rows_of(v, heads, offsets[2]),
          rows_of(out, heads, offsets[3]),
          rows_of(go, heads, offsets[4]),
          rows_of(gq, heads, offsets[5]),
          rows_of(gk, heads, offsets[6]),
          rows_of(gv, heads, offsets[7])};
}

// The backward written with ember ops, for create_graph (Note [Fused backward and
// create_graph]): P recomputed from q and k, then dV = P^T dO, dS = P (dP - rowsum(dP P)),
// dQ = scale dS K, dK = scale dS^T Q.
Grads attention_backward_ops(const Tensor& go, const Tensor& q, const Tensor& k, const Tensor& v,
                             bool causal, double scale) {
  Tensor s = mul(matmul(q, transpose(k, -2, -1)), Scalar(scale));
  if (causal) {
    const Tensor keep = tril(ones({q.size(-2), k.size(-2)}, DType::Bool));
    s = masked_fill(s, logical_not(keep), Scalar(-INFINITY));
  }
  const Tensor p = softmax(s, -1);
  const Tensor dp = matmul(go, transpose(v, -2, -1));
  const Tensor ds = mul(mul(p, sub(dp, sum(mul(dp, p), {-1}, true))), Scalar(scale));
  return {matmul(ds, k), matmul(transpose(ds, -2, -1), q), matmul(transpose(p, -2, -1), go)};
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    bool is_causal, double scale) {
  EMBER_PROFILE_OP("scaled_dot_product_attention");
  check_attention(query, key, value);
  const DType dt = query.dtype();
  const Tensor q = rows_readable(query), k = rows_readable(key), v = rows_readable(value);
  Dims out_shape(query.sizes());
  out_shape[out_shape.size() - 1] = value.size(-1);
  Dims lse_shape(IntList(query.sizes().data(), size_t(query.dim() - 1)));
  Tensor out = empty_in_order_of(q, out_shape, dt), lse = Tensor::empty(lse_shape, dt);
  std::vector<int64_t> offsets[8];
  const kernels::AttentionShape a = shape_of(q, k, v, out, is_causal, scale, offsets);
  const bool grad = autograd::any_requires_grad(query) || autograd::any_requires_grad(key) ||
                    autograd::any_requires_grad(value);
  // The probabilities the kernel keeps for the backward (small heads), when there is one.
  const int64_t kept = grad ? kernels::attention_kept_probs(dt, a) : 0;
  Tensor probs = kept ? Tensor::empty({kept}, dt) : Tensor();
  kernels::attention_forward(dt, a, q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(),
                             lse.data_ptr(), kept ? probs.data_ptr() : nullptr);
  if (grad) {
    autograd::record("ScaledDotProductFlashAttentionForCpuBackward0", {&query, &key, &value},
                     {&out},
                     [sq = SavedTensor(q), sk = SavedTensor(k), sv = SavedTensor(v),
                      so = SavedTensor(out, true), sl = SavedTensor(lse),
                      sp = probs.defined() ? SavedTensor(probs) : SavedTensor(), causal = is_causal,
                      scale](Grads& g, const Node& n) -> Grads {
                       const Tensor q = sq.get(), k = sk.get(), v = sv.get();
                       const Tensor go = rows_readable(
                           g[0].dtype() == q.dtype() ? g[0] : to_dtype(g[0], q.dtype()));
                       if (GradMode::is_enabled())
                         return attention_backward_ops(go, q, k, v, causal, scale);
                       const Tensor o = so.get(), l = sl.get(),
                                    pr = sp.defined() ? sp.get() : Tensor();
                       auto grad_for = [&](size_t i, const Tensor& t) {
                         return n.needs_input_grad(i) ? empty_in_order_of(t, t.sizes(), t.dtype())
                                                      : Tensor();
                       };
                       Tensor gq = grad_for(0, q), gk = grad_for(1, k), gv = grad_for(2, v);
                       std::vector<int64_t> offsets[8];
                       const kernels::AttentionShape a =
                           shape_of(q, k, v, o, causal, scale, offsets, go, gq, gk, gv);
                       auto ptr = [](Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; };
                       kernels::attention_backward(q.dtype(), a, go.data_ptr(), q.data_ptr(),
                                                   k.data_ptr(), v.data_ptr(), o.data_ptr(),
                                                   l.data_ptr(),
                                                   pr.defined() ? pr.data_ptr() : nullptr, ptr(gq),
                                                   ptr(gk), ptr(gv));
                       return {gq, gk, gv};
                     });
  }
  return out;
}

}  // namespace ember
