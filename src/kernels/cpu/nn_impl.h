// The layer kernels that profit from wider SIMD (leaky_relu, batch norm, layer norm),
// compiled once per instruction set: nn.cpp includes this file for the baseline ISA
// as namespace `generic`, nn_avx2.cpp again under `#pragma GCC target("avx2,fma")` as
// namespace `avx2`; nn.cpp picks one at run time (cpu.h). Everything here has internal
// linkage or lives in the ISA-named namespace, so the two copies never merge at link time.
// Include it only from those two files, after defining EMBER_NN_ISA and EMBER_NN_VBYTES
// (the bytes of one explicit vector: 16 for SSE2, 32 for AVX2).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/cpu/nn.h"
#include "kernels/cpu/parallel.h"

#if !defined(EMBER_NN_ISA) || !defined(EMBER_NN_VBYTES)
#error "define EMBER_NN_ISA and EMBER_NN_VBYTES before including nn_impl.h"
#endif

namespace ember::kernels::EMBER_NN_ISA {
namespace {

// Calls f(T{}) with T the C++ type of the floating dtype dt.
template <class F>
void dispatch_float(DType dt, const F& f) {
  if (dt == DType::Float64) f(double{});
  else if (dt == DType::Float32) f(float{});
  else throw_unsupported_dtype(dt);  // complex: Note [Adding a dtype]
}

// out = op(a) over Loop{out, a} (2 operands) or out = op(a, b) over Loop{out, a, b}. The op
// is copied into a local first: its captures then cannot alias the output, so the compiler
// keeps them in registers and vectorizes the contiguous loop.
template <class T, class Op>
void map_unary(const Loop& L, const Op& op) {
  for_each(L, [&](char** p, const int64_t* s, int64_t n) {
    const Op f = op;
    if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
      T* __restrict o = reinterpret_cast<T*>(p[0]);
      const T* __restrict a = reinterpret_cast<const T*>(p[1]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<T*>(p[0] + i * s[0]) = f(*reinterpret_cast<const T*>(p[1] + i * s[1]));
    }
  });
}

template <class T, class Op>
void map_binary(const Loop& L, const Op& op) {
  for_each(L, [&](char** p, const int64_t* s, int64_t n) {
    const Op f = op;
    if (s[0] == sizeof(T) && s[1] == sizeof(T) && s[2] == sizeof(T)) {
      T* __restrict o = reinterpret_cast<T*>(p[0]);
      const T* __restrict a = reinterpret_cast<const T*>(p[1]);
      const T* __restrict b = reinterpret_cast<const T*>(p[2]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<T*>(p[0] + i * s[0]) = f(*reinterpret_cast<const T*>(p[1] + i * s[1]),
                                                   *reinterpret_cast<const T*>(p[2] + i * s[2]));
    }
  });
}

// ---- sums over runs ---------------------------------------------------------------------------
// Note [Lane sums]: a run is summed in chunks of kChunk elements. Inside a chunk, kUnroll
// vector accumulators of the input's own type (GCC vector extensions, SSE2 or AVX2: GCC
// turns a plain array of lanes into in-order scalar adds instead); the chunk totals are
// added in double. So float32 sums at SIMD width, no float accumulator ever holds more than
// kChunk / (kUnroll * lanes) terms, and the order depends on n (and the ISA) alone.
#define EMBER_VECTOR_BYTES EMBER_NN_VBYTES
#include "kernels/cpu/vector_ext.h"
#undef EMBER_VECTOR_BYTES
constexpr int kUnroll = 4;  // (the combine below adds exactly 4)
constexpr int64_t kChunk = 2048;

// out[k] += the sums over i in [0, n) of K quantities: vec(i, a) adds those of elements
// i .. i + kW - 1 into the vectors a[K], one(i, t) those of element i into the scalars t[K].
template <class T, int K, class Vf, class Sf>
void lane_sums(int64_t n, const Vf& vec, const Sf& one, double* out) {
  constexpr int64_t step = kUnroll * kW<T>;
  for (int64_t c0 = 0; c0 < n; c0 += kChunk) {
    const int64_t c1 = std::min(n, c0 + kChunk);
    V<T> acc[kUnroll][K] = {};
    T tail[K] = {};
    int64_t i = c0;
    for (; i + step <= c1; i += step)
      for (int u = 0; u < kUnroll; ++u) vec(i + u * kW<T>, acc[u]);
    for (; i < c1; ++i) one(i, tail);
    for (int k = 0; k < K; ++k) {  // a tree, not a chain: short rows are latency-bound here
      const V<T> v = (acc[0][k] + acc[1][k]) + (acc[2][k] + acc[3][k]);
      double lane[kW<T>];
      for (int j = 0; j < kW<T>; ++j) lane[j] = double(v[j]);
      for (int w = kW<T> / 2; w > 0; w /= 2)
        for (int j = 0; j < w; ++j) lane[j] += lane[j + w];
      out[k] += lane[0] + double(tail[k]);
    }
  }
}

template <class T>
double sum_run(const T* x, int64_t n) {
  double s = 0;
  lane_sums<T, 1>(
      n, [x](int64_t i, V<T>* a) { a[0] += loadv(x + i); }, [x](int64_t i, T* t) { t[0] += x[i]; },
      &s);
  return s;
}

// Sum of (x - mean)^2.
template <class T>
double sqdev_run(const T* x, int64_t n, double mean) {
  const T m = T(mean);
  double s = 0;
  lane_sums<T, 1>(
      n,
      [x, m](int64_t i, V<T>* a) {
        const V<T> d = loadv(x + i) - m;
        a[0] += d * d;
      },
      [x, m](int64_t i, T* t) { t[0] += (x[i] - m) * (x[i] - m); }, &s);
  return s;
}

// Adds the sums of g' and of g' * (x - mean) into s[0], s[1], with g' = g * w (w nullable).
template <class T>
void grad_sums_run(const T* g, const T* x, const T* w, int64_t n, double mean, double* s) {
  const T m = T(mean);
  if (w) {
    lane_sums<T, 2>(
        n,
        [g, x, w, m](int64_t i, V<T>* a) {
          const V<T> gv = loadv(g + i) * loadv(w + i);
          a[0] += gv;
          a[1] += gv * (loadv(x + i) - m);
        },
        [g, x, w, m](int64_t i, T* t) {
          t[0] += g[i] * w[i];
          t[1] += g[i] * w[i] * (x[i] - m);
        },
        s);
  } else {
    lane_sums<T, 2>(
        n,
        [g, x, m](int64_t i, V<T>* a) {
          const V<T> gv = loadv(g + i);
          a[0] += gv;
          a[1] += gv * (loadv(x + i) - m);
        },
        [g, x, m](int64_t i, T* t) {
          t[0] += g[i];
          t[1] += g[i] * (x[i] - m);
        },
        s);
  }
}

// ---- per-channel sums of a (n, c, s) block ---------------------------------------------------
// A channel's positions are p in [0, n * s): element (p / s, ch, p % s). Positions are cut
// into blocks of kChannelBlock (Note [Deterministic norm sums]).
constexpr int64_t kChannelBlock = 16384;
constexpr int64_t kRowChunk = 128;  // rows per T accumulator on the (n, c) path (Note [Lane sums])

// out[ch * K + k] = the channel's sum of K quantities. For s > 1, seg(acc, ch, offset, len)
// adds the contiguous run of `len` elements of channel ch at `offset` into acc[K]. For s == 1
// (an (n, c) input) rows(acc, r0, r1) adds rows [r0, r1) into acc[K][c] (of type T),
// vectorized along the channels.
template <class T, int K, class Seg, class Rows>
void channel_reduce(ChannelGeom g, const Seg& seg, const Rows& rows, double* out) {
  if (g.s == 1) {
    const int64_t per = std::max<int64_t>(1, kChannelBlock / std::max<int64_t>(g.c, 1));
    const int64_t nb = std::max<int64_t>(1, (g.n + per - 1) / per);
    std::vector<double> part(size_t(nb * K * g.c), 0.0);
    const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(per * g.c, 1));
    parallel_for(0, nb, grain, [&](int64_t b0, int64_t b1) {
      std::vector<T> tmp(size_t(K * g.c));
      for (int64_t blk = b0; blk < b1; ++blk) {
        double* acc = &part[size_t(blk * K * g.c)];
        const int64_t end = std::min(g.n, blk * per + per);
        for (int64_t r = blk * per; r < end; r += kRowChunk) {
          std::fill(tmp.begin(), tmp.end(), T(0));
          rows(tmp.data(), r, std::min(end, r + kRowChunk));
          for (size_t i = 0; i < tmp.size(); ++i) acc[i] += double(tmp[i]);
        }
      }
    });
    for (int64_t ch = 0; ch < g.c; ++ch)
      for (int k = 0; k < K; ++k) {
        double s = 0;
        for (int64_t blk = 0; blk < nb; ++blk) s += part[size_t((blk * K + k) * g.c + ch)];
        out[ch * K + k] = s;
      }
    return;
  }
  const int64_t m = g.n * g.s;
  const int64_t nb = std::max<int64_t>(1, (m + kChannelBlock - 1) / kChannelBlock);
  std::vector<double> part(size_t(nb * g.c * K), 0.0);
  const int64_t per_item = std::max<int64_t>(1, std::min(m, kChannelBlock));
  parallel_for(0, nb * g.c, std::max<int64_t>(1, kGrain / per_item), [&](int64_t i0, int64_t i1) {
    for (int64_t it = i0; it < i1; ++it) {  // item = block * c + channel: neighbours share rows
      const int64_t blk = it / g.c, ch = it % g.c;
      double* acc = &part[size_t(it * K)];
      int64_t p = blk * kChannelBlock;
      const int64_t end = std::min(m, p + kChannelBlock);
      while (p < end) {
        const int64_t row = p / g.s, col = p % g.s, len = std::min(g.s - col, end - p);
        seg(acc, ch, (row * g.c + ch) * g.s + col, len);
        p += len;
      }
    }
  });
  for (int64_t ch = 0; ch < g.c; ++ch)
    for (int k = 0; k < K; ++k) {
      double s = 0;
      for (int64_t blk = 0; blk < nb; ++blk) s += part[size_t((blk * g.c + ch) * K + k)];
      out[ch * K + k] = s;
    }
}

// out[i] = f(in-values at i, per-channel arrays) over a (n, c, s) block, in parallel;
// body(ch, offset, len) processes one run of a channel.
template <class Body>
void channel_map(ChannelGeom g, const Body& body) {
  if (g.s == 1) {  // (n, c): rows of c channels
    parallel_for(0, g.n, std::max<int64_t>(1, kGrain / std::max<int64_t>(g.c, 1)),
                 [&](int64_t n0, int64_t n1) {
                   for (int64_t r = n0; r < n1; ++r) body(-1, r * g.c, g.c);
                 });
    return;
  }
  parallel_for(0, g.n * g.c, std::max<int64_t>(1, kGrain / g.s), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) body(r % g.c, r * g.s, g.s);
  });
}

}  // namespace

