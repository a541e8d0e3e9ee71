#include "kernels/cpu/conv_direct.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "kernels/cpu/conv_hwy.h"
#include "kernels/cpu/parallel.h"

namespace ember::kernels {
namespace {

// Multiply-adds worth a thread of their own (as kConvGrain in conv.cpp).
constexpr double kDirectGrain = double(1 << 18);
// The weight gradient's batch chunk: padded images and transposed grad_out of about this
// many bytes at once (each tile of taps streams through them, so they should stay in L2).
constexpr int64_t kChunkBytes = int64_t(1) << 20;
// Grid groups per forward work unit (three vectors of 16 floats), taps per weight-gradient
// work unit.
constexpr int64_t kUnitGroups = 3;
constexpr int64_t kUnitTaps = 24;

int64_t round_up(int64_t a, int64_t b) { return (a + b - 1) / b * b; }
int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }

// One stride-1 product on a padded grid (Note [Padded grid]): output (ho, wo); the source
// plane sits at (top, left) of xp planes of width wp, height hp and stride ps (which leaves
// room for the last vector's farthest tap). top / left may be negative (cropping).
struct Grid {
  int64_t ho, wo, top, left, hp, wp, q, qr, ps;
};

Grid make_grid(const Conv2dGeom& g, int64_t ho, int64_t wo, int64_t top, int64_t left) {
  const int64_t ekh = (g.kh - 1) * g.dh + 1, ekw = (g.kw - 1) * g.dw + 1;
  // Rows a whole number of vectors wide when that costs at most 1/8 more grid: then no
  // vector straddles two rows and the forward stores need no compress.
  const int64_t wp = wo + ekw - 1, wide = round_up(wp, kGridGroup);
  Grid r{ho, wo, top, left, ho + ekh - 1, (wide - wp) * 8 <= wp ? wide : wp, 0, 0, 0};
  r.q = ho * r.wp;
  r.qr = round_up(r.q, kGridGroup);
  r.ps = round_up(r.qr + (ekh - 1) * r.wp + ekw - 1, kGridGroup);
  return r;
}
Grid forward_grid(const Conv2dGeom& g) { return make_grid(g, g.ho, g.wo, g.ph, g.pw); }
// grad_input[ih, iw] reads grad_out[ih + ph - ki * dh, iw + pw - kj * dw]: with the kernel
// flipped, a forward product over grad_out placed at (ekh - 1 - ph, ekw - 1 - pw).
Grid input_grad_grid(const Conv2dGeom& g) {
  return make_grid(g, g.h, g.w, (g.kh - 1) * g.dh - g.ph, (g.kw - 1) * g.dw - g.pw);
}

// xp planes (channels, ps) = the source planes (channels, h, w) with strides st (c, h, w)
// at (top, left) of each plane, zero elsewhere (the padding, and the slack past hp * wp).
// Contiguous rows take the SIMD copy; strided ones (channels-last views) one memset, then
// the rows in plain loops: they are short, and memcpy calls per row would cost more than
// the copy (the attribute keeps GCC from turning the loop back into one).
[[gnu::optimize("no-tree-loop-distribute-patterns")]] void pad_planes(const Grid& gr,
                                                                      int64_t channels, int64_t h,
                                                                      int64_t w, const int64_t* st,
                                                                      const float* src, float* xp) {
  if (st[2] == 1 || w == 1) {  // contiguous rows: SIMD, each element written once
    conv_pad_planes(channels, h, w, st[0], st[1], src, gr.top, gr.left, gr.hp, gr.wp, gr.ps, xp);
    return;
  }
  std::memset(xp, 0, size_t(channels * gr.ps) * sizeof(float));
  const int64_t c0 = std::clamp<int64_t>(gr.left, 0, gr.wp);
  const int64_t n = std::clamp<int64_t>(gr.left + w, c0, gr.wp) - c0;
  const int64_t r0 = std::clamp<int64_t>(gr.top, 0, gr.hp);
  const int64_t r1 = std::clamp<int64_t>(gr.top + h, r0, gr.hp);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t r = r0; r < r1; ++r) {
      float* __restrict row = xp + c * gr.ps + r * gr.wp + c0;
      const float* __restrict s = src + c * st[0] + (r - gr.top) * st[1] + (c0 - gr.left) * st[2];
      if (st[2] == 1) {
        for (int64_t j = 0; j < n; ++j) row[j] = s[j];
      } else {
        for (int64_t j = 0; j < n; ++j) row[j] = s[j * st[2]];
      }
    }
  }
}

