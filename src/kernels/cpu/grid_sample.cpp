// grid_sample's kernels: one template over the dtype and the number of spatial dims (2 or 3).
// Each output point first resolves its taps (input offsets, weights, and the weights'
// derivatives along each coordinate), then runs over the channels, so the coordinate math is
// done once per point, not once per channel. The coordinate rules are torch's
// (aten/src/ATen/native/GridSampler.h): unnormalize, then the padding's clip or reflection,
// then any coordinate that is not finite or not an int becomes -100 (out of bounds). Where the
// scalar and the vectorized CPU kernels of torch differ (NaN, huge coordinates), the
// vectorized one, which torch runs, is followed.
#include "kernels/cpu/grid_sample.h"

#include <climits>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/cpu/parallel.h"

namespace ember::kernels {
namespace {

// A grid value in [-1, 1] as a pixel coordinate; *mult = d coordinate / d grid value.
template <class T>
T unnormalize(T v, int64_t size, bool align, T* mult) {
  if (align) {
    *mult = T(size - 1) / 2;
    return (v + 1) / 2 * T(size - 1);
  }
  *mult = T(size) / 2;
  return ((v + 1) * T(size) - 1) / 2;
}

// Clamped to [0, size - 1]; the gradient is 0 where clamped. NaN becomes 0, as in torch's CPU
// kernels (their max(x, 0) drops NaN).
template <class T>
T clip(T x, int64_t size, T* g) {
  if (!(x > 0)) {
    *g = 0;
    return 0;
  }
  const T hi = T(size - 1);
  if (x >= hi) {
    *g = 0;
    return hi;
  }
  *g = 1;
  return x;
}

// Reflected into [twice_low / 2, twice_high / 2] as often as needed; *g = +-1. Written with the
// period 2 * span (min(extra, period - extra)), as torch's vectorized kernel, so that huge
// coordinates reflect as torch's do; a non-finite one gives NaN (then 0 after the clip).
template <class T>
T reflect(T x, T twice_low, T twice_high, T* g) {
  if (twice_low == twice_high) {
    *g = 0;
    return 0;
  }
  const T lo = twice_low / 2, span = (twice_high - twice_low) / 2, period = 2 * span;
  x -= lo;
  T sign = 1;
  if (x < 0) {
    sign = -1;
    x = -x;
  }
  const T extra = std::fmod(x, period);
  const bool rising = extra <= span;
  *g = rising ? sign : -sign;
  return rising ? extra + lo : period - extra + lo;
}

template <class T>
T safe_index(T x) {
  if (!std::isfinite(x) || x > T(INT_MAX - 1) || x < T(INT_MIN)) return T(-100);
  return x;
}

// torch's compute_coordinates: the padding applied to a pixel coordinate; *g its derivative.
template <class T>
T pad_coord(T x, int64_t size, GridPadding p, bool align, T* g) {
  *g = 1;
  if (p == GridPadding::Border) {
    x = clip(x, size, g);
  } else if (p == GridPadding::Reflection) {
    T g1, g2;
    x = align ? reflect(x, T(0), T(2 * (size - 1)), &g1) : reflect(x, T(-1), T(2 * size - 1), &g1);
    x = clip(x, size, &g2);
    *g = g1 * g2;
  }
  return safe_index(x);
}

// torch's cubic convolution (A = -0.75): the 4 weights of taps -1, 0, 1, 2 at fraction t,
// and their derivatives in t.
template <class T>
void cubic_weights(T t, T w[4], T dw[4]) {
  const T A = T(-0.75);
  auto c1 = [A](T x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  auto c2 = [A](T x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  auto d1 = [A](T x) { return (3 * (A + 2) * x - 2 * (A + 3)) * x; };
  auto d2 = [A](T x) { return (3 * A * x - 10 * A) * x + 8 * A; };
  w[0] = c2(t + 1), w[1] = c1(t), w[2] = c1(1 - t), w[3] = c2(2 - t);
  dw[0] = d2(t + 1), dw[1] = d1(t), dw[2] = -d1(1 - t), dw[3] = -d2(2 - t);
}

// The taps of one output point: input offsets (-1: outside, reads 0), weights, and for the
// grid's gradient the derivative of each weight along each spatial dim (already multiplied
// by d coordinate / d grid value).
template <class T, int ND>
struct Taps {
  static constexpr int kMax = ND == 2 ? 16 : 8;
  int count = 0;
  bool nan = false;  // a non-finite coordinate where torch's weights become NaN: output NaN
  int64_t offset[kMax];
  T weight[kMax];
  T dweight[kMax][ND];
};

template <class T, int ND>
void resolve(const GridSampleGeom& g, const T* gp, bool want_grad, Taps<T, ND>& taps) {
  const int64_t* in = g.in;
  T coord[ND], mult[ND];
  taps.nan = false;
  if (g.mode == GridMode::Bicubic) {  // 2-d only; the padding applies to each tap
    T base[2], w[2][4], dw[2][4];
    for (int d = 0; d < 2; ++d) {
      coord[d] = unnormalize(gp[1 - d], in[d], g.align_corners, &mult[d]);
      taps.nan = taps.nan || !std::isfinite(coord[d]);
      base[d] = std::floor(coord[d]);
      cubic_weights(coord[d] - base[d], w[d], dw[d]);
    }
    taps.count = 16;
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) {
        const int k = j * 4 + i;
        T unused;
        const T y = pad_coord(base[0] - 1 + j, in[0], g.padding, g.align_corners, &unused);
        const T x = pad_coord(base[1] - 1 + i, in[1], g.padding, g.align_corners, &unused);
        const int64_t iy = int64_t(y), ix = int64_t(x);
        const bool inside = iy >= 0 && iy < in[0] && ix >= 0 && ix < in[1];
        taps.offset[k] = inside ? iy * in[1] + ix : -1;
        taps.weight[k] = w[0][j] * w[1][i];
        if (want_grad) {
          taps.dweight[k][0] = w[1][i] * dw[0][j] * mult[0];
          taps.dweight[k][1] = dw[1][i] * w[0][j] * mult[1];
        }
      }
    return;
  }
  for (int d = 0; d < ND; ++d) {
    T um, pm;
    const T u = unnormalize(gp[ND - 1 - d], in[d], g.align_corners, &um);
    if (ND == 2 && g.mode == GridMode::Bilinear && g.padding == GridPadding::Zeros &&
        !std::isfinite(u))
      taps.nan = true;
    coord[d] = pad_coord(u, in[d], g.padding, g.align_corners, &pm);
    mult[d] = um * pm;
  }
  if (g.mode == GridMode::Nearest) {
    taps.count = 1;
    int64_t off = 0;
    bool inside = true;
    for (int d = 0; d < ND; ++d) {
      const int64_t i = int64_t(std::nearbyint(coord[d]));  // half to even, as torch
      inside = inside && i >= 0 && i < in[d];
      off = off * in[d] + i;
    }
    taps.offset[0] = inside ? off : -1;
    taps.weight[0] = 1;
    for (int d = 0; d < ND; ++d) taps.dweight[0][d] = 0;
    return;
  }
  // (multi)linear: corner k takes base + 1 along dim d where bit (ND - 1 - d) of k is set,
  // so x (the last dim) varies fastest, as torch's nw, ne, sw, se order.
  int64_t base[ND];
  T hi[ND], lo[ND];  // the weights of the upper and lower neighbour along each dim
  for (int d = 0; d < ND; ++d) {
    const T f = std::floor(coord[d]);
    base[d] = int64_t(f);
    hi[d] = coord[d] - f;
    lo[d] = 1 - hi[d];
  }
  taps.count = 1 << ND;
  for (int k = 0; k < taps.count; ++k) {
    int64_t off = 0;
    bool inside = true;
    T w = 1;
    for (int d = ND - 1; d >= 0; --d) w *= ((k >> (ND - 1 - d)) & 1) ? hi[d] : lo[d];
    for (int d = 0; d < ND; ++d) {
      const int64_t i = base[d] + ((k >> (ND - 1 - d)) & 1);
      inside = inside && i >= 0 && i < in[d];
      off = off * in[d] + i;
    }
    taps.offset[k] = inside ? off : -1;
    taps.weight[k] = w;
    if (!want_grad) continue;
    for (int d = 0; d < ND; ++d) {
      T dw = ((k >> (ND - 1 - d)) & 1) ? T(1) : T(-1);
      for (int e = ND - 1; e >= 0; --e)
        if (e != d) dw *= ((k >> (ND - 1 - e)) & 1) ? hi[e] : lo[e];
      taps.dweight[k][d] = dw * mult[d];
    }
  }
}

int64_t spatial(const int64_t* s, int nd) {
  int64_t p = 1;
  for (int d = 0; d < nd; ++d) p *= s[d];
  return p;
}

template <class T, int ND>
void forward_impl(const GridSampleGeom& g, const T* input, const T* grid, T* out) {
  const int64_t P = spatial(g.out, ND), S = spatial(g.in, ND), C = g.c;
  const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(C, 1));
  parallel_for(0, g.n * P, grain, [&](int64_t begin, int64_t end) {
    Taps<T, ND> taps;
    for (int64_t q = begin; q < end; ++q) {
      const int64_t b = q / P, p = q % P;
      resolve<T, ND>(g, grid + q * ND, false, taps);
      const T* in_b = input + b * C * S;
      T* o = out + b * C * P + p;
      if (taps.nan) {
        for (int64_t c = 0; c < C; ++c) o[c * P] = std::numeric_limits<T>::quiet_NaN();
        continue;
      }
      for (int64_t c = 0; c < C; ++c) {
        const T* plane = in_b + c * S;
        T acc = 0;
        for (int k = 0; k < taps.count; ++k)
          if (taps.offset[k] >= 0) acc += plane[taps.offset[k]] * taps.weight[k];
        o[c * P] = acc;
      }
    }
  });
}

template <class T, int ND>
void backward_impl(const GridSampleGeom& g, const T* grad_out, const T* input, const T* grid,
                   T* grad_input, T* grad_grid) {
  const int64_t P = spatial(g.out, ND), S = spatial(g.in, ND), C = g.c;
  if (grad_input) std::memset(grad_input, 0, sizeof(T) * size_t(g.n * C * S));
  const bool want_grid = grad_grid != nullptr && g.mode != GridMode::Nearest;
  if (grad_grid) std::memset(grad_grid, 0, sizeof(T) * size_t(g.n * P * ND));
  // One batch element per task: the input gradient of a batch element is scattered into
  // by all of its points, so points of one element never run on two threads.
  parallel_for(0, g.n, 1, [&](int64_t begin, int64_t end) {
    Taps<T, ND> taps;
    for (int64_t b = begin; b < end; ++b) {
      for (int64_t p = 0; p < P; ++p) {
        const int64_t q = b * P + p;
        resolve<T, ND>(g, grid + q * ND, want_grid, taps);
        if (taps.nan) {  // the output was NaN: no input gradient, a NaN grid gradient
          if (want_grid)
            for (int d = 0; d < ND; ++d)
              grad_grid[q * ND + d] = std::numeric_limits<T>::quiet_NaN();
          continue;
        }
        const T* go = grad_out + b * C * P + p;
        T gcoord[ND] = {};
        for (int64_t c = 0; c < C; ++c) {
          const T gv = go[c * P];
          const int64_t plane = (b * C + c) * S;
          for (int k = 0; k < taps.count; ++k) {
            const int64_t off = taps.offset[k];
            if (off < 0) continue;
            if (grad_input) grad_input[plane + off] += taps.weight[k] * gv;
            if (want_grid) {
              const T v = input[plane + off] * gv;
              for (int d = 0; d < ND; ++d) gcoord[d] += v * taps.dweight[k][d];
            }
          }
        }
        if (want_grid)
          for (int d = 0; d < ND; ++d) grad_grid[q * ND + (ND - 1 - d)] = gcoord[d];
      }
    }
  });
}

template <class T>
void forward_dispatch(const GridSampleGeom& g, const char* input, const char* grid, char* out) {
  const T* in = reinterpret_cast<const T*>(input);
  const T* gr = reinterpret_cast<const T*>(grid);
  T* o = reinterpret_cast<T*>(out);
  if (g.ndim == 2) forward_impl<T, 2>(g, in, gr, o);
  else forward_impl<T, 3>(g, in, gr, o);
}

template <class T>
void backward_dispatch(const GridSampleGeom& g, const char* grad_out, const char* input,
                       const char* grid, char* grad_input, char* grad_grid) {
  const T* go = reinterpret_cast<const T*>(grad_out);
  const T* in = reinterpret_cast<const T*>(input);
  const T* gr = reinterpret_cast<const T*>(grid);
  T* gi = reinterpret_cast<T*>(grad_input);
  T* gg = reinterpret_cast<T*>(grad_grid);
  if (g.ndim == 2) backward_impl<T, 2>(g, go, in, gr, gi, gg);
  else backward_impl<T, 3>(g, go, in, gr, gi, gg);
}

}  // namespace

void grid_sample_forward(DType dt, const GridSampleGeom& g, const char* input, const char* grid,
                         char* out) {
  if (dt == DType::Float64) forward_dispatch<double>(g, input, grid, out);
  else forward_dispatch<float>(g, input, grid, out);
}

void grid_sample_backward(DType dt, const GridSampleGeom& g, const char* grad_out,
                          const char* input, const char* grid, char* grad_input, char* grad_grid) {
  if (dt == DType::Float64)
    backward_dispatch<double>(g, grad_out, input, grid, grad_input, grad_grid);
  else backward_dispatch<float>(g, grad_out, input, grid, grad_input, grad_grid);
}

}  // namespace ember::kernels