void leaky_relu(DType dt, const Loop& L, double slope) {
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    const T k = T(slope);
    // Arithmetic, no select: a select between x and x * k becomes a branch (the multiply
    // may not run speculatively), mispredicted on random signs. NaN stays NaN.
    map_unary<T>(L, [k](T x) { return std::max(x, T(0)) + k * std::min(x, T(0)); });
  });
}

void leaky_relu_backward(DType dt, const Loop& L, double slope) {
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    const T k = T(slope);
    // g * (x > 0 ? 1 : k) with the factor picked by a bit mask: branch-free, as above.
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    const U one = std::bit_cast<U>(T(1)), kb = std::bit_cast<U>(k);
    map_binary<T>(L, [one, kb](T g, T x) {
      const U m = U(0) - U(x > T(0));
      return g * std::bit_cast<T>((one & m) | (kb & ~m));
    });
  });
}

// ReLU's backward (torch's threshold_backward): +0 where y <= 0, else g (so a NaN y passes g
// on, as torch; an inf or NaN g where y <= 0 still gives +0). Branch-free: g's bits and-ed with
// an all-ones or all-zeros mask. bfloat16/float16 on their bits, no conversion: y <= 0 when
// its magnitude bits are 0 (+-0), or its sign is set and it is not NaN (magnitude <= inf's).
void relu_backward(DType dt, const Loop& L) {
  if (dt == DType::BFloat16 || dt == DType::Float16) {
    const unsigned inf = dt == DType::BFloat16 ? 0x7F80 : 0x7C00;
    map_binary<uint16_t>(L, [inf](uint16_t g, uint16_t y) {
      const unsigned mag = y & 0x7FFFu;
      const unsigned le0 = unsigned(mag == 0) | ((unsigned(y) >> 15) & unsigned(mag <= inf));
      return uint16_t(g & (le0 - 1u));
    });
    return;
  }
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    map_binary<T>(L, [](T g, T y) {
      return std::bit_cast<T>(std::bit_cast<U>(g) & (U(0) - U(!(y <= T(0)))));
    });
  });
}

