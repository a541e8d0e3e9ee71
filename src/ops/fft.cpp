// torch.fft's three primitives (include/ember/fft.h), each with PyTorch's backward formula
// right under it (derivatives.yaml's _fft_c2c, _fft_r2c, _fft_c2r). Complex values are a
// trailing dim of 2. A transform along one dim moves that dim last, makes the rows contiguous
// and calls the batched kernel (src/kernels/cpu/fft.h); several dims are successive passes.
#include <cmath>
#include <vector>

#include "autograd/function.h"
#include "ember/fft.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "ember/shape.h"
#include "kernels/cpu/fft.h"

namespace ember {
namespace {

// dims wrapped into [0, ndim), each once; at least one.
std::vector<int64_t> canonical_dims(IntList dims, int64_t ndim, const char* op) {
  EMBER_CHECK(!dims.empty(), Error, op, ": expected at least one dim to transform");
  std::vector<int64_t> out;
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim, op);
    for (int64_t seen : out) EMBER_CHECK(seen != w, Error, op, ": FFT dims must be unique");
    out.push_back(w);
  }
  return out;
}

// The complex dims of x (*, 2): all but the trailing 2.
int64_t complex_dims(const Tensor& x, const char* op) {
  EMBER_CHECK(is_floating(x.dtype()), Error, op, ": expected a float32 or float64 tensor, got ",
              dtype_name(x.dtype()));
  EMBER_CHECK(x.dim() >= 2 && x.size(-1) == 2, Error, op,
              ": expected complex values as a trailing dim of size 2, got shape ", x.sizes());
  return x.dim() - 1;
}

double scale_of(FftNorm norm, double n) {
  return norm == FftNorm::None ? 1.0 : norm == FftNorm::ByN ? 1.0 / n : 1.0 / std::sqrt(n);
}

// The order of t's dims with dim d moved to position pos.
std::vector<int64_t> moved(int64_t ndim, int64_t d, int64_t pos) {
  std::vector<int64_t> order;
  for (int64_t i = 0; i < ndim; ++i)
    if (i != d) order.push_back(i);
  order.insert(order.begin() + pos, d);
  return order;
}

std::vector<int64_t> inverse(const std::vector<int64_t>& order) {
  std::vector<int64_t> inv(order.size());
  for (size_t i = 0; i < order.size(); ++i) inv[size_t(order[i])] = int64_t(i);
  return inv;
}

// One 1-D pass along dim d of t (no autograd): the rows of t along d (complex when
// `in_complex`) go through `kernel(in, out, batch)`, giving rows of out_len values (complex
// when `out_complex`).
template <class K>
Tensor pass(const Tensor& t, int64_t d, bool in_complex, bool out_complex, int64_t out_len,
            K kernel) {
  const int64_t ndim = t.dim() - (in_complex ? 1 : 0);
  auto order = moved(t.dim(), d, ndim - 1);
  Tensor rows = contiguous(permute(t, order));
  std::vector<int64_t> shape(rows.sizes().begin(), rows.sizes().end());
  if (in_complex) shape.pop_back();
  shape.back() = out_len;
  if (out_complex) shape.push_back(2);
  if (in_complex && !out_complex) order.pop_back();  // the trailing 2 goes away
  if (!in_complex && out_complex) order.push_back(int64_t(order.size()));
  Tensor out = Tensor::empty(shape, t.dtype());
  const int64_t len = t.size(d);
  const int64_t batch = len ? rows.numel() / len / (in_complex ? 2 : 1) : 0;
  if (batch > 0 && out.numel() > 0) kernel(rows.data_ptr(), out.data_ptr(), batch);
  return permute(out, inverse(order));
}

Tensor c2c_passes(Tensor t, const std::vector<int64_t>& dims, bool forward, double scale) {
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t n = t.size(dims[i]);
    const double s = i + 1 == dims.size() ? scale : 1.0;
    t = pass(t, dims[i], true, true, n, [&](char* in, char* out, int64_t batch) {
      visit_floating(t.dtype(), [&]<class T>() {
        kernels::fft_c2c<T>(reinterpret_cast<T*>(in), reinterpret_cast<T*>(out), batch, n, forward,
                            T(s));
      });
    });
  }
  return contiguous(t);
}

void check_points(int64_t n, const char* op) {
  EMBER_CHECK(n >= 1, Error, op, ": Invalid number of data points (", n, ") specified");
}

}  // namespace

Tensor fft_c2c(const Tensor& x, IntList dims, FftNorm norm, bool forward) {
  EMBER_RECORD(fft_c2c, x, dims, norm, forward);
  EMBER_PROFILE_OP("fft_c2c");
  const char* op = "fft_c2c";
  const auto d = canonical_dims(dims, complex_dims(x, op), op);
  double n = 1;
  for (int64_t i : d) check_points(x.size(i), op), n *= double(x.size(i));
  Tensor out = c2c_passes(detach(x), d, forward, scale_of(norm, n));
  if (autograd::any_requires_grad(x)) {
    autograd::record("FftC2CBackward0", {&x}, {&out},
                     [d, norm, forward](Grads& g, const Node&) -> Grads {
                       // The adjoint of scale * F is scale * F^H: the opposite direction, same
                       // scale.
                       return {fft_c2c(g[0], d, norm, !forward)};
                     });
  }
  return out;
}

