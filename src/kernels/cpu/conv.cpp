#include "kernels/cpu/conv.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/cpu/blas.h"
#include "kernels/cpu/conv_direct.h"
#include "kernels/cpu/conv_dnnl.h"
#include "kernels/cpu/parallel.h"

namespace ember::kernels {
namespace {

// Multiply-adds worth a thread of their own (a whole image's GEMM below this is cheaper to
// run serially than to wake a second thread for).
constexpr double kConvGrain = double(1 << 18);
// At most this many partial sums of grad_weight (Note [Deterministic convolution gradients]),
// and at most this many elements in all of them together.
constexpr int64_t kMaxBlocks = 16;
constexpr int64_t kPartialBudget = int64_t(1) << 23;
// im2col / col2im elements worth a thread (when they are not already inside one).
constexpr int64_t kColGrain = int64_t(1) << 15;

struct Sizes {
  int64_t kg, kt, p, og;  // per-group and total column rows, output pixels, outputs per group
};
Sizes sizes_of(const Conv2dGeom& g) {
  const int64_t cg = g.c / g.groups;
  const int64_t taps = g.kd * g.kh * g.kw;
  return {cg * taps, g.c * taps, g.od * g.ho * g.wo, g.o / g.groups};
}

// A 2-d convolution (or a 3-d one that is one: depth 1 throughout).
bool flat(const Conv2dGeom& g) { return g.d == 1 && g.kd == 1 && g.od == 1 && g.pd == 0; }

// A 1x1 kernel with stride 1 and no padding: the columns are the image itself.
bool pointwise(const Conv2dGeom& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 && g.kd == 1 &&
         g.sd == 1 && g.pd == 0;
}
// ... and the image is a row-major (C, D * H * W) matrix that BLAS can read in place.
bool direct_input(const Conv2dGeom& g) {
  const int64_t p = g.d * g.h * g.w;
  return pointwise(g) && (g.w == 1 || g.in_stride[3] == 1) && (g.h == 1 || g.in_stride[2] == g.w) &&
         (g.d == 1 || g.in_stride_d == g.h * g.w) &&
         (g.c == 1 || (g.in_stride[1] >= p && g.in_stride[1] <= INT32_MAX));
}

int64_t div_up(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// The output columns [lo, hi) whose input column ow * sw + off lies inside [0, w).
void valid_cols(int64_t off, int64_t sw, int64_t w, int64_t wo, int64_t& lo, int64_t& hi) {
  lo = std::min(off >= 0 ? 0 : div_up(-off, sw), wo);
  hi = std::clamp<int64_t>(w - off <= 0 ? 0 : div_up(w - off, sw), lo, wo);
}

// One output row of im2col: d[ow] = s[(ow * stride + off) * step] for ow in [lo, hi), zero
// elsewhere. Rows are short (the output width), so plain loops beat memcpy / memset calls;
// the attribute keeps GCC from turning the loops back into those calls.
template <class T>
[[gnu::optimize("no-tree-loop-distribute-patterns")]] inline void patch_row(
    T* __restrict d, const T* __restrict s, int64_t wo, int64_t lo, int64_t hi, int64_t off,
    int64_t stride, int64_t step) {
  for (int64_t ow = 0; ow < lo; ++ow) d[ow] = T(0);
  if (stride == 1 && step == 1) {
    const T* __restrict src = s + off;
    for (int64_t ow = lo; ow < hi; ++ow) d[ow] = src[ow];
  } else {
    for (int64_t ow = lo; ow < hi; ++ow) d[ow] = s[(ow * stride + off) * step];
  }
  for (int64_t ow = hi; ow < wo; ++ow) d[ow] = T(0);
}

// Stride 1, contiguous rows and an output as wide as the input ("same" padding): the slab
// of col for one (c, ki, kj) is then one contiguous run of the input plane shifted by
// `off`, so it is copied in one go and only the padded columns are zeroed afterwards.
bool same_width(const Conv2dGeom& g) {
  return g.sh == 1 && g.sw == 1 && g.wo == g.w && g.in_stride[3] == 1 &&
         (g.h == 1 || g.in_stride[2] == g.w);
}

template <class T>
void slab_same_width(const Conv2dGeom& g, const T* plane, T* dst, int64_t ki, int64_t off,
                     int64_t lo, int64_t hi) {
  const int64_t wo = g.wo, shift = ki * g.dh - g.ph;  // input row = output row + shift
  const int64_t r0 = std::clamp<int64_t>(-shift, 0, g.ho), r1 = std::clamp(g.h - shift, r0, g.ho);
  std::fill(dst, dst + r0 * wo, T(0));
  std::fill(dst + r1 * wo, dst + g.ho * wo, T(0));
  if (r1 == r0) return;
  T* d = dst + r0 * wo;
  // d[j] = plane[(r0 + shift) * w + off + j] for j in [lo, end): all inside the valid rows
  const int64_t end = (r1 - r0 - 1) * wo + hi;
  if (end > lo)
    std::memcpy(d + lo, plane + (r0 + shift) * g.w + off + lo, size_t(end - lo) * sizeof(T));
  for (int64_t r = 0; r < r1 - r0; ++r) {  // the columns that copy took from a neighbouring row
    for (int64_t j = 0; j < lo; ++j) d[r * wo + j] = T(0);
    for (int64_t j = std::max(hi, lo); j < wo; ++j) d[r * wo + j] = T(0);
  }
}

// The input plane (depth iz = oz * sd - pd + kz * dd) that output plane oz reads for kernel
// depth tap kz, or -1 in the depth padding. A 2-d convolution always reads plane 0.
inline int64_t depth_of(const Conv2dGeom& g, int64_t oz, int64_t kz) {
  const int64_t iz = oz * g.sd - g.pd + kz * g.dd;
  return iz >= 0 && iz < g.d ? iz : -1;
}

// Calls f(row, kz, ki, off, lo, hi) for each kernel tap (kz, ki, kj) of channel c: row is the
// tap's row of col ((c, kz, ki, kj) flattened), off = kj * dw - pw its column shift, and
// [lo, hi) the output columns whose input column lies inside the image (valid_cols).
template <class F>
void for_each_tap(const Conv2dGeom& g, int64_t c, F&& f) {
  for (int64_t kz = 0; kz < g.kd; ++kz)
    for (int64_t ki = 0; ki < g.kh; ++ki)
      for (int64_t kj = 0; kj < g.kw; ++kj) {
        const int64_t off = kj * g.dw - g.pw;
        int64_t lo, hi;
        valid_cols(off, g.sw, g.w, g.wo, lo, hi);
        f(((c * g.kd + kz) * g.kh + ki) * g.kw + kj, kz, ki, off, lo, hi);
      }
}

// col (kt, p) = the patches of one image: row (c, kz, ki, kj), column (oz, oh, ow) holds
// in[c, oz * sd - pd + kz * dd, oh * sh - ph + ki * dh, ow * sw - pw + kj * dw], zero
// outside the input (for a 2-d convolution: row (c, ki, kj), column (oh, ow)). Rows are ld
// apart (ld >= p: the batch-folded path puts several images side by side).
template <class T>
void im2col(const Conv2dGeom& g, const T* in, T* col, int64_t ld) {
  const int64_t hwo = g.ho * g.wo, p = g.od * hwo;
  const int64_t sc = g.in_stride[1], sh = g.in_stride[2], sw = g.in_stride[3];
  const int64_t grain =
      std::max<int64_t>(1, kColGrain / std::max<int64_t>(1, g.kd * g.kh * g.kw * p));
  const bool slabs = same_width(g);
  parallel_for(0, g.c, grain, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      for_each_tap(g, c,
                   [&](int64_t row, int64_t kz, int64_t ki, int64_t off, int64_t lo, int64_t hi) {
                     T* slab = col + row * ld;
                     for (int64_t oz = 0; oz < g.od; ++oz) {
                       T* dst = slab + oz * hwo;
                       const int64_t iz = depth_of(g, oz, kz);
                       if (iz < 0) {  // a plane of depth padding
                         std::fill(dst, dst + hwo, T(0));
                         continue;
                       }
                       const T* plane = in + c * sc + iz * g.in_stride_d;
                       if (slabs) {
                         slab_same_width(g, plane, dst, ki, off, lo, hi);
                         continue;
                       }
                       for (int64_t oh = 0; oh < g.ho; ++oh) {
                         const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
                         const bool inside = ih >= 0 && ih < g.h;
                         // a row of padding: an empty valid range, so all zeros
                         patch_row(dst + oh * g.wo, plane + (inside ? ih * sh : 0), g.wo,
                                   inside ? lo : g.wo, inside ? hi : g.wo, off, g.sw, sw);
                       }
                     }
                   });
    }
  });
}

// The adjoint of slab_same_width: one contiguous add of the slab into the plane, after
// zeroing the slab's padded columns (they would otherwise land on a neighbouring row).
template <class T>
void slab_add_same_width(const Conv2dGeom& g, T* src, T* plane, int64_t ki, int64_t off, int64_t lo,
                         int64_t hi) {
  const int64_t wo = g.wo, shift = ki * g.dh - g.ph;
  const int64_t r0 = std::clamp<int64_t>(-shift, 0, g.ho), r1 = std::clamp(g.h - shift, r0, g.ho);
  if (r1 == r0) return;
  T* __restrict s = src + r0 * wo;
  for (int64_t r = 0; r < r1 - r0; ++r) {
    for (int64_t j = 0; j < lo; ++j) s[r * wo + j] = T(0);
    for (int64_t j = std::max(hi, lo); j < wo; ++j) s[r * wo + j] = T(0);
  }
  const int64_t end = (r1 - r0 - 1) * wo + hi;
  T* __restrict d = plane + (r0 + shift) * g.w + off + lo;
  for (int64_t j = 0; j < end - lo; ++j) d[j] += s[lo + j];
}

// The adjoint of im2col: img (contiguous (C, D, H, W)) = sum of the patches in col (whose
// padded entries it may overwrite). Each channel's rows only touch that channel's planes,
// so channels split across threads safely.
template <class T>
void col2im(const Conv2dGeom& g, T* col, T* img) {
  const int64_t hwo = g.ho * g.wo, p = g.od * hwo, hw = g.h * g.w, dhw = g.d * hw;
  const int64_t grain =
      std::max<int64_t>(1, kColGrain / std::max<int64_t>(1, g.kd * g.kh * g.kw * p));
  const bool slabs = g.sh == 1 && g.sw == 1 && g.wo == g.w;  // img's rows are contiguous
  parallel_for(0, g.c, grain, [&](int64_t c0, int64_t c1) {
    std::fill(img + c0 * dhw, img + c1 * dhw, T(0));
    for (int64_t c = c0; c < c1; ++c) {
      for_each_tap(g, c,
                   [&](int64_t row, int64_t kz, int64_t ki, int64_t off, int64_t lo, int64_t hi) {
                     T* slab = col + row * p;
                     for (int64_t oz = 0; oz < g.od; ++oz) {
                       const int64_t iz = depth_of(g, oz, kz);
                       if (iz < 0) continue;
                       T* src = slab + oz * hwo;
                       T* plane = img + c * dhw + iz * hw;
                       if (slabs) {
                         slab_add_same_width(g, src, plane, ki, off, lo, hi);
                         continue;
                       }
                       for (int64_t oh = 0; oh < g.ho; ++oh) {
                         const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
                         if (ih < 0 || ih >= g.h) continue;
                         const T* __restrict s = src + oh * g.wo;
                         T* __restrict d = plane + ih * g.w + off;
                         if (g.sw == 1) {
                           for (int64_t ow = lo; ow < hi; ++ow) d[ow] += s[ow];
                         } else {
                           for (int64_t ow = lo; ow < hi; ++ow) d[ow * g.sw] += s[ow];
                         }
                       }
                     }
                   });
    }
  });
}

const Scalar kOne{int64_t(1)}, kZero{int64_t(0)};

template <class T>
void forward_typed(const Conv2dGeom& g, const Conv2dPlan& plan, const T* in, const T* w,
                   const T* bias, T* out, T* ws) {
  const Sizes s = sizes_of(g);
  const DType dt = dtype_of<T>::value;
  const bool direct = direct_input(g);
  for_slots(plan.slots, g.n, [&](int64_t slot, int64_t i0, int64_t i1) {
    T* col = ws + slot * plan.col;
    for (int64_t i = i0; i < i1; ++i) {
      const T* img = in + i * g.in_stride[0];
      T* o = out + i * g.o * s.p;
      if (bias) {  // the GEMM then adds onto the bias (beta = 1): no second pass
        for (int64_t k = 0; k < g.o; ++k) std::fill(o + k * s.p, o + (k + 1) * s.p, bias[k]);
      }
      if (!direct) im2col(g, img, col, s.p);
      const int64_t ldb = direct ? (g.c == 1 ? s.p : g.in_stride[1]) : s.p;
      for (int64_t gr = 0; gr < g.groups; ++gr) {
        const T* b = direct ? img + gr * s.kg * ldb : col + gr * s.kg * s.p;
        gemm(dt, s.og, s.p, s.kg, kOne,
             MatRef{w + gr * s.og * s.kg, false, std::max<int64_t>(s.kg, 1)}, MatRef{b, false, ldb},
             bias ? kOne : kZero, o + gr * s.og * s.p, s.p);
      }
    }
  });
}

// Sum of each output channel of one image's gradient (grad_bias), in double.
template <class T>
void add_channel_sums(const T* go, int64_t o, int64_t p, double* acc) {
  for (int64_t k = 0; k < o; ++k) {
    const T* row = go + k * p;
    double s = 0;
    for (int64_t j = 0; j < p; ++j) s += double(row[j]);
    acc[k] += s;
  }
}

template <class T>
void backward_typed(const Conv2dGeom& g, const Conv2dPlan& plan, const T* in, const T* w,
                    const T* gout, T* gin, T* gw, T* gb, T* ws) {
  const Sizes s = sizes_of(g);
  const DType dt = dtype_of<T>::value;
  const bool direct = direct_input(g), direct_gin = pointwise(g);
  const int64_t wsize = g.o * s.kg;
  T* partials = ws + plan.slots * plan.col;  // grad_weight of blocks 1.. (block 0: gw itself)
  std::vector<double> bias_acc(gb ? size_t(plan.blocks * g.o) : 0, 0.0);
  if (g.n == 0) {
    if (gw) std::fill(gw, gw + wsize, T(0));
    if (gb) std::fill(gb, gb + g.o, T(0));
    return;
  }
  auto run_image = [&](int64_t i, T* col, T* gw_b, bool first, double* gb_b) {
    const T* go = gout + i * g.o * s.p;
    if (gw) {  // gw_g (og, kg) += go_g (og, p) @ col_g^T (p, kg)
      const T* img = in + i * g.in_stride[0];
      if (!direct) im2col(g, img, col, s.p);
      const int64_t ld = direct ? (g.c == 1 ? s.p : g.in_stride[1]) : s.p;
      for (int64_t gr = 0; gr < g.groups; ++gr) {
        const T* cg = direct ? img + gr * s.kg * ld : col + gr * s.kg * s.p;
        gemm(dt, s.og, s.kg, s.p, kOne, MatRef{go + gr * s.og * s.p, false, s.p},
             MatRef{cg, true, ld}, first ? kZero : kOne, gw_b + gr * s.og * s.kg,
             std::max<int64_t>(s.kg, 1));
      }
    }
    if (gb) add_channel_sums(go, g.o, s.p, gb_b);
    if (gin) {  // col_g (kg, p) = w_g^T (kg, og) @ go_g (og, p), then col2im
      T* gi = gin + i * g.c * g.d * g.h * g.w;
      for (int64_t gr = 0; gr < g.groups; ++gr) {
        T* dst = direct_gin ? gi + gr * s.kg * s.p : col + gr * s.kg * s.p;
        gemm(dt, s.kg, s.p, s.og, kOne,
             MatRef{w + gr * s.og * s.kg, true, std::max<int64_t>(s.kg, 1)},
             MatRef{go + gr * s.og * s.p, false, s.p}, kZero, dst, s.p);
      }
      if (!direct_gin) col2im(g, col, gi);
    }
  };
  const int64_t nb = plan.blocks;
  for_slots(plan.slots, nb, [&](int64_t slot, int64_t b0, int64_t b1) {
    T* col = ws + slot * plan.col;
    for (int64_t b = b0; b < b1; ++b) {
      T* gw_b = b == 0 ? gw : partials + (b - 1) * wsize;
      double* gb_b = gb ? bias_acc.data() + b * g.o : nullptr;
      for (int64_t i = b * g.n / nb, e = (b + 1) * g.n / nb; i < e; ++i)
        run_image(i, col, gw_b, i == b * g.n / nb, gb_b);
    }
  });
  if (gw && nb > 1) {  // partials in block order: the same sum for any thread count
    parallel_for(0, wsize, kGrain, [&](int64_t j0, int64_t j1) {
      for (int64_t b = 1; b < nb; ++b) {
        const T* __restrict part = partials + (b - 1) * wsize;
        for (int64_t j = j0; j < j1; ++j) gw[j] += part[j];
      }
    });
  }
  if (gb) {
    for (int64_t k = 0; k < g.o; ++k) {
      double acc = 0;
      for (int64_t b = 0; b < nb; ++b) acc += bias_acc[size_t(b * g.o + k)];
      gb[k] = T(acc);
    }
  }
}

// No inf or NaN in x: an all-ones exponent, tested on the bits (an integer OR the compiler
// vectorizes; a float test would not be, and this scan runs on every folded forward).
template <class T>
bool all_finite(const T* x, int64_t n) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr U exp = sizeof(T) == 4 ? U(0x7f800000u) : U(0x7ff0000000000000ull);
  U bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    U b;
    std::memcpy(&b, x + i, sizeof(T));
    bad |= U((b & exp) == exp);
  }
  return bad == 0;
}

