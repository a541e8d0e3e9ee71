// The SIMD micro-kernels of conv_hwy.h. Highway's foreach_target.h includes this file once
// per instruction set (HWY_TARGET_INCLUDE); the part under HWY_ONCE is compiled once and
// picks a copy at run time (HWY_DYNAMIC_DISPATCH). Same layout as nn_hwy.cpp.
#include <algorithm>
#include <cstdint>

#include "kernels/cpu/conv_hwy.h"
#include "kernels/cpu/elementwise_hwy.h"

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/conv_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace ember::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Only AVX2 and AVX-512 get real kernels; older targets are never dispatched to.
bool DirectTarget() { return HWY_TARGET <= HWY_AVX2; }

#if HWY_TARGET <= HWY_AVX2
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;
constexpr int64_t kLanes = int64_t(hn::MaxLanes(D()));
// Register tiles: accumulators + operands must fit the 32 (AVX-512) or 16 (AVX2) registers.
#if HWY_TARGET <= HWY_AVX3
constexpr int kFwdRows = 8, kFwdVecs = 3;  // 24 accumulators
constexpr int kGwAcc = 24, kGwVecs = 4;    // accumulators; output-channel vectors per tile
#else
constexpr int kFwdRows = 4, kFwdVecs = 3;  // 12 accumulators
constexpr int kGwAcc = 12, kGwVecs = 2;
#endif
static_assert(kPackRows % kFwdRows == 0 && kGridGroup % kLanes == 0 && kGridGroup == 16);

// The lanes of the vector at grid position q that are output pixels. Read through a word
// and a local copy: a uint8_t load may alias anything, which would make GCC keep the
// accumulators in memory.
HWY_INLINE hn::Mask<D> GridMask(D d, const uint16_t* valid, int64_t q) {
  const uint32_t word = uint32_t(valid[q / kGridGroup]) >> (q % kGridGroup);
  const uint8_t bytes[8] = {uint8_t(word), uint8_t(word >> 8)};
  return hn::LoadMaskBits(d, bytes);
}

// Rows [0, rv) x NV vectors of grid positions from q0: the taps' sum, stored compressed to
// the valid lanes (Note [Padded grid]).
template <int NV>
HWY_INLINE void FwdTile(const ConvDirectFwd& a, const float* HWY_RESTRICT xq,
                        const float* HWY_RESTRICT w, const float* bias, int64_t rv, int64_t q0,
                        float* out) {
  const D d;
  V acc[kFwdRows][NV];
  for (int r = 0; r < kFwdRows; ++r) {
    const V init = bias && r < rv ? hn::Set(d, bias[r]) : hn::Zero(d);
    for (int j = 0; j < NV; ++j) acc[r][j] = init;
  }
  const int32_t* HWY_RESTRICT koff = a.koff;
  for (int64_t k = 0; k < a.k; ++k) {
    const float* x = xq + koff[k];
    V xv[NV];
    for (int j = 0; j < NV; ++j) xv[j] = hn::LoadU(d, x + j * kLanes);
    const float* wk = w + k * kPackRows;
    for (int r = 0; r < kFwdRows; ++r) {
      const V wv = hn::Set(d, wk[r]);
      for (int j = 0; j < NV; ++j) acc[r][j] = hn::MulAdd(wv, xv[j], acc[r][j]);
    }
  }
  const int64_t p = a.ho * a.wo;
  for (int j = 0; j < NV; ++j) {
    const int64_t q = q0 + j * kLanes;
    const auto m = GridMask(d, a.valid, q);
    const size_t count = hn::CountTrue(d, m);
    if (count == 0) continue;
    const int64_t oh = q / a.wp, ow = q - oh * a.wp;
    float* dst = out + oh * a.wo + std::min(ow, a.wo);  // the first valid lane's pixel
    const uint32_t bits =
        (uint32_t(a.valid[q / kGridGroup]) >> (q % kGridGroup)) & ((1u << kLanes) - 1);
    if (count == size_t(kLanes)) {
      for (int r = 0; r < kFwdRows; ++r)
        if (r < rv) hn::StoreU(acc[r][j], d, dst + r * p);
    } else if ((bits & (bits + 1)) == 0) {  // the valid lanes come first: no compress
      for (int r = 0; r < kFwdRows; ++r)
        if (r < rv) hn::BlendedStore(acc[r][j], m, d, dst + r * p);
    } else {
      const auto first = hn::FirstN(d, count);
      for (int r = 0; r < kFwdRows; ++r)
        if (r < rv) hn::BlendedStore(hn::Compress(acc[r][j], m), first, d, dst + r * p);
    }
  }
}