Tensor fft_r2c(const Tensor& x, IntList dims, FftNorm norm, bool onesided) {
  EMBER_RECORD(fft_r2c, x, dims, norm, onesided);
  EMBER_PROFILE_OP("fft_r2c");
  const char* op = "fft_r2c";
  EMBER_CHECK(is_floating(x.dtype()), Error, op, ": expected a float32 or float64 tensor, got ",
              dtype_name(x.dtype()));
  const auto d = canonical_dims(dims, x.dim(), op);
  double npts = 1;
  for (int64_t i : d) check_points(x.size(i), op), npts *= double(x.size(i));
  const double scale = scale_of(norm, npts);
  const int64_t last = d.back(), n = x.size(last);
  Tensor out;
  if (!onesided) {  // the full spectrum: the real signal as complex, one c2c
    Tensor xd = detach(x);
    out = c2c_passes(stack({xd, zeros(xd.sizes(), xd.dtype())}, -1), d, true, scale);
  } else {
    const bool more = d.size() > 1;
    out = pass(detach(x), last, false, true, n / 2 + 1, [&](char* in, char* o, int64_t batch) {
      visit_floating(x.dtype(), [&]<class T>() {
        kernels::fft_r2c<T>(reinterpret_cast<T*>(in), reinterpret_cast<T*>(o), batch, n,
                            T(more ? 1.0 : scale));
      });
    });
    out = more ? c2c_passes(out, std::vector<int64_t>(d.begin(), d.end() - 1), true, scale)
               : contiguous(out);
  }
  if (autograd::any_requires_grad(x)) {
    autograd::record("FftR2CBackward0", {&x}, {&out},
                     [d, norm, onesided, n](Grads& g, const Node&) -> Grads {
                       Tensor full = g[0];
                       if (onesided) {  // the dropped frequencies had zero gradient
                         Dims pad = full.sizes();
                         pad[size_t(d.back())] = n - full.size(d.back());
                         full = cat({full, zeros(pad, full.dtype())}, d.back());
                       }
                       return {select(fft_c2c(full, d, norm, false), -1, 0)};
                     });
  }
  return out;
}

Tensor fft_c2r(const Tensor& x, IntList dims, FftNorm norm, int64_t last_dim_size) {
  EMBER_RECORD(fft_c2r, x, dims, norm, last_dim_size);
  EMBER_PROFILE_OP("fft_c2r");
  const char* op = "fft_c2r";
  const auto d = canonical_dims(dims, complex_dims(x, op), op);
  check_points(last_dim_size, op);
  const int64_t last = d.back(), n = last_dim_size, half = n / 2 + 1;
  EMBER_CHECK(x.size(last) >= half, Error, op, ": ", n, " output points need ", half,
              " input frequencies along dim ", last, ", got ", x.size(last));
  Tensor in = x.size(last) == half ? x : narrow(x, last, 0, half);  // recorded: grads pad back
  double npts = double(n);
  for (size_t i = 0; i + 1 < d.size(); ++i)
    check_points(x.size(d[i]), op), npts *= double(x.size(d[i]));
  const double scale = scale_of(norm, npts);
  Tensor t = detach(in);
  if (d.size() > 1) t = c2c_passes(t, std::vector<int64_t>(d.begin(), d.end() - 1), false, 1.0);
  Tensor out = contiguous(pass(t, last, true, false, n, [&](char* src, char* o, int64_t batch) {
    visit_floating(x.dtype(), [&]<class T>() {
      kernels::fft_c2r<T>(reinterpret_cast<T*>(src), reinterpret_cast<T*>(o), batch, n, T(scale));
    });
  }));
  if (autograd::any_requires_grad(in)) {
    autograd::record("FftC2RBackward0", {&in}, {&out},
                     [d, norm, n, half](Grads& g, const Node&) -> Grads {
                       // torch's fft_c2r_backward: the onesided r2c of the gradient, with the
                       // frequencies that stand for two (k and n - k) counted twice.
                       Tensor gi = fft_r2c(g[0], d, norm, true);
                       const int64_t twice = n - half;
                       if (twice <= 0) return {gi};
                       Dims wshape(size_t(gi.dim()), 1);
                       wshape[size_t(d.back())] = half;
                       Tensor w = ones(wshape, gi.dtype());
                       Tensor mid = narrow(w, d.back(), 1, twice);
                       fill_(mid, 2.0);
                       return {mul(gi, w)};
                     });
  }
  return out;
}

}  // namespace ember