// all_finite on n elements of a float32 or float64 buffer.
bool finite(DType dt, const void* x, int64_t n) {
  return visit_floating(dt, [&]<class T>() { return all_finite(static_cast<const T*>(x), n); });
}

// Note [Batch-folded convolution]: a convolution onto a small image (DCGAN's 4x4 stride-2
// layers onto 8x8 and 4x4 outputs) gives the per-image GEMMs of the im2col path only p = 16-64
// columns each, where BLAS runs far below its peak. Here the columns of nb images sit side by
// side, so each pass is one GEMM with nb * p columns (N below):
// - forward:     res (O, N) = w (O, K) @ col (K, N), then res -> out (n, O, p) with the bias;
// - grad_weight: gw (O, K) (+)= gop (O, N) @ col^T, gop = grad_out laid out as (O, n, p);
// - grad_input:  colt (N, K) = gop^T @ w, then each image's rows of colt scatter-added into
//                grad_input (col2im_rows). Computing colt rather than its transpose keeps
//                the GEMM's A operand at N rows (BLAS's fast case, Note [float32 gemm]).
// The chunks of nb images are fixed by the geometry, and grad_weight adds them in order;
// each GEMM's own summation order is BLAS's, deterministic for a given thread count (as on
// oneDNN, Note [Convolution on oneDNN]).
// Non-finite values: the GEMMs multiply col's padded zeros by every weight (forward) and by
// every grad_out value (grad_weight), where a convolution adds nothing: an inf there would
// put NaN where torch has a number. So the forward with a non-finite weight and grad_weight
// with a non-finite grad_out run oneDNN's primitives instead (when it can: a dense input, a
// build with oneDNN, EMBER_CONV_DNNL not 0). grad_input needs no check: col2im_rows keeps
// only the products of taps inside the image.
// col elements per chunk of images: 2 MB, about a core's L2, so that the GEMM reads col back
// from the cache im2col just wrote it to (in a training step, with every other layer's data in
// between, 16 MB chunks made DCGAN's D and G 0-4% slower than these).
constexpr int64_t kFoldColBudget = int64_t(1) << 19;