// ---- batch norm -------------------------------------------------------------------------------

void batch_norm_stats(DType dt, ChannelGeom g, const void* x, double eps, void* mean, void* var,
                      void* invstd) {
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    const T* xp = static_cast<const T*>(x);
    const double m = double(g.n * g.s);
    std::vector<double> mu(size_t(g.c)), sq(size_t(g.c));
    channel_reduce<T, 1>(
        g,
        [&](double* acc, int64_t, int64_t off, int64_t len) { acc[0] += sum_run(xp + off, len); },
        [&](T* acc, int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r)
            for (int64_t c = 0; c < g.c; ++c) acc[c] += xp[r * g.c + c];
        },
        mu.data());
    std::vector<T> mu_t(size_t(g.c));
    for (int64_t c = 0; c < g.c; ++c) mu[size_t(c)] /= m, mu_t[size_t(c)] = T(mu[size_t(c)]);
    const double* mup = mu.data();
    const T* mut = mu_t.data();
    channel_reduce<T, 1>(
        g,
        [&](double* acc, int64_t ch, int64_t off, int64_t len) {
          acc[0] += sqdev_run(xp + off, len, mup[ch]);
        },
        [&](T* acc, int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r)
            for (int64_t c = 0; c < g.c; ++c) {
              const T d = xp[r * g.c + c] - mut[c];
              acc[c] += d * d;
            }
        },
        sq.data());
    for (int64_t c = 0; c < g.c; ++c) {
      const double v = sq[size_t(c)] / m;
      static_cast<T*>(mean)[c] = T(mu[size_t(c)]);
      static_cast<T*>(var)[c] = T(v);
      static_cast<T*>(invstd)[c] = T(1.0 / std::sqrt(v + eps));
    }
  });
}

