// Recurrent layers over a whole sequence (rnn.h): per step one BLAS product and one pass of
// gate math; sigmoid and tanh through the elementwise SIMD kernels (the same values as the
// sigmoid/tanh ops), everything else plain loops the compiler vectorizes.
#include "kernels/cpu/rnn.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/cpu/blas.h"
#include "kernels/cpu/elementwise_hwy.h"

namespace ember::kernels {

int64_t RnnShape::rows() const {
  int64_t n = 0;
  for (int64_t t = 0; t < steps; ++t) n += batch_sizes[t];
  return n;
}

namespace {

// Where each part of the saved buffer starts (elements); sizes are per row.
struct Layout {
  int64_t hprev = 0, act = 0, cprev = 0, tanh_c = 0, hpre = 0, ghn = 0, total = 0;
  explicit Layout(const RnnShape& s) {
    const int64_t N = s.rows(), H = s.hidden, GH = s.gates * s.hidden;
    int64_t at = 0;
    auto take = [&](int64_t per_row) {
      const int64_t start = at;
      at += N * per_row;
      return start;
    };
    hprev = take(s.out_size);
    if (s.mode == RnnMode::LSTM || s.mode == RnnMode::GRU) act = take(GH);
    if (s.mode == RnnMode::LSTM) {
      cprev = take(H);
      tanh_c = take(H);
      if (s.proj()) hpre = take(H);
    }
    if (s.mode == RnnMode::GRU) ghn = take(H);
    total = at;
  }
};

// The steps in the order the forward takes them, with each one's first row.
std::vector<std::pair<int64_t, int64_t>> step_order(const RnnShape& s) {
  std::vector<int64_t> offset(size_t(s.steps), 0);
  for (int64_t t = 1; t < s.steps; ++t)
    offset[size_t(t)] = offset[size_t(t - 1)] + s.batch_sizes[t - 1];
  std::vector<std::pair<int64_t, int64_t>> order;
  for (int64_t k = 0; k < s.steps; ++k) {
    const int64_t t = s.reverse ? s.steps - 1 - k : k;
    order.emplace_back(t, offset[size_t(t)]);
  }
  return order;
}

template <class T>
void activate(UnaryOp op, T* p, int64_t n) {
  if (simd_unary_enabled(op)) return simd_unary(op, p, p, n);
  for (int64_t i = 0; i < n; ++i)
    p[i] = op == UnaryOp::Tanh ? std::tanh(p[i]) : T(1) / (T(1) + std::exp(-p[i]));
}

template <class T>
void relu(T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) p[i] = p[i] > T(0) || std::isnan(p[i]) ? p[i] : T(0);
}

// gemm on T pointers: C (m, n) = op(A) (m, k) @ op(B) (k, n) + beta C.
template <class T>
void product(int64_t m, int64_t n, int64_t k, const T* a, bool ta, int64_t lda, const T* b, bool tb,
             int64_t ldb, double beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta == 0) std::fill(c, c + m * ldc, T(0));
    return;
  }
  gemm(std::is_same_v<T, float> ? DType::Float32 : DType::Float64, m, n, k, Scalar(1.0),
       MatRef{a, ta, lda}, MatRef{b, tb, ldb}, Scalar(beta), c, ldc);
}

// ---- one step's gate math, forward ----------------------------------------------------------
// LSTM: a = act(xp + gh) as (i, f, g, o); c' = f c + i g; hp = o tanh(c').
template <class T>
void lstm_step(int64_t n, int64_t H, const T* x, const T* gh, T* a, T* c, T* cprev, T* tc, T* hp) {
  const int64_t GH = 4 * H;
  for (int64_t i = 0; i < n * GH; ++i) a[i] = x[i] + gh[i];
  for (int64_t r = 0; r < n; ++r) {
    activate(UnaryOp::Sigmoid, a + r * GH, 2 * H);
    activate(UnaryOp::Tanh, a + r * GH + 2 * H, H);
    activate(UnaryOp::Sigmoid, a + r * GH + 3 * H, H);
  }
  std::memcpy(cprev, c, size_t(n * H) * sizeof(T));
  for (int64_t r = 0; r < n; ++r) {
    const T* ar = a + r * GH;
    T* cr = c + r * H;
    for (int64_t j = 0; j < H; ++j) cr[j] = ar[H + j] * cr[j] + ar[j] * ar[2 * H + j];
  }
  std::memcpy(tc, c, size_t(n * H) * sizeof(T));
  activate(UnaryOp::Tanh, tc, n * H);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t j = 0; j < H; ++j) hp[r * H + j] = a[r * GH + 3 * H + j] * tc[r * H + j];
}