int64_t fold_images(const Conv2dGeom& g) {
  const Sizes s = sizes_of(g);
  return std::clamp<int64_t>(kFoldColBudget / std::max<int64_t>(1, s.kt * s.p), 1,
                             std::max<int64_t>(1, g.n));
}

// img (contiguous (C, H, W)) = the adjoint of im2col for one image whose patches are the p
// rows of colt (row q = output pixel (oh, ow), ldt apart; column (c, ki, kj)): each row is
// added into zero-padded planes xp (as fold_im2col's, padded_planes elements) without a bounds
// test, then the planes' interior is copied out; channels split across threads.
template <class T>
void col2im_rows(const Conv2dGeom& g, const T* colt, int64_t ldt, T* img, T* xp) {
  const int64_t hp = (g.ho - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  const int64_t wp = (g.wo - 1) * g.sw + (g.kw - 1) * g.dw + 1, ps = hp * wp;
  const int64_t taps = g.kh * g.kw, hw = g.h * g.w;
  const int64_t grain = std::max<int64_t>(1, kColGrain / std::max<int64_t>(1, taps * g.ho * g.wo));
  parallel_for(0, g.c, grain, [&](int64_t c0, int64_t c1) {
    std::fill(xp + c0 * ps, xp + c1 * ps, T(0));
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        const T* __restrict row = colt + (oh * g.wo + ow) * ldt;
        const int64_t at = oh * g.sh * wp + ow * g.sw;
        for (int64_t c = c0; c < c1; ++c) {
          T* __restrict plane = xp + c * ps + at;
          const T* __restrict r = row + c * taps;
          for (int64_t ki = 0; ki < g.kh; ++ki)
            for (int64_t kj = 0; kj < g.kw; ++kj)
              plane[ki * g.dh * wp + kj * g.dw] += r[ki * g.kw + kj];
        }
      }
    for (int64_t c = c0; c < c1; ++c)  // input pixels no tap reads get a zero gradient
      for (int64_t ih = 0; ih < g.h; ++ih) {
        T* __restrict d = img + c * hw + ih * g.w;
        const int64_t r = ih + g.ph;
        for (int64_t iw = 0; iw < g.w; ++iw) {
          const int64_t x = iw + g.pw;
          d[iw] = r < hp && x < wp ? xp[c * ps + r * wp + x] : T(0);
        }
      }
  });
}