void Forward(const ConvDirectFwd& a, const float* xp, float* out, int64_t t0, int64_t t1,
             int64_t g0, int64_t g1) {
  const int64_t p = a.ho * a.wo, nv = (g1 - g0) * (kGridGroup / kLanes);
  for (int64_t t = t0; t < t1; ++t) {
    for (int64_t half = 0; half < kPackRows; half += kFwdRows) {
      const int64_t row = t * kPackRows + half, rv = std::min<int64_t>(kFwdRows, a.rows - row);
      if (rv <= 0) break;
      const float* w = a.wpk + t * a.k * kPackRows + half;
      const float* bias = a.bias ? a.bias + row : nullptr;
      float* o = out + row * p;
      int64_t v = 0;
      for (; v + kFwdVecs <= nv; v += kFwdVecs) {
        const int64_t q = g0 * kGridGroup + v * kLanes;
        FwdTile<kFwdVecs>(a, xp + q, w, bias, rv, q, o);
      }
      const int64_t q = g0 * kGridGroup + v * kLanes;
      if (nv - v == 1) FwdTile<1>(a, xp + q, w, bias, rv, q, o);
      if (nv - v == 2) FwdTile<2>(a, xp + q, w, bias, rv, q, o);
    }
  }
}

// Taps [k0, k0 + kv) x output-channel vectors [v0, v0 + MV): acc[k][o] (+)= the sum over
// the chunk's images and output pixels of got[p][o] * xp[q(p) + koff[k]]. Vectors run
// along o (grad_out transposed), so each running sum stays one lane of one register: no
// horizontal sums, no masks (only real pixels are visited). Taps past the end repeat the
// last one and are not stored.
template <int MV, int NR>
HWY_INLINE void GwTile(const ConvDirectGw& a, int64_t v0, int64_t k0, int64_t kv) {
  const D d;
  V acc[MV][NR];
  for (int j = 0; j < NR; ++j) {
    const float* src = a.acc + (k0 + std::min<int64_t>(j, kv - 1)) * a.ldo + v0 * kLanes;
    for (int v = 0; v < MV; ++v)
      acc[v][j] = a.accumulate ? hn::LoadU(d, src + v * kLanes) : hn::Zero(d);
  }
  for (int64_t i = 0; i < a.images; ++i) {
    const float* xk[NR];
    for (int j = 0; j < NR; ++j)
      xk[j] = a.xp + i * a.xp_img + a.koff[k0 + std::min<int64_t>(j, kv - 1)];
    const float* g = a.got + i * a.go_img + v0 * kLanes;
    for (int64_t oh = 0; oh < a.ho; ++oh) {
      for (int64_t q = oh * a.wp, end = q + a.wo; q < end; ++q, g += a.ldo) {
        V gv[MV];
        for (int v = 0; v < MV; ++v) gv[v] = hn::LoadU(d, g + v * kLanes);
        for (int j = 0; j < NR; ++j) {
          const V b = hn::Set(d, xk[j][q]);
          for (int v = 0; v < MV; ++v) acc[v][j] = hn::MulAdd(gv[v], b, acc[v][j]);
        }
      }
    }
  }
  for (int j = 0; j < NR; ++j) {
    if (j >= kv) break;
    float* dst = a.acc + (k0 + j) * a.ldo + v0 * kLanes;
    for (int v = 0; v < MV; ++v) hn::StoreU(acc[v][j], d, dst + v * kLanes);
  }
}

// All output-channel vectors for taps [k0, k1): MV vectors at a time, NR taps per tile
// (a half- or quarter-width tile for a short tail).
template <int MV>
HWY_INLINE void GwTaps(const ConvDirectGw& a, int64_t v0, int64_t k0, int64_t k1) {
  constexpr int nr = kGwAcc / MV;
  for (int64_t k = k0; k < k1; k += nr) {
    const int64_t kv = std::min<int64_t>(nr, k1 - k);
    if (nr >= 4 && kv <= nr / 4) GwTile<MV, std::max(nr / 4, 1)>(a, v0, k, kv);
    else if (nr >= 2 && kv <= nr / 2) GwTile<MV, std::max(nr / 2, 1)>(a, v0, k, kv);
    else GwTile<MV, nr>(a, v0, k, kv);
  }
}