// GRU: r, z = sigmoid(xp + gh (+ b)); gn = gh_n + b_n; nn = tanh(xp_n + r gn);
// h' = nn + z (h - nn).
template <class T>
void gru_step(int64_t n, int64_t H, const T* x, const T* gh, const T* b, const T* h, T* a, T* gn,
              T* out) {
  const int64_t GH = 3 * H;
  for (int64_t r = 0; r < n; ++r) {
    const T *xr = x + r * GH, *gr = gh + r * GH;
    T *ar = a + r * GH, *gnr = gn + r * H;
    for (int64_t j = 0; j < 2 * H; ++j) ar[j] = xr[j] + gr[j] + (b ? b[j] : T(0));
    activate(UnaryOp::Sigmoid, ar, 2 * H);
    for (int64_t j = 0; j < H; ++j) {
      gnr[j] = gr[2 * H + j] + (b ? b[2 * H + j] : T(0));
      ar[2 * H + j] = xr[2 * H + j] + ar[j] * gnr[j];
    }
    activate(UnaryOp::Tanh, ar + 2 * H, H);
    for (int64_t j = 0; j < H; ++j) {
      const T nn = ar[2 * H + j];
      out[r * H + j] = nn + ar[H + j] * (h[r * H + j] - nn);
    }
  }
}

template <class T>
void forward(const RnnShape& s, const T* xp, const T* w_hh, const T* b_hh, const T* w_hr, T* h,
             T* c, T* out, T* saved) {
  const Layout L(s);
  const int64_t H = s.hidden, Hr = s.out_size, GH = s.gates * H;
  std::vector<T> gh(size_t(s.batch * GH));
  for (auto [t, r0] : step_order(s)) {
    const int64_t n = s.batch_sizes[t];
    if (n == 0) continue;
    T* hp = saved + L.hprev + r0 * Hr;
    std::memcpy(hp, h, size_t(n * Hr) * sizeof(T));
    product<T>(n, GH, Hr, hp, false, Hr, w_hh, true, Hr, 0, gh.data(), GH);
    const T* x = xp + r0 * GH;
    T* o = out + r0 * Hr;
    switch (s.mode) {
      case RnnMode::LSTM: {
        T* hpre = s.proj() ? saved + L.hpre + r0 * H : o;
        lstm_step(n, H, x, gh.data(), saved + L.act + r0 * GH, c, saved + L.cprev + r0 * H,
                  saved + L.tanh_c + r0 * H, hpre);
        if (s.proj()) product<T>(n, Hr, H, hpre, false, H, w_hr, true, H, 0, o, Hr);
        break;
      }
      case RnnMode::GRU:
        gru_step(n, H, x, gh.data(), b_hh, hp, saved + L.act + r0 * GH, saved + L.ghn + r0 * H, o);
        break;
      case RnnMode::RNN_TANH:
      case RnnMode::RNN_RELU:
        for (int64_t i = 0; i < n * H; ++i) o[i] = x[i] + gh[size_t(i)];
        if (s.mode == RnnMode::RNN_TANH) activate(UnaryOp::Tanh, o, n * H);
        else relu(o, n * H);
        break;
    }
    std::memcpy(h, o, size_t(n * Hr) * sizeof(T));
  }
}