// The folded path's im2col of one image: the image is first copied into zero-padded planes xp
// (c, hp, wp: padded_planes elements), then every row of col is a gather without a bounds test
// (im2col's per-row ranges cost more than the copies on DCGAN's rows of 4 pixels: 1.5 ms of
// D4's 8 ms forward). Needs unit column strides; im2col runs the rest.
int64_t padded_planes(const Conv2dGeom& g) {
  return g.c * ((g.ho - 1) * g.sh + (g.kh - 1) * g.dh + 1) *
         ((g.wo - 1) * g.sw + (g.kw - 1) * g.dw + 1);
}

template <class T>
void fold_im2col(const Conv2dGeom& g, const T* in, T* col, int64_t ld, T* xp) {
  if (g.w > 1 && g.in_stride[3] != 1) return im2col(g, in, col, ld);
  const int64_t hp = (g.ho - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  const int64_t wp = (g.wo - 1) * g.sw + (g.kw - 1) * g.dw + 1, ps = hp * wp;
  const int64_t grain =
      std::max<int64_t>(1, kColGrain / std::max<int64_t>(1, g.kh * g.kw * g.ho * g.wo));
  parallel_for(0, g.c, grain, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      T* plane = xp + c * ps;
      for (int64_t r = 0; r < hp; ++r) {
        T* __restrict d = plane + r * wp;
        const int64_t ih = r - g.ph;
        if (ih < 0 || ih >= g.h) {
          std::fill(d, d + wp, T(0));
          continue;
        }
        const T* __restrict s = in + c * g.in_stride[1] + ih * g.in_stride[2];
        for (int64_t x = 0; x < wp; ++x) {
          const int64_t iw = x - g.pw;
          d[x] = iw >= 0 && iw < g.w ? s[iw] : T(0);
        }
      }
      for (int64_t ki = 0; ki < g.kh; ++ki)
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          T* __restrict d = col + ((c * g.kh + ki) * g.kw + kj) * ld;
          const T* __restrict s = plane + ki * g.dh * wp + kj * g.dw;
          for (int64_t oh = 0; oh < g.ho; ++oh, d += g.wo) {
            const T* __restrict row = s + oh * g.sh * wp;
            for (int64_t ow = 0; ow < g.wo; ++ow) d[ow] = row[ow * g.sw];
          }
        }
    }
  });
}

