// rnn_layer: one layer and direction of an LSTM, GRU or Elman RNN over a whole sequence, as
// one op with one backward node (torch's CPU LSTM is one oneDNN layer the same way). float32
// and float64 run src/kernels/cpu/rnn.h: per step one BLAS product and one pass of gate
// math, and a backward whose weight gradients are one product over all steps. Other dtypes,
// and the backward under create_graph (Note [Fused backward and create_graph]), compose
// ember ops step by step: the same formulas, recorded by autograd.
#include <string>
#include <vector>

#include "autograd/function.h"
#include "ember/autocast.h"
#include "ember/functional.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/rnn.h"
#include "ops/iter.h"

namespace ember {
namespace {

using autograd::SavedTensor;
using kernels::RnnMode;

constexpr const char* kOp = "rnn_layer";

RnnMode parse_mode(std::string_view mode) {
  if (mode == "LSTM") return RnnMode::LSTM;
  if (mode == "GRU") return RnnMode::GRU;
  if (mode == "RNN_TANH") return RnnMode::RNN_TANH;
  if (mode == "RNN_RELU") return RnnMode::RNN_RELU;
  throw ValueError(
      detail::cat(kOp, ": unknown mode '", mode, "' (expected LSTM, GRU, RNN_TANH or RNN_RELU)"));
}

int64_t gates_of(RnnMode m) { return m == RnnMode::LSTM ? 4 : m == RnnMode::GRU ? 3 : 1; }

// The arguments, checked: xp as rows (N, G*H), the batch size of every step.
struct Args {
  RnnMode mode;
  Tensor rows;
  std::vector<int64_t> sizes;
  int64_t batch, hidden, out_size;
};

Args check_args(std::string_view mode_name, const Tensor& xp, const Tensor& h0, const Tensor& c0,
                const Tensor& w_hh, const Tensor& b_hh, const Tensor& w_hr, IntList batch_sizes) {
  Args a{parse_mode(mode_name), Tensor(), {}, 0, 0, 0};
  const bool lstm = a.mode == RnnMode::LSTM;
  for (const Tensor* t : {&xp, &h0, &w_hh}) ops::check_defined(*t, kOp);
  EMBER_CHECK(lstm == c0.defined(), ValueError, kOp, ": ", mode_name,
              lstm ? " needs c0" : " takes no c0");
  EMBER_CHECK(lstm || !w_hr.defined(), ValueError, kOp, ": only LSTM has a projection w_hr");
  EMBER_CHECK(a.mode == RnnMode::GRU || !b_hh.defined(), ValueError, kOp, ": ", mode_name,
              " takes b_hh folded into xp (only GRU's stays inside the recurrence)");
  for (const Tensor* t : {&h0, &c0, &w_hh, &b_hh, &w_hr})
    EMBER_CHECK(!t->defined() || t->dtype() == xp.dtype(), TypeError, kOp,
                ": expected every tensor to have xp's dtype ", dtype_name(xp.dtype()), ", got ",
                dtype_name(t->dtype()));
  EMBER_CHECK(is_floating_point(xp.dtype()), TypeError, kOp, ": expected a floating dtype, got ",
              dtype_name(xp.dtype()));
  EMBER_CHECK(h0.dim() == 2 && (!lstm || c0.dim() == 2) && w_hh.dim() == 2, ValueError, kOp,
              ": expected h0 (batch, out), c0 (batch, hidden) and w_hh (gates * hidden, out), "
              "got ",
              h0.sizes(), lstm ? c0.sizes() : Dims{}, " and ", w_hh.sizes());
  a.batch = h0.size(0);
  a.out_size = h0.size(1);
  a.hidden = lstm ? c0.size(1) : a.out_size;
  const int64_t G = gates_of(a.mode), GH = G * a.hidden;
  EMBER_CHECK(!lstm || c0.size(0) == a.batch, ValueError, kOp, ": h0 ", h0.sizes(), " and c0 ",
              c0.sizes(), " have different batch sizes");
  EMBER_CHECK(w_hh.size(0) == GH && w_hh.size(1) == a.out_size, ValueError, kOp, ": w_hh ",
              w_hh.sizes(), " should be (", GH, ", ", a.out_size, ")");
  EMBER_CHECK(!b_hh.defined() || (b_hh.dim() == 1 && b_hh.size(0) == GH), ValueError, kOp,
              ": b_hh ", b_hh.sizes(), " should be (", GH, ")");
  EMBER_CHECK(a.out_size == a.hidden || w_hr.defined(), ValueError, kOp, ": h0 ", h0.sizes(),
              " and c0 ", c0.sizes(), " differ in size but there is no projection w_hr");
  EMBER_CHECK(!w_hr.defined() || (w_hr.dim() == 2 && w_hr.size(0) == a.out_size &&
                                  w_hr.size(1) == a.hidden && a.out_size < a.hidden),
              ValueError, kOp, ": w_hr ", w_hr.sizes(), " should be (", a.out_size, ", ", a.hidden,
              ") with ", a.out_size, " < ", a.hidden);
  if (batch_sizes.size() == 0) {
    EMBER_CHECK(xp.dim() == 3 && xp.size(1) == a.batch && xp.size(2) == GH, ValueError, kOp,
                ": expected xp (steps, ", a.batch, ", ", GH, "), got ", xp.sizes());
    a.sizes.assign(size_t(xp.size(0)), a.batch);
  } else {
    EMBER_CHECK(xp.dim() == 2 && xp.size(1) == GH, ValueError, kOp, ": expected packed xp (rows, ",
                GH, "), got ", xp.sizes());
    int64_t total = 0, prev = a.batch;
    for (int64_t b : batch_sizes) {
      EMBER_CHECK(b >= 0 && b <= prev, ValueError, kOp, ": batch_sizes ", batch_sizes,
                  " must be non-increasing, at most the batch ", a.batch, ", and not negative");
      total += b;
      prev = b;
      a.sizes.push_back(b);
    }
    EMBER_CHECK(a.sizes[0] == a.batch && total == xp.size(0), ValueError, kOp, ": batch_sizes ",
                batch_sizes, " should start at the batch ", a.batch, " and sum to xp's ",
                xp.size(0), " rows");
  }
  EMBER_CHECK(!a.sizes.empty(), ValueError, kOp, ": expected at least one step");
  a.rows = batch_sizes.size() == 0 ? reshape(xp, {xp.size(0) * a.batch, GH}) : xp;
  return a;
}

// ---- the same recurrence with ember ops ---------------------------------------------------
// One step on the first n rows of the state (h, c): returns the new (h, c) of those rows.
std::array<Tensor, 2> step_ops(RnnMode mode, const Tensor& x, const Tensor& h, const Tensor& c,
                               const Tensor& w_hh, const Tensor& b_hh, const Tensor& w_hr) {
  const Tensor w_t = t(w_hh);
  switch (mode) {
    case RnnMode::LSTM: {
      std::vector<Tensor> g = chunk(addmm(x, h, w_t), 4, -1);
      Tensor c2 = add(mul(sigmoid(g[1]), c), mul(sigmoid(g[0]), tanh(g[2])));
      Tensor h2 = mul(sigmoid(g[3]), tanh(c2));
      return {w_hr.defined() ? mm(h2, t(w_hr)) : h2, c2};
    }
    case RnnMode::GRU: {
      const int64_t H = h.size(-1);
      const Tensor gh = b_hh.defined() ? addmm(b_hh, h, w_t) : mm(h, w_t);
      std::vector<Tensor> rz =
          chunk(sigmoid(add(narrow(x, -1, 0, 2 * H), narrow(gh, -1, 0, 2 * H))), 2, -1);
      Tensor n = tanh(add(narrow(x, -1, 2 * H, H), mul(rz[0], narrow(gh, -1, 2 * H, H))));
      return {add(n, mul(rz[1], sub(h, n))), Tensor()};
    }
    case RnnMode::RNN_TANH: return {tanh(addmm(x, h, w_t)), Tensor()};
    case RnnMode::RNN_RELU: return {relu(addmm(x, h, w_t)), Tensor()};
  }
  return {};
}

// The first n rows replaced by `head`.
Tensor with_head(const Tensor& state, const Tensor& head) {
  const int64_t n = head.size(0), b = state.size(0);
  return n == b ? head : cat({head, narrow(state, 0, n, b - n)}, 0);
}

std::vector<Tensor> rnn_layer_ops(const Args& a, const Tensor& h0, const Tensor& c0,
                                  const Tensor& w_hh, const Tensor& b_hh, const Tensor& w_hr,
                                  bool reverse) {
  const auto steps = int64_t(a.sizes.size());
  std::vector<int64_t> offset(size_t(steps), 0);
  for (int64_t t = 1; t < steps; ++t)
    offset[size_t(t)] = offset[size_t(t - 1)] + a.sizes[size_t(t - 1)];
  Tensor h = h0, c = c0;
  std::vector<Tensor> outs(static_cast<size_t>(steps));
  for (int64_t k = 0; k < steps; ++k) {
    const int64_t t = reverse ? steps - 1 - k : k, n = a.sizes[size_t(t)];
    const Tensor hn = narrow(h, 0, 0, n), cn = c.defined() ? narrow(c, 0, 0, n) : Tensor();
    auto [h2, c2] =
        step_ops(a.mode, narrow(a.rows, 0, offset[size_t(t)], n), hn, cn, w_hh, b_hh, w_hr);
    outs[size_t(t)] = h2;
    h = with_head(h, h2);
    if (c.defined()) c = with_head(c, c2);
  }
  return {cat(outs, 0), h, c};
}

// Output k: (rows, Hr) back to (T, B, Hr) for an unpacked xp.
Tensor shaped_output(const Tensor& out, const Tensor& xp, bool packed) {
  return packed ? out : reshape(out, {xp.size(0), xp.size(1), out.size(1)});
}

kernels::RnnShape shape_of(const Args& a, bool reverse) {
  return {a.mode,     int64_t(a.sizes.size()), a.batch,        a.hidden,
          a.out_size, gates_of(a.mode),        a.sizes.data(), reverse};
}

void* ptr(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

// The inputs the backward saved, by role; `all` holds the defined ones in the node's input
// order xp, h0, [c0], w_hh, [b_hh (GRU) or w_hr (LSTM)].
struct Inputs {
  std::vector<Tensor> all;
  Tensor xp, h0, c0, w_hh, b_hh, w_hr;
  Inputs(const std::vector<SavedTensor>& saved, RnnMode mode) {
    for (const SavedTensor& k : saved) all.push_back(k.get());
    const bool lstm = mode == RnnMode::LSTM;
    size_t i = 0;
    xp = all[i++];
    h0 = all[i++];
    if (lstm) c0 = all[i++];
    w_hh = all[i++];
    if (i < all.size()) (lstm ? w_hr : b_hh) = all[i];
  }
};

Tensor as_dtype(const Tensor& t, DType dt) {
  return !t.defined() || t.dtype() == dt ? t : to_dtype(t, dt);
}

// Under create_graph: the forward again as ember ops from the saved inputs (which keep their
// history), differentiated with create_graph by a nested backward.
Grads backward_composite(const Args& meta, bool reverse, bool packed, const Inputs& x,
                         const Grads& g, const Node& n) {
  Args a = meta;
  a.rows = packed ? x.xp : reshape(x.xp, {x.xp.size(0) * a.batch, x.xp.size(2)});
  std::vector<Tensor> outs = rnn_layer_ops(a, x.h0, x.c0, x.w_hh, x.b_hh, x.w_hr, reverse);
  outs[0] = shaped_output(outs[0], x.xp, packed);
  std::vector<Tensor> ys, gs, wrt;
  for (size_t k = 0; k < g.size(); ++k)
    if (g[k].defined()) ys.push_back(outs[k]), gs.push_back(as_dtype(g[k], x.xp.dtype()));
  std::vector<size_t> slots;
  for (size_t k = 0; k < x.all.size(); ++k)
    if (n.needs_input_grad(k)) wrt.push_back(x.all[k]), slots.push_back(k);
  Grads r(x.all.size());
  if (ys.empty() || wrt.empty()) return r;
  std::vector<Tensor> got = autograd::grad(ys, wrt, gs, false, true, true);
  for (size_t k = 0; k < slots.size(); ++k) r[slots[k]] = got[k];
  return r;
}

// The kernel's backward: `saved` is the forward's buffer, `out` its output (RNN modes only).
Grads backward_fused(const Args& a, bool reverse, const Tensor& saved, const Tensor& out,
                     const Inputs& x, const Grads& g, const Node& n) {
  const kernels::RnnShape s = shape_of(a, reverse);
  const DType dt = x.xp.dtype();
  const bool lstm = a.mode == RnnMode::LSTM;
  auto state_grad = [&](size_t k, int64_t width) {
    return k < g.size() && g[k].defined() ? clone(as_dtype(g[k], dt)) : zeros({a.batch, width}, dt);
  };
  Tensor dh = state_grad(1, a.out_size), dc = lstm ? state_grad(2, a.hidden) : Tensor();
  const Tensor d_out =
      g[0].defined() ? contiguous(reshape(as_dtype(g[0], dt), {s.rows(), a.out_size})) : Tensor();
  const Tensor whh = contiguous(x.w_hh), whr = x.w_hr.defined() ? contiguous(x.w_hr) : x.w_hr;
  const size_t w_slot = lstm ? 3 : 2, last = x.all.size() - 1;
  auto grad_if = [&](const Tensor& t, size_t slot) {
    return t.defined() && n.needs_input_grad(slot) ? Tensor::empty(t.sizes(), dt) : Tensor();
  };
  Tensor dxp = Tensor::empty({s.rows(), s.gates * a.hidden}, dt), dw_hh = grad_if(x.w_hh, w_slot);
  Tensor db_hh = grad_if(x.b_hh, last), dw_hr = grad_if(x.w_hr, last);
  kernels::rnn_backward(dt, s, whh.data_ptr(), ptr(whr), ptr(out), saved.data_ptr(), ptr(d_out),
                        dh.data_ptr(), ptr(dc), dxp.data_ptr(), ptr(dw_hh), ptr(db_hh), ptr(dw_hr));
  Grads r{reshape(dxp, x.xp.sizes()), dh};
  if (lstm) r.push_back(dc);
  r.push_back(dw_hh);
  if (x.b_hh.defined()) r.push_back(db_hh);
  if (x.w_hr.defined()) r.push_back(dw_hr);
  return r;
}

}  // namespace

std::vector<Tensor> rnn_layer(std::string_view mode, const Tensor& xp, const Tensor& h0,
                              const Tensor& c0, const Tensor& w_hh, const Tensor& b_hh,
                              const Tensor& w_hr, IntList batch_sizes, bool reverse) {
  EMBER_RECORD(rnn_layer, mode, xp, h0, c0, w_hh, b_hh, w_hr, batch_sizes, reverse);
  EMBER_PROFILE_OP("rnn_layer");
  if (autocast::is_enabled()) {  // Note [Autocast], as torch's ops on CPU:
    autocast::Suspend off;
    if (mode == "GRU") {  // torch's GRU is a composite whose h' = n + z (h - n) promotes
      std::vector<Tensor> ts = autocast::promote({xp, h0, c0, w_hh, b_hh, w_hr});
      return rnn_layer(mode, ts[0], ts[1], ts[2], ts[3], ts[4], ts[5], batch_sizes, reverse);
    }
    using autocast::lower;  // LSTM: mkldnn_rnn_layer, RNN: its cells' linear, lower precision
    return rnn_layer(mode, lower(xp), lower(h0), lower(c0), lower(w_hh), lower(b_hh), lower(w_hr),
                     batch_sizes, reverse);
  }
  const Args a = check_args(mode, xp, h0, c0, w_hh, b_hh, w_hr, batch_sizes);
  const bool packed = batch_sizes.size() != 0, lstm = a.mode == RnnMode::LSTM;
  const DType dt = xp.dtype();
  if (dt != DType::Float32 && dt != DType::Float64) {
    std::vector<Tensor> r = rnn_layer_ops(a, h0, c0, w_hh, b_hh, w_hr, reverse);
    r[0] = shaped_output(r[0], xp, packed);
    if (!lstm) r.pop_back();
    return r;
  }
  const kernels::RnnShape s = shape_of(a, reverse);
  const Tensor rows = contiguous(a.rows), whh = contiguous(w_hh);
  const Tensor bhh = b_hh.defined() ? contiguous(b_hh) : b_hh;
  const Tensor whr = w_hr.defined() ? contiguous(w_hr) : w_hr;
  Tensor h = clone(h0), c = lstm ? clone(c0) : Tensor();
  Tensor out = Tensor::empty({rows.size(0), a.out_size}, dt);
  Tensor saved = Tensor::empty({kernels::rnn_saved_size(s)}, dt);
  kernels::rnn_forward(dt, s, rows.data_ptr(), whh.data_ptr(), ptr(bhh), ptr(whr), h.data_ptr(),
                       lstm ? c.data_ptr() : nullptr, out.data_ptr(), saved.data_ptr());
  std::vector<Tensor> result{shaped_output(out, xp, packed), h};
  if (lstm) result.push_back(c);
  // The inputs that exist, in the order xp, h0, c0, w_hh, b_hh, w_hr.
  std::vector<Tensor> inputs;
  for (const Tensor* t : {&xp, &h0, &c0, &w_hh, &b_hh, &w_hr})
    if (t->defined()) inputs.push_back(*t);
  if (!autograd::any_requires_grad(inputs)) return result;
  std::vector<SavedTensor> keep;
  for (const Tensor& t : inputs) keep.emplace_back(t);
  Args meta = a;
  meta.rows = Tensor();  // the backward reads xp through `keep`
  autograd::record("RnnLayerBackward0", inputs, result,
                   [keep = std::move(keep), saved, a = std::move(meta), reverse, packed,
                    so = gates_of(a.mode) == 1 ? SavedTensor(result[0], true)
                                               : SavedTensor()](Grads& g, const Node& n) -> Grads {
                     const Inputs x(keep, a.mode);
                     if (GradMode::is_enabled())
                       return backward_composite(a, reverse, packed, x, g, n);
                     return backward_fused(a, reverse, saved, so.defined() ? so.get() : Tensor(), x,
                                           g, n);
                   });
  return result;
}

}  // namespace ember