// ---- backward --------------------------------------------------------------------------------
// LSTM: from dhp (the gradient of o tanh(c')) and dc (of c'), the gates' pre-activation
// gradients dx (n, 4H); dc becomes c's.
template <class T>
void lstm_step_backward(int64_t n, int64_t H, const T* dhp, const T* a, const T* cprev, const T* tc,
                        T* dc, T* dx) {
  const int64_t GH = 4 * H;
  for (int64_t r = 0; r < n; ++r) {
    const T *ar = a + r * GH, *cp = cprev + r * H, *tr = tc + r * H, *dh = dhp + r * H;
    T *dcr = dc + r * H, *dxr = dx + r * GH;
    for (int64_t j = 0; j < H; ++j) {
      const T i = ar[j], f = ar[H + j], g = ar[2 * H + j], o = ar[3 * H + j], t = tr[j];
      const T dct = dcr[j] + dh[j] * o * (T(1) - t * t);
      dxr[j] = dct * g * i * (T(1) - i);
      dxr[H + j] = dct * cp[j] * f * (T(1) - f);
      dxr[2 * H + j] = dct * i * (T(1) - g * g);
      dxr[3 * H + j] = dh[j] * t * o * (T(1) - o);
      dcr[j] = dct * f;
    }
  }
}

// GRU: dh (n, H) of h' -> dx (xp's part), dg (gh + b's part), dh = the direct z * dh'.
template <class T>
void gru_step_backward(int64_t n, int64_t H, const T* a, const T* gn, const T* hprev, T* dh, T* dx,
                       T* dg) {
  const int64_t GH = 3 * H;
  for (int64_t r = 0; r < n; ++r) {
    const T *ar = a + r * GH, *gnr = gn + r * H, *hr = hprev + r * H;
    T *dhr = dh + r * H, *dxr = dx + r * GH, *dgr = dg + r * GH;
    for (int64_t j = 0; j < H; ++j) {
      const T rr = ar[j], z = ar[H + j], nn = ar[2 * H + j], d = dhr[j];
      const T dnpre = d * (T(1) - z) * (T(1) - nn * nn);
      const T drpre = dnpre * gnr[j] * rr * (T(1) - rr);
      const T dzpre = d * (hr[j] - nn) * z * (T(1) - z);
      dxr[j] = dgr[j] = drpre;
      dxr[H + j] = dgr[H + j] = dzpre;
      dxr[2 * H + j] = dnpre;
      dgr[2 * H + j] = dnpre * rr;
      dhr[j] = d * z;
    }
  }
}