template <class T>
void folded_forward(const Conv2dGeom& g, int64_t nb, const T* in, const T* w, const T* bias, T* out,
                    T* ws) {
  const Sizes s = sizes_of(g);
  const DType dt = dtype_of<T>::value;
  T* col = ws;
  T* res = ws + s.kt * nb * s.p;
  T* xp = res + g.o * nb * s.p;
  for (int64_t i0 = 0; i0 < g.n; i0 += nb) {
    const int64_t m = std::min(nb, g.n - i0), N = m * s.p;
    for (int64_t i = 0; i < m; ++i)
      fold_im2col(g, in + (i0 + i) * g.in_stride[0], col + i * s.p, N, xp);
    gemm(dt, g.o, N, s.kt, kOne, MatRef{w, false, s.kt}, MatRef{col, false, N}, kZero, res, N);
    parallel_for(0, m * g.o, std::max<int64_t>(1, kGrain / s.p), [&](int64_t j0, int64_t j1) {
      for (int64_t j = j0; j < j1; ++j) {  // j = (image, channel) of out
        const int64_t i = j / g.o, o = j % g.o;
        const T* __restrict src = res + o * N + i * s.p;
        T* __restrict dst = out + ((i0 + i) * g.o + o) * s.p;
        const T b = bias ? bias[o] : T(0);
        for (int64_t q = 0; q < s.p; ++q) dst[q] = src[q] + b;
      }
    });
  }
}