void GradWeight(const ConvDirectGw& a, int64_t k0, int64_t k1) {
  const int64_t nv = a.ldo / kLanes;
  for (int64_t v = 0; v < nv; v += kGwVecs) {
    switch (std::min<int64_t>(kGwVecs, nv - v)) {
      case 1: GwTaps<1>(a, v, k0, k1); break;
      case 2: GwTaps<2>(a, v, k0, k1); break;
      case 3: GwTaps<3>(a, v, k0, k1); break;
      default: GwTaps<kGwVecs>(a, v, k0, k1); break;
    }
  }
}

// dst (8 rows of stride ld) = the transpose of src (8 rows of stride ls), 8 x 8 floats.
HWY_INLINE void Transpose8(const float* src, int64_t ls, float* dst, int64_t ld) {
  const hn::FixedTag<float, 8> d;
  const hn::Repartition<double, decltype(d)> dd;
  using V8 = hn::Vec<decltype(d)>;
  V8 r[8], t[8], u[8];
  for (int i = 0; i < 8; ++i) r[i] = hn::LoadU(d, src + i * ls);
  for (int i = 0; i < 8; i += 2) {  // [a0 b0 a1 b1 | a4 b4 a5 b5], [a2 b2 a3 b3 | a6 b6 a7 b7]
    t[i] = hn::InterleaveLower(d, r[i], r[i + 1]);
    t[i + 1] = hn::InterleaveUpper(d, r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {  // [a0 b0 c0 d0 | a4 b4 c4 d4], ... [a3 b3 c3 d3 | a7 ...]
    for (int j = 0; j < 2; ++j) {
      const auto lo = hn::BitCast(dd, t[i + j]), hi = hn::BitCast(dd, t[i + j + 2]);
      u[i + 2 * j] = hn::BitCast(d, hn::InterleaveLower(dd, lo, hi));
      u[i + 2 * j + 1] = hn::BitCast(d, hn::InterleaveUpper(dd, lo, hi));
    }
  }
  for (int j = 0; j < 4; ++j) {
    hn::StoreU(hn::ConcatLowerLower(d, u[j + 4], u[j]), d, dst + j * ld);
    hn::StoreU(hn::ConcatUpperUpper(d, u[j + 4], u[j]), d, dst + (j + 4) * ld);
  }
}

void TransposeRows(int64_t rows, int64_t pix, int64_t ldo, const float* src, float* dst) {
  const int64_t r8 = rows / 8 * 8, p8 = pix / 8 * 8;
  for (int64_t r = 0; r < r8; r += 8) {
    for (int64_t p = 0; p < p8; p += 8) Transpose8(src + r * pix + p, pix, dst + p * ldo + r, ldo);
    for (int64_t p = p8; p < pix; ++p)
      for (int64_t i = r; i < r + 8; ++i) dst[p * ldo + i] = src[i * pix + p];
  }
  if (r8 == ldo) return;
  for (int64_t p = 0; p < pix; ++p) {
    for (int64_t i = r8; i < rows; ++i) dst[p * ldo + i] = src[i * pix + p];
    for (int64_t i = rows; i < ldo; ++i) dst[p * ldo + i] = 0.0f;
  }
}

void PadPlanes(int64_t channels, int64_t h, int64_t w, int64_t sc, int64_t sh, const float* src,
               int64_t top, int64_t left, int64_t hp, int64_t wp, int64_t ps, float* xp) {
  const D d;
  const V zero = hn::Zero(d);
  const int64_t r0 = std::clamp<int64_t>(top, 0, hp), r1 = std::clamp<int64_t>(top + h, r0, hp);
  const float* begin = src;  // the source's elements lie in [begin, end)
  const float* end = src + (channels - 1) * sc + (h - 1) * sh + w;
  // Column chunks outside: a chunk's masks are the same for every row. xp column x holds
  // source column x - left: lanes outside [left, left + w) read 0 (a masked load never
  // touches the memory of its masked lanes).
  for (int64_t x0 = 0; x0 < wp; x0 += kLanes) {
    const int64_t lo = std::clamp<int64_t>(left - x0, 0, kLanes);
    const int64_t hi = std::clamp<int64_t>(left + w - x0, lo, kLanes);
    const auto m = hn::AndNot(hn::FirstN(d, size_t(lo)), hn::FirstN(d, size_t(hi)));
    const V mv = hn::VecFromMask(d, m);
    const auto keep = hn::FirstN(d, size_t(std::min<int64_t>(kLanes, wp - x0)));
    const bool full = x0 + kLanes <= wp;
    for (int64_t c = 0; c < channels; ++c) {
      float* col = xp + c * ps + x0;
      const float* s = src + c * sc + (r0 - top) * sh - left + x0;
      for (int64_t r = 0; r < hp; ++r) {
        V v = zero;
        if (r >= r0 && r < r1 && hi > lo) {
          // A masked load is slow when its vector straddles cache lines (it nearly always
          // does here); a plain load and an AND are not, where the whole vector lies in
          // the source.
          const float* at = s + (r - r0) * sh;
          if (at >= begin && at + kLanes <= end) v = hn::And(hn::LoadU(d, at), mv);
          else v = hn::MaskedLoad(m, d, at);
        }
        if (full) hn::StoreU(v, d, col + r * wp);
        else hn::BlendedStore(v, keep, d, col + r * wp);
      }
    }
  }
  for (int64_t c = 0; c < channels; ++c) std::fill(xp + c * ps + hp * wp, xp + (c + 1) * ps, 0.0f);
}

void RowSums(const float* src, int64_t rows, int64_t len, double* acc) {
  const D d;
  for (int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * len;
    V a0 = hn::Zero(d), a1 = hn::Zero(d);
    int64_t i = 0;
    for (; i + 2 * kLanes <= len; i += 2 * kLanes) {
      a0 = hn::Add(a0, hn::LoadU(d, s + i));
      a1 = hn::Add(a1, hn::LoadU(d, s + i + kLanes));
    }
    for (; i + kLanes <= len; i += kLanes) a0 = hn::Add(a0, hn::LoadU(d, s + i));
    float t = hn::GetLane(hn::SumOfLanes(d, hn::Add(a0, a1)));
    for (; i < len; ++i) t += s[i];
    acc[r] += double(t);
  }
}
#else
void Forward(const ConvDirectFwd&, const float*, float*, int64_t, int64_t, int64_t, int64_t) {}
void GradWeight(const ConvDirectGw&, int64_t, int64_t) {}
void TransposeRows(int64_t, int64_t, int64_t, const float*, float*) {}
void RowSums(const float*, int64_t, int64_t, double*) {}
void PadPlanes(int64_t, int64_t, int64_t, int64_t, int64_t, const float*, int64_t, int64_t, int64_t,
               int64_t, int64_t, float*) {}
#endif

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::kernels {

HWY_EXPORT(DirectTarget);
HWY_EXPORT(Forward);
HWY_EXPORT(GradWeight);
HWY_EXPORT(TransposeRows);
HWY_EXPORT(RowSums);
HWY_EXPORT(PadPlanes);

bool conv_direct_available() {
  // Asking elementwise_hwy.cpp first applies EMBER_DISABLE_SIMD / EMBER_SIMD_TARGET.
  static const bool yes = simd_unary_enabled(UnaryOp::Sqrt) && HWY_DYNAMIC_DISPATCH(DirectTarget)();
  return yes;
}

void conv_direct_forward(const ConvDirectFwd& a, const float* xp, float* out, int64_t t0,
                         int64_t t1, int64_t g0, int64_t g1) {
  HWY_DYNAMIC_DISPATCH(Forward)(a, xp, out, t0, t1, g0, g1);
}

void conv_direct_grad_weight(const ConvDirectGw& a, int64_t k0, int64_t k1) {
  HWY_DYNAMIC_DISPATCH(GradWeight)(a, k0, k1);
}

void conv_transpose_rows(int64_t rows, int64_t pix, int64_t ldo, const float* src, float* dst) {
  HWY_DYNAMIC_DISPATCH(TransposeRows)(rows, pix, ldo, src, dst);
}

void conv_pad_planes(int64_t channels, int64_t h, int64_t w, int64_t sc, int64_t sh,
                     const float* src, int64_t top, int64_t left, int64_t hp, int64_t wp,
                     int64_t ps, float* xp) {
  HWY_DYNAMIC_DISPATCH(PadPlanes)(channels, h, w, sc, sh, src, top, left, hp, wp, ps, xp);
}

void conv_row_sums(const float* src, int64_t rows, int64_t len, double* acc) {
  HWY_DYNAMIC_DISPATCH(RowSums)(src, rows, len, acc);
}

}  // namespace ember::kernels
#endif  // HWY_ONCE