void batch_norm_apply(DType dt, ChannelGeom g, const void* x, const void* mean, const void* invstd,
                      const void* w, const void* b, void* y) {
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    // y = x * scale + shift with scale = invstd * w and shift = b - mean * scale.
    std::vector<T> scale(size_t(g.c)), shift(size_t(g.c));
    for (int64_t c = 0; c < g.c; ++c) {
      const double a = double(static_cast<const T*>(invstd)[c]) *
                       (w ? double(static_cast<const T*>(w)[c]) : 1.0);
      scale[size_t(c)] = T(a);
      shift[size_t(c)] = T((b ? double(static_cast<const T*>(b)[c]) : 0.0) -
                           double(static_cast<const T*>(mean)[c]) * a);
    }
    const T* xp = static_cast<const T*>(x);
    T* yp = static_cast<T*>(y);
    const T *sc = scale.data(), *sh = shift.data();
    channel_map(g, [&](int64_t ch, int64_t off, int64_t len) {
      if (ch < 0) {
        for (int64_t i = 0; i < len; ++i) yp[off + i] = xp[off + i] * sc[i] + sh[i];
      } else {
        const T a = sc[ch], s = sh[ch];
        for (int64_t i = 0; i < len; ++i) yp[off + i] = xp[off + i] * a + s;
      }
    });
  });
}

void batch_norm_backward_reduce(DType dt, ChannelGeom g, const void* go, const void* x,
                                const void* mean, void* sum_g, void* sum_gxmu) {
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    const T *gp = static_cast<const T*>(go), *xp = static_cast<const T*>(x);
    const T* mp = static_cast<const T*>(mean);
    std::vector<double> sums(size_t(2 * g.c));
    channel_reduce<T, 2>(
        g,
        [&](double* acc, int64_t ch, int64_t off, int64_t len) {
          grad_sums_run<T>(gp + off, xp + off, nullptr, len, double(mp[ch]), acc);
        },
        [&](T* acc, int64_t r0, int64_t r1) {  // acc[0][c]: sum of g, acc[1][c]: of g (x - mean)
          for (int64_t r = r0; r < r1; ++r)
            for (int64_t c = 0; c < g.c; ++c) {
              const T gv = gp[r * g.c + c];
              acc[c] += gv;
              acc[g.c + c] += gv * (xp[r * g.c + c] - mp[c]);
            }
        },
        sums.data());
    for (int64_t c = 0; c < g.c; ++c) {
      static_cast<T*>(sum_g)[c] = T(sums[size_t(2 * c)]);
      static_cast<T*>(sum_gxmu)[c] = T(sums[size_t(2 * c + 1)]);
    }
  });
}