template <class T>
void folded_backward(const Conv2dGeom& g, int64_t nb, const T* in, const T* w, const T* gout,
                     T* gin, T* gw, T* gb, T* ws) {
  const Sizes s = sizes_of(g);
  const DType dt = dtype_of<T>::value;
  T* col = ws;
  T* gop = ws + s.kt * nb * s.p;
  T* xp = gop + g.o * nb * s.p;
  std::vector<double> bias_acc(gb ? size_t(g.o) : 0, 0.0);
  if (gw && g.n == 0) std::fill(gw, gw + g.o * s.kt, T(0));
  for (int64_t i0 = 0; i0 < g.n; i0 += nb) {
    const int64_t m = std::min(nb, g.n - i0), N = m * s.p;
    const T* go = gout + i0 * g.o * s.p;
    if (gb) {
      for (int64_t i = 0; i < m; ++i)
        add_channel_sums(go + i * g.o * s.p, g.o, s.p, bias_acc.data());
    }
    if (!gw && !gin) continue;
    parallel_for(0, m * g.o, std::max<int64_t>(1, kGrain / s.p), [&](int64_t j0, int64_t j1) {
      for (int64_t j = j0; j < j1; ++j) {  // j = (image, channel) of grad_out
        const int64_t i = j / g.o, o = j % g.o;
        std::copy(go + j * s.p, go + (j + 1) * s.p, gop + o * N + i * s.p);
      }
    });
    if (gw) {
      for (int64_t i = 0; i < m; ++i)
        fold_im2col(g, in + (i0 + i) * g.in_stride[0], col + i * s.p, N, xp);
      gemm(dt, g.o, s.kt, N, kOne, MatRef{gop, false, N}, MatRef{col, true, N},
           i0 == 0 ? kZero : kOne, gw, s.kt);
    }
    if (gin) {
      gemm(dt, N, s.kt, g.o, kOne, MatRef{gop, true, N}, MatRef{w, false, s.kt}, kZero, col, s.kt);
      const int64_t chw = g.c * g.h * g.w;
      for (int64_t i = 0; i < m; ++i)
        col2im_rows(g, col + i * s.p * s.kt, s.kt, gin + (i0 + i) * chw, xp);
    }
  }
  if (gb) {
    for (int64_t k = 0; k < g.o; ++k) gb[k] = T(bias_acc[size_t(k)]);
  }
}