// Bit q % 16 of word q / 16: grid position q is an output pixel.
std::vector<uint16_t> valid_bits(const Grid& gr) {
  static_assert(kGridGroup == 16);
  std::vector<uint16_t> bits(size_t(gr.qr / kGridGroup), 0);
  for (int64_t q = 0; q < gr.q; ++q)
    if (q % gr.wp < gr.wo) bits[size_t(q / kGridGroup)] |= uint16_t(1u << (q % kGridGroup));
  return bits;
}

// Tap k = (c, ki, kj) of `channels` input planes reads xp at c * ps + ki * dh * wp + kj * dw.
std::vector<int32_t> tap_offsets(const Conv2dGeom& g, const Grid& gr, int64_t channels) {
  std::vector<int32_t> koff(size_t(channels * g.kh * g.kw));
  size_t k = 0;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j)
        koff[k++] = int32_t(c * gr.ps + i * g.dh * gr.wp + j * g.dw);
  return koff;
}

// A forward-shaped pass: images of `channels` source planes (groups of channels / groups)
// -> images of groups * rows output planes, with weights packed for conv_direct_forward.
struct Pass {
  Grid gr;
  int64_t channels, h, w;
  int64_t src_st[4];  // source strides (n, c, h, w)
  const float* src;
  int64_t groups, rows, k;  // per group: output rows, taps
  const float* bias;        // (groups * rows,) or null
  float* out;               // contiguous (n, groups * rows, ho, wo)
};

Pass forward_pass(const Conv2dGeom& g, const float* in, const float* bias, float* out) {
  Pass p{forward_grid(g),
         g.c,
         g.h,
         g.w,
         {g.in_stride[0], g.in_stride[1], g.in_stride[2], g.in_stride[3]},
         in,
         g.groups,
         g.o / g.groups,
         g.c / g.groups * g.kh * g.kw,
         bias,
         out};
  return p;
}

Pass input_grad_pass(const Conv2dGeom& g, const float* gout, float* gin) {
  const int64_t pix = g.ho * g.wo;
  Pass p{input_grad_grid(g),           g.o,     g.ho,     g.wo,
         {g.o * pix, pix, g.wo, 1},    gout,    g.groups, g.c / g.groups,
         g.o / g.groups * g.kh * g.kw, nullptr, gin};
  return p;
}

int64_t packed_size(const Pass& p) {
  return p.groups * div_up(p.rows, kPackRows) * p.k * kPackRows;
}

// wpk: per group, per tile of kPackRows rows, (k, kPackRows) = weight(group, row, tap),
// zero past the last row.
template <class WeightAt>
void pack_weights(const Pass& p, float* wpk, const WeightAt& weight) {
  const int64_t tiles = div_up(p.rows, kPackRows);
  for (int64_t gr = 0; gr < p.groups; ++gr)
    for (int64_t t = 0; t < tiles; ++t) {
      float* dst = wpk + (gr * tiles + t) * p.k * kPackRows;
      for (int64_t k = 0; k < p.k; ++k)
        for (int64_t r = 0; r < kPackRows; ++r) {
          const int64_t row = t * kPackRows + r;
          dst[k * kPackRows + r] = row < p.rows ? weight(gr, row, k) : 0.0f;
        }
    }
}

// Images run on `slots` threads, each padding its image into its own xp (Note [Convolution
// threads]); with one slot, each image's (group, row tile, grid run) units are split over
// the threads instead. Every output element is one kernel's sum in tap order: the result
// does not depend on the split.
void run_pass(const Pass& p, const Conv2dGeom& g, int64_t slots, const float* wpk, float* xp_ws) {
  const Grid& gr = p.gr;
  const int64_t cin = p.channels / p.groups, tiles = div_up(p.rows, kPackRows);
  const std::vector<int32_t> koff = tap_offsets(g, gr, cin);
  const std::vector<uint16_t> valid = valid_bits(gr);
  // Runs of kUnitGroups grid groups; a last run of one group is merged with the one before
  // into two runs of two (a tile of one vector would waste most of its broadcasts).
  const int64_t ngroups = gr.qr / kGridGroup, runs = div_up(ngroups, kUnitGroups);
  const bool split_tail = ngroups % kUnitGroups == 1 && ngroups > kUnitGroups;
  auto run_start = [&](int64_t run) {
    return split_tail && run == runs - 1 ? ngroups - 2 : std::min(ngroups, run * kUnitGroups);
  };
  const int64_t pix = gr.ho * gr.wo;
  const int64_t units = p.groups * tiles * runs;
  const double unit_work = double(kPackRows * kUnitGroups * kGridGroup) * double(p.k);
  const int64_t grain = std::max<int64_t>(1, int64_t(kDirectGrain / unit_work));
  std::vector<ConvDirectFwd> args(size_t(p.groups));
  for (int64_t i = 0; i < p.groups; ++i)
    args[size_t(i)] = ConvDirectFwd{wpk + i * tiles * p.k * kPackRows,
                                    koff.data(),
                                    p.k,
                                    p.bias ? p.bias + i * p.rows : nullptr,
                                    p.rows,
                                    gr.wp,
                                    gr.ho,
                                    gr.wo,
                                    valid.data()};
  for_slots(slots, g.n, [&](int64_t slot, int64_t i0, int64_t i1) {
    float* xp = xp_ws + slot * p.channels * gr.ps;
    for (int64_t i = i0; i < i1; ++i) {
      pad_planes(gr, p.channels, p.h, p.w, p.src_st + 1, p.src + i * p.src_st[0], xp);
      float* out = p.out + i * p.groups * p.rows * pix;
      parallel_for(0, units, grain, [&](int64_t u0, int64_t u1) {
        for (int64_t u = u0; u < u1; ++u) {
          const int64_t grp = u / (tiles * runs), t = u / runs % tiles, run = u % runs;
          conv_direct_forward(args[size_t(grp)], xp + grp * cin * gr.ps, out + grp * p.rows * pix,
                              t, t + 1, run_start(run), run_start(run + 1));
        }
      });
    }
  });
}

