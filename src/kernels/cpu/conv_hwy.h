// SIMD micro-kernels of the direct float32 convolution (conv_direct.cpp), written with
// Google Highway and compiled once per instruction set; the best copy the CPU has is picked
// at the first call (AVX-512 or AVX2: the direct path is off on older CPUs).
//
// Note [Padded grid]: a stride-1 convolution reads, for kernel tap (c, ki, kj), the input
// plane shifted by (ki * dh, kj * dw). With the input copied into a zero-padded plane `xp`
// of width wp (= output width + (kw - 1) * dw), output pixel (oh, ow) sits at grid position
// q = oh * wp + ow and tap k reads xp[c][q + ki * dh * wp + kj * dw]: one offset koff[k]
// per tap, and a contiguous run of q is a contiguous run of xp. So the product
//     out[o, q] = sum_k w[o, k] * xp[q + koff[k]]
// is a GEMM whose B operand is read straight from the padded image (no im2col), with
// vectors along q. Grid columns ow >= wo are garbage: the forward drops them when it
// stores (compressing each vector to its valid lanes, `valid` bits). The weight gradient
// sums over q instead, so it runs with vectors along the output channels (grad_out
// transposed, one running sum per lane) and visits only the real pixels.
#pragma once
#include <cstdint>

namespace ember::kernels {

// Grid positions come in groups of this many (vectors of 8 or 16 floats divide it).
inline constexpr int64_t kGridGroup = 16;
// Forward weights are packed in tiles of this many output rows: wpk[tile][k][kPackRows].
inline constexpr int64_t kPackRows = 8;

// True when the CPU has AVX2 + FMA or AVX-512 and SIMD kernels are enabled
// (EMBER_DISABLE_SIMD / EMBER_SIMD_TARGET, see elementwise_hwy.h).
bool conv_direct_available();

// One forward-shaped product over a padded grid (Note [Padded grid]).
struct ConvDirectFwd {
  const float* wpk;       // packed weights, ceil(rows / kPackRows) tiles of (k, kPackRows)
  const int32_t* koff;    // (k,) tap offsets into xp
  int64_t k;              // taps (reduction length)
  const float* bias;      // (rows,) or null
  int64_t rows;           // output channels
  int64_t wp, ho, wo;     // grid width, output height and width
  const uint16_t* valid;  // bit q % 16 of word q / 16: grid position q is an output pixel
};

// out[r, p] (rows of ho * wo pixels) for row tiles [t0, t1) and grid groups [g0, g1).
void conv_direct_forward(const ConvDirectFwd& a, const float* xp, float* out, int64_t t0,
                         int64_t t1, int64_t g0, int64_t g1);

// The weight gradient over a batch chunk, transposed: acc[k][o] (+)= the sum over images i
// and output pixels p = (oh, ow) of got[i][p][o] * xp[i][oh * wp + ow + koff[k]].
struct ConvDirectGw {
  const float* got;     // grad_out transposed: image i, pixel p at got + i * go_img + p * ldo
  int64_t go_img, ldo;  // ldo: output channels rounded up to kGridGroup (zeros past them)
  const float* xp;      // padded images, image i at xp + i * xp_img
  int64_t xp_img;
  int64_t images, ho, wo, wp;
  const int32_t* koff;  // tap offsets
  float* acc;           // (taps, ldo) running sums
  bool accumulate;      // add to acc instead of overwriting it
};

// acc for taps [k0, k1) (every output channel).
void conv_direct_grad_weight(const ConvDirectGw& a, int64_t k0, int64_t k1);

// dst[p * ldo + r] = src[r * pix + p] for r < rows, 0 for rows <= r < ldo.
void conv_transpose_rows(int64_t rows, int64_t pix, int64_t ldo, const float* src, float* dst);

// xp planes (channels, stride ps) of hp rows of wp = the source planes (strides sc, sh and
// contiguous rows of w) with their (0, 0) at row top, column left (either may be negative),
// zero elsewhere and in [hp * wp, ps).
void conv_pad_planes(int64_t channels, int64_t h, int64_t w, int64_t sc, int64_t sh,
                     const float* src, int64_t top, int64_t left, int64_t hp, int64_t wp,
                     int64_t ps, float* xp);

// acc[r] += the sum of src[r * len, (r + 1) * len) (in float, in a fixed order).
void conv_row_sums(const float* src, int64_t rows, int64_t len, double* acc);

}  // namespace ember::kernels