// EMBER_CONV_FOLD: -1 unset, 0 off, 1 every geometry the folded path runs. Read at every call
// (tens of nanoseconds against a convolution's microseconds), so that one process can time or
// test both routes in turn.
int fold_override() {
  const char* e = std::getenv("EMBER_CONV_FOLD");
  return e && *e ? (e[0] == '0' ? 0 : 1) : -1;
}

// The geometries the policy folds (measured against oneDNN, docs/performance.md "Batch-folded
// convolutions"): at most kFoldMaxPixels output pixels per image, kernels of at least
// kFoldMinTaps taps (DCGAN's 4x4: 3x3 stride-1 convolutions onto 4x4 and 8x8 stayed faster on
// oneDNN), at least kFoldMinChannels input and output channels (onto one channel, DCGAN's last
// D layer, the GEMM degenerates to a row: 6x slower).
constexpr int64_t kFoldMaxPixels = 16, kFoldMinTaps = 16, kFoldMinChannels = 8;

}  // namespace

bool conv2d_folded_preferred(DType dt, const Conv2dGeom& g) {
  const int o = fold_override();
  const bool can = (dt == DType::Float32 || dt == DType::Float64) && flat(g) && g.groups == 1 &&
                   !pointwise(g) && o != 0;
  if (!can || o == 1) return can;
  return dt == DType::Float32 && g.n >= 2 && g.ho * g.wo <= kFoldMaxPixels &&
         g.kh * g.kw >= kFoldMinTaps && g.c >= kFoldMinChannels && g.o >= kFoldMinChannels;
}

Conv2dPlan conv2d_plan(DType dt, const Conv2dGeom& g, bool backward, bool reduce_batch) {
  const Sizes s = sizes_of(g);
  Conv2dPlan plan;
  const double work = double(g.n) * double(g.o) * double(std::max<int64_t>(s.kg, 1)) * double(s.p);
  plan.slots = std::clamp<int64_t>(int64_t(std::min(work / kConvGrain, 1e9)), 1,
                                   std::max<int64_t>(1, std::min<int64_t>(g.n, num_threads())));
  const int64_t col = plan.col = direct_input(g) ? 0 : s.kt * s.p;
  if (reduce_batch) {
    const int64_t wsize = std::max<int64_t>(1, g.o * s.kg);
    plan.blocks = std::clamp<int64_t>(std::min(kMaxBlocks, kPartialBudget / wsize), 1,
                                      std::max<int64_t>(1, g.n));
    plan.slots = std::min(plan.slots, plan.blocks);
    plan.workspace = plan.slots * col + (plan.blocks - 1) * g.o * s.kg;
  } else {  // every image is its own block: nothing is summed over the batch
    plan.blocks = std::max<int64_t>(1, g.n);
    plan.workspace = plan.slots * col;
  }
  if (dt == DType::Float32 && flat(g) && conv2d_direct_ok(g)) {
    plan.direct = true;
    plan.direct_slots = conv2d_direct_slots(g);
    plan.workspace =
        std::max(plan.workspace, conv2d_direct_workspace(g, plan.direct_slots, backward));
  }
  // Note [Convolution on oneDNN]: the passes this call runs, each with its own reorders.
  const int64_t a =
      conv_dnnl_workspace(dt, g, backward ? ConvPass::BackwardData : ConvPass::Forward);
  const int64_t b = reduce_batch ? conv_dnnl_workspace(dt, g, ConvPass::BackwardWeights) : 0;
  if (a >= 0 && b >= 0) {
    plan.dnnl = true;
    plan.workspace = std::max({plan.workspace, a, b});
  }
  if (conv2d_folded_preferred(dt, g)) {  // Note [Batch-folded convolution]
    plan.folded = fold_images(g);
    plan.workspace = std::max(plan.workspace, plan.folded * s.p * (s.kt + g.o) + padded_planes(g));
  }
  return plan;
}