// The weight gradient's layout: grad_out transposed per group, (pixels, ldo) each.
struct GwLayout {
  Grid gr;
  int64_t cg, og, k, pix, ldo, xp_img, go_img, chunk;
};

GwLayout gw_layout(const Conv2dGeom& g) {
  GwLayout l;
  l.gr = forward_grid(g);
  l.cg = g.c / g.groups;
  l.og = g.o / g.groups;
  l.k = l.cg * g.kh * g.kw;
  l.pix = g.ho * g.wo;
  l.ldo = round_up(l.og, kGridGroup);
  l.xp_img = g.c * l.gr.ps;
  l.go_img = g.groups * l.pix * l.ldo;
  // images per chunk: fixed by the geometry (never the thread count), so the sums are the
  // same for any number of threads
  const int64_t bytes = (l.xp_img + l.go_img) * int64_t(sizeof(float));
  l.chunk = std::clamp<int64_t>(kChunkBytes / bytes, 1, std::max<int64_t>(1, g.n));
  return l;
}

int64_t gw_workspace(const Conv2dGeom& g) {
  const GwLayout l = gw_layout(g);
  return l.chunk * (l.xp_img + l.go_img) + g.groups * l.k * l.ldo;
}

// Each chunk: pad its images and transpose their grad_out (images split over threads),
// then add the chunk's products to the running sums acc (taps split over threads: each
// sum is one thread's, in image order). Finally gw = acc transposed.
void grad_weight(const Conv2dGeom& g, const float* in, const float* gout, float* gw, float* ws) {
  const GwLayout l = gw_layout(g);
  const std::vector<int32_t> koff = tap_offsets(g, l.gr, l.cg);
  float* xps = ws;
  float* gots = xps + l.chunk * l.xp_img;
  float* acc = gots + l.chunk * l.go_img;  // (groups, k, ldo)
  // Runs of taps per group: kUnitTaps each, or shorter ones when that leaves threads idle
  // (the tiling never changes a sum's order, only which thread computes it).
  const int64_t chunks = div_up(g.n, l.chunk);
  const int64_t runs =
      std::max(div_up(l.k, kUnitTaps), std::min(div_up(num_threads(), g.groups), div_up(l.k, 4)));
  const int64_t run_taps = div_up(l.k, runs), units = g.groups * runs;
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t i0 = c * g.n / chunks, m = (c + 1) * g.n / chunks - i0;
    parallel_for(0, m, std::max<int64_t>(1, kGrain / (l.xp_img + l.go_img)),
                 [&](int64_t j0, int64_t j1) {
                   for (int64_t j = j0; j < j1; ++j) {
                     pad_planes(l.gr, g.c, g.h, g.w, g.in_stride + 1,
                                in + (i0 + j) * g.in_stride[0], xps + j * l.xp_img);
                     for (int64_t grp = 0; grp < g.groups; ++grp)
                       conv_transpose_rows(l.og, l.pix, l.ldo,
                                           gout + ((i0 + j) * g.o + grp * l.og) * l.pix,
                                           gots + j * l.go_img + grp * l.pix * l.ldo);
                   }
                 });
    const double unit_work = double(run_taps * l.ldo) * double(m * l.pix);
    const int64_t grain = std::max<int64_t>(1, int64_t(kDirectGrain / unit_work));
    parallel_for(0, units, grain, [&](int64_t u0, int64_t u1) {
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t grp = u / runs, run = u % runs;
        const ConvDirectGw a{gots + grp * l.pix * l.ldo,
                             l.go_img,
                             l.ldo,
                             xps + grp * l.cg * l.gr.ps,
                             l.xp_img,
                             m,
                             g.ho,
                             g.wo,
                             l.gr.wp,
                             koff.data(),
                             acc + grp * l.k * l.ldo,
                             c > 0};
        conv_direct_grad_weight(a, run * run_taps, std::min(l.k, (run + 1) * run_taps));
      }
    });
  }
  for (int64_t grp = 0; grp < g.groups; ++grp)
    for (int64_t o = 0; o < l.og; ++o)
      for (int64_t k = 0; k < l.k; ++k)
        gw[(grp * l.og + o) * l.k + k] = acc[(grp * l.k + k) * l.ldo + o];
}