void batch_norm_backward_input(DType dt, ChannelGeom g, const void* go, const void* x,
                               const void* mean, const void* invstd, const void* w,
                               const void* sum_g, const void* sum_gxmu, bool training, void* gx) {
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    // gx = (go - gmean[c] - (x - mean[c]) * k[c]) * a[c]   (training)
    // gx = go * a[c]                                       (evaluation)
    const double m = double(g.n * g.s);
    std::vector<T> a(size_t(g.c)), gm(size_t(g.c)), k(size_t(g.c)), mu(size_t(g.c));
    for (int64_t c = 0; c < g.c; ++c) {
      const double is = double(static_cast<const T*>(invstd)[c]);
      a[size_t(c)] = T(is * (w ? double(static_cast<const T*>(w)[c]) : 1.0));
      mu[size_t(c)] = static_cast<const T*>(mean)[c];
      if (training) {
        gm[size_t(c)] = T(double(static_cast<const T*>(sum_g)[c]) / m);
        k[size_t(c)] = T(double(static_cast<const T*>(sum_gxmu)[c]) * is * is / m);
      }
    }
    const T *gp = static_cast<const T*>(go), *xp = static_cast<const T*>(x);
    T* out = static_cast<T*>(gx);
    channel_map(g, [&](int64_t ch, int64_t off, int64_t len) {
      if (!training) {
        if (ch < 0) {
          for (int64_t i = 0; i < len; ++i) out[off + i] = gp[off + i] * a[size_t(i)];
        } else {
          const T ac = a[size_t(ch)];
          for (int64_t i = 0; i < len; ++i) out[off + i] = gp[off + i] * ac;
        }
      } else if (ch < 0) {
        for (int64_t i = 0; i < len; ++i)
          out[off + i] =
              (gp[off + i] - gm[size_t(i)] - (xp[off + i] - mu[size_t(i)]) * k[size_t(i)]) *
              a[size_t(i)];
      } else {
        const T ac = a[size_t(ch)], gc = gm[size_t(ch)], kc = k[size_t(ch)], mc = mu[size_t(ch)];
        for (int64_t i = 0; i < len; ++i)
          out[off + i] = (gp[off + i] - gc - (xp[off + i] - mc) * kc) * ac;
      }
    });
  });
}

// ---- layer norm -------------------------------------------------------------------------------

void layer_norm(DType dt, int64_t rows, int64_t d, const void* x, const void* w, const void* b,
                double eps, void* y, void* mean, void* rstd) {
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    const T *xp = static_cast<const T*>(x), *wp = static_cast<const T*>(w),
            *bp = static_cast<const T*>(b);
    const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(d, 1));
    parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* xr = xp + r * d;
        T* yr = static_cast<T*>(y) + r * d;
        const double mu = d ? sum_run(xr, d) / double(d) : 0.0;
        const double var = d ? sqdev_run(xr, d, mu) / double(d) : 0.0;
        const double rs = 1.0 / std::sqrt(var + eps);
        static_cast<T*>(mean)[r] = T(mu);
        static_cast<T*>(rstd)[r] = T(rs);
        const T m = T(mu), a = T(rs);
        if (wp && bp)
          for (int64_t j = 0; j < d; ++j) yr[j] = (xr[j] - m) * a * wp[j] + bp[j];
        else if (wp)
          for (int64_t j = 0; j < d; ++j) yr[j] = (xr[j] - m) * a * wp[j];
        else if (bp)
          for (int64_t j = 0; j < d; ++j) yr[j] = (xr[j] - m) * a + bp[j];
        else
          for (int64_t j = 0; j < d; ++j) yr[j] = (xr[j] - m) * a;
      }
    });
  });
}

namespace {

// gw[j] += sum_r go[r, j] * xhat[r, j] and gb[j] += sum_r go[r, j] over rows [r0, r1) and
// columns [j0, j1), in row order: T accumulators over kRowChunk rows, then double.
template <class T>
void layer_norm_param_sums(const T* go, const T* x, const T* mean, const T* rstd, int64_t d,
                           int64_t r0, int64_t r1, int64_t j0, int64_t j1, double* gw, double* gb) {
  const int64_t w = j1 - j0;
  std::vector<T> tw(gw ? size_t(w) : 0), tb(gb ? size_t(w) : 0);
  T* __restrict aw = tw.data();
  T* __restrict ab = tb.data();
  for (int64_t c0 = r0; c0 < r1; c0 += kRowChunk) {
    std::fill(tw.begin(), tw.end(), T(0));
    std::fill(tb.begin(), tb.end(), T(0));
    for (int64_t r = c0; r < std::min(r1, c0 + kRowChunk); ++r) {
      const T* gr = go + r * d + j0;
      const T* xr = x + r * d + j0;
      const T mu = mean[r], rs = rstd[r];
      if (gw)
        for (int64_t j = 0; j < w; ++j) aw[j] += gr[j] * ((xr[j] - mu) * rs);
      if (gb)
        for (int64_t j = 0; j < w; ++j) ab[j] += gr[j];
    }
    for (int64_t j = 0; j < w; ++j) {
      if (gw) gw[j0 + j] += double(aw[j]);
      if (gb) gb[j0 + j] += double(ab[j]);
    }
  }
}

}  // namespace