void conv2d_forward(DType dt, const Conv2dGeom& g, const Conv2dPlan& plan, const void* input,
                    const void* weight, const void* bias, void* out, void* workspace) {
  const int64_t wsize = g.o * (g.c / g.groups) * g.kd * g.kh * g.kw;
  const bool folded = plan.folded && (!plan.dnnl || finite(dt, weight, wsize));
  if (!folded && plan.dnnl && conv_dnnl_forward(dt, g, input, weight, bias, out, workspace)) return;
  if (plan.folded) {
    visit_floating(dt, [&]<class T>() {
      folded_forward<T>(g, plan.folded, static_cast<const T*>(input), static_cast<const T*>(weight),
                        static_cast<const T*>(bias), static_cast<T*>(out),
                        static_cast<T*>(workspace));
    });
    return;
  }
  if (plan.direct) {
    conv2d_direct_forward(g, plan.direct_slots, static_cast<const float*>(input),
                          static_cast<const float*>(weight), static_cast<const float*>(bias),
                          static_cast<float*>(out), static_cast<float*>(workspace));
    return;
  }
  visit_dtype(dt, [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      forward_typed<T>(g, plan, static_cast<const T*>(input), static_cast<const T*>(weight),
                       static_cast<const T*>(bias), static_cast<T*>(out),
                       static_cast<T*>(workspace));
    }
  });
}

void conv2d_backward(DType dt, const Conv2dGeom& g, const Conv2dPlan& plan, const void* input,
                     const void* weight, const void* grad_out, void* grad_input, void* grad_weight,
                     void* grad_bias, void* workspace) {
  if (plan.folded) {  // Note [Batch-folded convolution]: non-finite grad_out on oneDNN
    const bool gw_ok =
        !(grad_weight || grad_bias) || !plan.dnnl || finite(dt, grad_out, g.n * g.o * g.ho * g.wo);
    if (!gw_ok &&
        conv_dnnl_backward_weights(dt, g, input, grad_out, grad_weight, grad_bias, workspace))
      grad_weight = grad_bias = nullptr;
    visit_floating(dt, [&]<class T>() {
      folded_backward<T>(g, plan.folded, static_cast<const T*>(input),
                         static_cast<const T*>(weight), static_cast<const T*>(grad_out),
                         static_cast<T*>(grad_input), static_cast<T*>(grad_weight),
                         static_cast<T*>(grad_bias), static_cast<T*>(workspace));
    });
    return;
  }
  if (plan.dnnl) {  // what oneDNN declines (nothing, normally) falls through to ember's paths
    if (grad_input && conv_dnnl_backward_data(dt, g, weight, grad_out, grad_input, workspace))
      grad_input = nullptr;
    if ((grad_weight || grad_bias) &&
        conv_dnnl_backward_weights(dt, g, input, grad_out, grad_weight, grad_bias, workspace))
      grad_weight = grad_bias = nullptr;
    if (!grad_input && !grad_weight && !grad_bias) return;
  }
  if (plan.direct) {
    const float* w = static_cast<const float*>(weight);
    float* gin = static_cast<float*>(grad_input);
    const int64_t wsize = g.o * (g.c / g.groups) * g.kh * g.kw;  // direct: flat(g)
    if (gin && (!conv2d_direct_input_grad_ok(g) || !all_finite(w, wsize))) {
      backward_typed<float>(g, plan, static_cast<const float*>(input), w,
                            static_cast<const float*>(grad_out), gin, nullptr, nullptr,
                            static_cast<float*>(workspace));
      gin = nullptr;
    }
    conv2d_direct_backward(g, plan.direct_slots, static_cast<const float*>(input), w,
                           static_cast<const float*>(grad_out), gin,
                           static_cast<float*>(grad_weight), static_cast<float*>(grad_bias),
                           static_cast<float*>(workspace));
    return;
  }
  visit_floating(dt, [&]<class T>() {
    backward_typed<T>(g, plan, static_cast<const T*>(input), static_cast<const T*>(weight),
                      static_cast<const T*>(grad_out), static_cast<T*>(grad_input),
                      static_cast<T*>(grad_weight), static_cast<T*>(grad_bias),
                      static_cast<T*>(workspace));
  });
}

}  // namespace ember::kernels