// gb[o] = the sum of grad_out's channel o: each image's in float (SIMD, fixed order), the
// images' in double, in image order; channels split over threads.
void grad_bias(const Conv2dGeom& g, const float* gout, float* gb) {
  const int64_t pix = g.ho * g.wo;
  parallel_for(0, g.o, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, g.n * pix)),
               [&](int64_t o0, int64_t o1) {
                 std::vector<double> acc(size_t(o1 - o0), 0.0);
                 for (int64_t i = 0; i < g.n; ++i)
                   conv_row_sums(gout + (i * g.o + o0) * pix, o1 - o0, pix, acc.data());
                 for (int64_t o = o0; o < o1; ++o) gb[o] = float(acc[size_t(o - o0)]);
               });
}

}  // namespace

bool conv2d_direct_ok(const Conv2dGeom& g) {
  // The forward computes kPackRows output channels at a time: with fewer than 4 per group
  // (depthwise convolutions) most of that work would be wasted.
  if (g.sh != 1 || g.sw != 1 || g.o / g.groups < 4 || !conv_direct_available()) return false;
  // tap offsets (int32) reach cin * ps; grid sizes stay far from overflow
  const Grid f = forward_grid(g), b = input_grad_grid(g);
  const double reach =
      std::max(double(g.c / g.groups) * double(f.ps), double(g.o / g.groups) * double(b.ps));
  return reach < double(INT32_MAX) && double(g.o) * double(f.qr) < 0x1p40;
}

bool conv2d_direct_input_grad_ok(const Conv2dGeom& g) { return g.c / g.groups >= 4; }

int64_t conv2d_direct_slots(const Conv2dGeom& g) {
  const double work =
      double(g.n) * double(g.o) * double(g.c / g.groups * g.kh * g.kw) * double(g.ho * g.wo);
  return std::clamp<int64_t>(int64_t(std::min(work / kDirectGrain, 1e9)), 1,
                             std::max<int64_t>(1, std::min<int64_t>(g.n, num_threads())));
}

int64_t conv2d_direct_workspace(const Conv2dGeom& g, int64_t slots, bool backward) {
  const Pass f = forward_pass(g, nullptr, nullptr, nullptr);
  if (!backward) return packed_size(f) + slots * g.c * f.gr.ps;
  const Pass b = input_grad_pass(g, nullptr, nullptr);
  const int64_t gin = packed_size(b) + slots * g.o * b.gr.ps;
  return std::max(gin, gw_workspace(g));
}

void conv2d_direct_forward(const Conv2dGeom& g, int64_t slots, const float* in, const float* w,
                           const float* bias, float* out, float* ws) {
  if (g.n == 0) return;
  const Pass p = forward_pass(g, in, bias, out);
  pack_weights(p, ws, [&](int64_t grp, int64_t row, int64_t k) {
    return w[(grp * p.rows + row) * p.k + k];
  });
  run_pass(p, g, slots, ws, ws + packed_size(p));
}

void conv2d_direct_backward(const Conv2dGeom& g, int64_t slots, const float* in, const float* w,
                            const float* gout, float* gin, float* gw, float* gb, float* ws) {
  if (gb) grad_bias(g, gout, gb);
  if (gw && g.n == 0) std::fill(gw, gw + g.o * (g.c / g.groups) * g.kh * g.kw, 0.0f);
  if (g.n == 0) return;
  if (gw) grad_weight(g, in, gout, gw, ws);
  if (gin) {  // row c of group grp, tap (o, a, b) = w[grp * og + o, c, kh - 1 - a, kw - 1 - b]
    const Pass p = input_grad_pass(g, gout, gin);
    const int64_t og = g.o / g.groups, cg = g.c / g.groups, kk = g.kh * g.kw;
    pack_weights(p, ws, [&](int64_t grp, int64_t c, int64_t k) {
      const int64_t o = k / kk, tap = kk - 1 - k % kk;  // flipping both dims reverses the tap order
      return w[((grp * og + o) * cg + c) * kk + tap];
    });
    run_pass(p, g, slots, ws, ws + packed_size(p));
  }
}

}  // namespace ember::kernels