void layer_norm_backward(DType dt, int64_t rows, int64_t d, const void* go, const void* x,
                         const void* mean, const void* rstd, const void* w, void* gx, void* gw,
                         void* gb) {
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    const T *gp = static_cast<const T*>(go), *xp = static_cast<const T*>(x);
    const T *mp = static_cast<const T*>(mean), *rp = static_cast<const T*>(rstd);
    const T* wp = static_cast<const T*>(w);
    // gx = rstd * (go w - mean(go w) - xhat * mean(go w xhat)), per row.
    auto gx_rows = [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* gr = gp + r * d;
        const T* xr = xp + r * d;
        double s[2] = {0, 0};
        grad_sums_run<T>(gr, xr, wp, d, double(mp[r]), s);
        const double rs = double(rp[r]);
        const T a = T(rs), c1 = T(s[0] / double(d)), c2 = T(s[1] * rs * rs / double(d)), mu = mp[r];
        T* out = static_cast<T*>(gx) + r * d;
        if (wp)
          for (int64_t j = 0; j < d; ++j) out[j] = a * (gr[j] * wp[j] - c1 - (xr[j] - mu) * c2);
        else
          for (int64_t j = 0; j < d; ++j) out[j] = a * (gr[j] - c1 - (xr[j] - mu) * c2);
      }
    };
    const int64_t row_grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(d, 1));
    if (!gw && !gb) {
      parallel_for(0, rows, row_grain, gx_rows);
      return;
    }
    // grad_weight / grad_bias: row blocks with partials (Note [Deterministic norm sums]).
    // Each block computes gx for a chunk of rows, then adds the same rows (still in cache)
    // into its partials. Rows so wide that the partials would be large keep one block and
    // split their columns instead (any column split gives the same sums). A block is at
    // least 16384 elements (nanoGPT's (768, 128) rows make 6 blocks, so two threads share
    // them); the count depends on the shape alone, never on the threads.
    const bool wide = d > 65536;
    const int64_t max_blocks = std::min<int64_t>(16, std::max<int64_t>(rows, 1));
    const int64_t nb = wide ? 1 : std::clamp<int64_t>(rows * d / 16384, 1, max_blocks);
    const int64_t rows_per = (rows + nb - 1) / nb;
    std::vector<double> pw(gw ? size_t(nb * d) : 0, 0.0), pb(gb ? size_t(nb * d) : 0, 0.0);
    if (wide) {
      if (gx) parallel_for(0, rows, row_grain, gx_rows);
      parallel_for(0, d, 4096, [&](int64_t j0, int64_t j1) {
        layer_norm_param_sums<T>(gp, xp, mp, rp, d, 0, rows, j0, j1, gw ? pw.data() : nullptr,
                                 gb ? pb.data() : nullptr);
      });
    } else {
      parallel_for(0, nb, 1, [&](int64_t b0, int64_t b1) {
        for (int64_t blk = b0; blk < b1; ++blk) {
          const int64_t r_end = std::min(rows, blk * rows_per + rows_per);
          for (int64_t r0 = blk * rows_per; r0 < r_end; r0 += kRowChunk) {
            const int64_t r1 = std::min(r_end, r0 + kRowChunk);
            if (gx) gx_rows(r0, r1);
            layer_norm_param_sums<T>(gp, xp, mp, rp, d, r0, r1, 0, d,
                                     gw ? pw.data() + blk * d : nullptr,
                                     gb ? pb.data() + blk * d : nullptr);
          }
        }
      });
    }
    for (int64_t j = 0; j < d; ++j) {
      double sw = 0, sb = 0;
      for (int64_t blk = 0; blk < nb; ++blk) {
        if (gw) sw += pw[size_t(blk * d + j)];
        if (gb) sb += pb[size_t(blk * d + j)];
      }
      if (gw) static_cast<T*>(gw)[j] = T(sw);
      if (gb) static_cast<T*>(gb)[j] = T(sb);
    }
  });
}

}  // namespace ember::kernels::EMBER_NN_ISA