template <class T>
void backward(const RnnShape& s, const T* w_hh, const T* w_hr, const T* out, const T* saved,
              const T* d_out, T* dh, T* dc, T* dxp, T* dw_hh, T* db_hh, T* dw_hr) {
  const Layout L(s);
  const int64_t H = s.hidden, Hr = s.out_size, GH = s.gates * H, N = s.rows();
  const bool gru = s.mode == RnnMode::GRU;
  std::vector<T> dgh(gru ? size_t(N * GH) : 0), dh_all(s.proj() ? size_t(N * Hr) : 0),
      dhp(s.proj() ? size_t(s.batch * H) : 0);
  std::vector<std::pair<int64_t, int64_t>> order = step_order(s);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const auto [t, r0] = *it;
    const int64_t n = s.batch_sizes[t];
    if (n == 0) continue;
    if (d_out)
      for (int64_t i = 0; i < n * Hr; ++i) dh[i] += d_out[r0 * Hr + i];
    T* dx = dxp + r0 * GH;
    switch (s.mode) {
      case RnnMode::LSTM: {
        const T* dh_pre = dh;
        if (s.proj()) {
          std::memcpy(dh_all.data() + r0 * Hr, dh, size_t(n * Hr) * sizeof(T));
          product<T>(n, H, Hr, dh, false, Hr, w_hr, false, H, 0, dhp.data(), H);
          dh_pre = dhp.data();
        }
        lstm_step_backward(n, H, dh_pre, saved + L.act + r0 * GH, saved + L.cprev + r0 * H,
                           saved + L.tanh_c + r0 * H, dc, dx);
        product<T>(n, Hr, GH, dx, false, GH, w_hh, false, Hr, 0, dh, Hr);
        break;
      }
      case RnnMode::GRU: {
        T* dg = dgh.data() + r0 * GH;
        gru_step_backward(n, H, saved + L.act + r0 * GH, saved + L.ghn + r0 * H,
                          saved + L.hprev + r0 * H, dh, dx, dg);
        product<T>(n, H, GH, dg, false, GH, w_hh, false, H, 1, dh, H);
        break;
      }
      case RnnMode::RNN_TANH:
      case RnnMode::RNN_RELU: {
        const T* o = out + r0 * H;
        if (s.mode == RnnMode::RNN_TANH)
          for (int64_t i = 0; i < n * H; ++i) dx[i] = dh[i] * (T(1) - o[i] * o[i]);
        else
          for (int64_t i = 0; i < n * H; ++i) dx[i] = o[i] > T(0) ? dh[i] : T(0);
        product<T>(n, H, H, dx, false, H, w_hh, false, H, 0, dh, H);
        break;
      }
    }
  }
  // The weights' gradients: one product over every step's rows.
  const T* dgates = gru ? dgh.data() : dxp;
  if (dw_hh) product<T>(GH, Hr, N, dgates, true, GH, saved + L.hprev, false, Hr, 0, dw_hh, Hr);
  if (db_hh) {
    std::fill(db_hh, db_hh + GH, T(0));
    for (int64_t r = 0; r < N; ++r)
      for (int64_t j = 0; j < GH; ++j) db_hh[j] += dgates[r * GH + j];
  }
  if (dw_hr) product<T>(Hr, H, N, dh_all.data(), true, Hr, saved + L.hpre, false, H, 0, dw_hr, H);
}

}  // namespace

int64_t rnn_saved_size(const RnnShape& s) { return Layout(s).total; }

void rnn_forward(DType dt, const RnnShape& s, const void* xp, const void* w_hh, const void* b_hh,
                 const void* w_hr, void* h, void* c, void* out, void* saved) {
  if (dt == DType::Float32)
    return forward(s, static_cast<const float*>(xp), static_cast<const float*>(w_hh),
                   static_cast<const float*>(b_hh), static_cast<const float*>(w_hr),
                   static_cast<float*>(h), static_cast<float*>(c), static_cast<float*>(out),
                   static_cast<float*>(saved));
  forward(s, static_cast<const double*>(xp), static_cast<const double*>(w_hh),
          static_cast<const double*>(b_hh), static_cast<const double*>(w_hr),
          static_cast<double*>(h), static_cast<double*>(c), static_cast<double*>(out),
          static_cast<double*>(saved));
}

void rnn_backward(DType dt, const RnnShape& s, const void* w_hh, const void* w_hr, const void* out,
                  const void* saved, const void* d_out, void* dh, void* dc, void* dxp, void* dw_hh,
                  void* db_hh, void* dw_hr) {
  if (dt == DType::Float32)
    return backward(s, static_cast<const float*>(w_hh), static_cast<const float*>(w_hr),
                    static_cast<const float*>(out), static_cast<const float*>(saved),
                    static_cast<const float*>(d_out), static_cast<float*>(dh),
                    static_cast<float*>(dc), static_cast<float*>(dxp), static_cast<float*>(dw_hh),
                    static_cast<float*>(db_hh), static_cast<float*>(dw_hr));
  backward(s, static_cast<const double*>(w_hh), static_cast<const double*>(w_hr),
           static_cast<const double*>(out), static_cast<const double*>(saved),
           static_cast<const double*>(d_out), static_cast<double*>(dh), static_cast<double*>(dc),
           static_cast<double*>(dxp), static_cast<double*>(dw_hh), static_cast<double*>(db_hh),
           static_cast<double*>(dw_hr));
}

}  // namespace ember::kernels
