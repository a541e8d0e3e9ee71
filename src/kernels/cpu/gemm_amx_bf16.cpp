// Note [AMX bfloat16 gemm] (gemm_amx_bf16.h).
//
// Note [AMX float16 gemm] (gemm_amx_bf16.h) runs on the same packing and blocking.
//
// The AMX and AVX-512 instructions are confined to the functions marked EMBER_AMX (a target
// attribute), so nothing else in the program (inline copies of std:: or parallel_for included)
// is compiled for them; those functions run only after amx_bf16_available() said yes.
#include "kernels/cpu/gemm_amx_bf16.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#define EMBER_HAVE_AMX 1
#endif

#include "ember/half.h"
#include "kernels/cpu/half.h"
#include "kernels/cpu/parallel.h"

// GCC 12 reports its own AVX-512 intrinsics (_mm512_undefined_epi32 inside them) as
// (maybe) uninitialized once inlined into a target-attribute function: a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace ember::kernels {

#ifdef EMBER_HAVE_AMX
namespace {

#define EMBER_AMX __attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx512vl")))
// GCC's tile intrinsics are asm statements without a memory clobber: this keeps the compiler
// from moving ordinary loads of a stored tile's bytes before the store.
#define EMBER_TILE_FENCE() asm volatile("" ::: "memory")

constexpr int64_t kTileElems = 512;  // 1 KB: 16 rows x 64 bytes
constexpr int64_t kPanelTiles = 16;  // B panel: 16 tiles of 16 columns (256 columns) kept in L2

bool detect_amx() {
  unsigned a, b, c, d;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  if (!(d & (1u << 22)) || !(d & (1u << 24))) return false;                // AMX-BF16, AMX-TILE
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return false;  // OSXSAVE
  uint32_t lo, hi;
  asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & (3u << 17)) != (3u << 17)) return false;  // XTILECFG and XTILEDATA enabled by the OS
  // Linux hands out the 8 KB tile state per process, on request (ARCH_REQ_XCOMP_PERM).
  constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) == 0;
}

struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// Tiles 0-3: the 32 x 32 float32 block of C; 4-5: two 16-row tiles of A; 6-7: two of B.
EMBER_AMX void load_tile_config() {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  _tile_loadconfig(&cfg);
}

// Scratch for the packed operands, kept per calling thread so a loop of products does not
// fault fresh pages on every call; a buffer beyond kKeep bytes is freed after its call.
constexpr size_t kKeep = size_t(64) << 20;
struct Scratch {
  struct Free {
    void operator()(uint16_t* p) const { ::operator delete[](p, std::align_val_t(64)); }
  };
  std::unique_ptr<uint16_t[], Free> data;
  size_t elems = 0;
  uint16_t* get(size_t n) {
    if (n > elems) {
      data.reset(static_cast<uint16_t*>(::operator new[](n * 2, std::align_val_t(64))));
      elems = n;
    }
    return data.get();
  }
  void trim() {
    if (elems * 2 > kKeep) {
      data.reset();
      elems = 0;
    }
  }
};

inline uint16_t elem(const uint16_t* p, const MatRef& x, int64_t i, int64_t j) {
  return x.trans ? p[j * x.ld + i] : p[i * x.ld + j];
}

// 16 float32 -> bfloat16, rounded to nearest even; NaN -> 0xFFFF as float_to_half (Note [Half
// rounding]).
EMBER_AMX inline __m256i round_bf16(__m512 v) {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  __m512i h = _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), lsb);
  h = _mm512_mask_mov_epi32(_mm512_srli_epi32(h, 16), _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q),
                            _mm512_set1_epi32(0xFFFF));
  return _mm512_cvtepi32_epi16(h);
}

// The element formats. A packer reads an operand through its format as kParts bfloat16 planes
// (`part` 0 .. kParts - 1), each packed into its own tiles; C is widened (beta) and rounded
// through it. bfloat16 is its own single plane.
struct Bf16 {
  static constexpr int64_t kParts = 1;
  // 16 consecutive elements, those outside `keep` read as zero (and not touched in memory).
  EMBER_AMX static __m256i load16(const uint16_t* p, int, __mmask16 keep) {
    return _mm256_maskz_loadu_epi16(keep, p);
  }
  static uint16_t one(uint16_t x, int) { return x; }
  EMBER_AMX static __m512 widen(__m256i h) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
  EMBER_AMX static __m256i narrow(__m512 v) { return round_bf16(v); }
};

// float16 as two bfloat16 planes (Note [AMX float16 gemm]): part 0 is x truncated to bfloat16,
// part 1 the rest, x - part 0, exact in bfloat16 (at most 3 significant bits).
struct F16 {
  static constexpr int64_t kParts = 2;
  EMBER_AMX static __m256i split(__m512 x, int part) {
    const __m512i u = _mm512_castps_si512(x);
    if (part == 0) return _mm512_cvtepi32_epi16(_mm512_srli_epi32(u, 16));
    const __m512 hi = _mm512_castsi512_ps(_mm512_and_si512(u, _mm512_set1_epi32(int(0xFFFF0000u))));
    const __m512i lo = _mm512_castps_si512(_mm512_sub_ps(x, hi));
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(lo, 16));
  }
  EMBER_AMX static __m256i load16(const uint16_t* p, int part, __mmask16 keep) {
    return split(_mm512_cvtph_ps(_mm256_maskz_loadu_epi16(keep, p)), part);
  }
  static uint16_t one(uint16_t h, int part) {
    const float x = float_from_f16_bits(h);
    const uint32_t u = std::bit_cast<uint32_t>(x);
    if (part == 0) return uint16_t(u >> 16);
    return uint16_t(std::bit_cast<uint32_t>(x - std::bit_cast<float>(u & 0xFFFF0000u)) >> 16);
  }
  EMBER_AMX static __m512 widen(__m256i h) { return _mm512_cvtph_ps(h); }
  EMBER_AMX static __m256i narrow(__m512 v) {
    return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
};

// 32 consecutive elements of plane `part`, those outside `keep` zero.
template <class Fmt>
EMBER_AMX inline __m512i load32(const uint16_t* p, int part, __mmask32 keep = ~__mmask32(0)) {
  const __m256i lo = Fmt::load16(p, part, __mmask16(keep)),
                hi = Fmt::load16(p + 16, part, __mmask16(keep >> 16));
  return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

// Two rows of 16 elements of plane `part` as 16 32-bit words, lo's element in each low half (a
// k-pair).
template <class Fmt>
EMBER_AMX inline __m512i pair_words(const uint16_t* lo, const uint16_t* hi, int part,
                                    __mmask16 keep = __mmask16(0xFFFF)) {
  const __m512i l = _mm512_cvtepu16_epi32(Fmt::load16(lo, part, keep));
  const __m512i h = _mm512_cvtepu16_epi32(Fmt::load16(hi, part, keep));
  return _mm512_or_si512(l, _mm512_slli_epi32(h, 16));
}

// dst row r (64 bytes, rows 64 bytes apart) = word r of each of the 16 vectors in r: the
// transpose of a 16 x 16 matrix of 32-bit words (interleave words, then 64-bit pairs, then
// 128-bit lanes).
EMBER_AMX void store_transposed_words(const __m512i (&r)[16], uint16_t* dst) {
  __m512i t[16], u[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
  }
  for (int g = 0; g < 16; g += 4) {  // u[g + c], lane L: word 4L + c of rows g..g+3
    u[g] = _mm512_unpacklo_epi64(t[g], t[g + 2]);
    u[g + 1] = _mm512_unpackhi_epi64(t[g], t[g + 2]);
    u[g + 2] = _mm512_unpacklo_epi64(t[g + 1], t[g + 3]);
    u[g + 3] = _mm512_unpackhi_epi64(t[g + 1], t[g + 3]);
  }
  for (int c = 0; c < 4; ++c) {  // a 4 x 4 transpose of 128-bit lanes of u[c], u[4+c], ...
    const __m512i v0 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x44);
    const __m512i v1 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xEE);
    const __m512i v2 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x44);
    const __m512i v3 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xEE);
    _mm512_storeu_si512(dst + (0 + c) * 32, _mm512_shuffle_i32x4(v0, v2, 0x88));
    _mm512_storeu_si512(dst + (4 + c) * 32, _mm512_shuffle_i32x4(v0, v2, 0xDD));
    _mm512_storeu_si512(dst + (8 + c) * 32, _mm512_shuffle_i32x4(v1, v3, 0x88));
    _mm512_storeu_si512(dst + (12 + c) * 32, _mm512_shuffle_i32x4(v1, v3, 0xDD));
  }
}

// A tile (ib, t) of plane `part`: rows 16ib.., k 32t.., row-major 16 x 32, zero beyond m or k.
template <class Fmt>
EMBER_AMX void pack_a_tile(const MatRef& a, int64_t m, int64_t k, int64_t ib, int64_t t, int part,
                           uint16_t* dst) {
  const auto* p = static_cast<const uint16_t*>(a.ptr);
  const int64_t i0 = 16 * ib, k0 = 32 * t;
  const int64_t rows = std::min<int64_t>(16, m - i0), cols = std::min<int64_t>(32, k - k0);
  if (rows == 16 && cols == 32 && a.trans) {
    // A(i, k) = p[k * ld + i]: each k-pair of 16 rows is one vector of words; the tile is
    // their transpose.
    __m512i w[16];
    for (int64_t q = 0; q < 16; ++q) {
      const uint16_t* src = p + (k0 + 2 * q) * a.ld + i0;
      w[q] = pair_words<Fmt>(src, src + a.ld, part);
    }
    store_transposed_words(w, dst);
    return;
  }
  if (!a.trans) {  // a partial tile of a row-major A: the valid part of each row, then zeros
    const __mmask32 keep = __mmask32((uint64_t(1) << std::max<int64_t>(cols, 0)) - 1);
    for (int64_t r = 0; r < 16; ++r)
      _mm512_storeu_si512(dst + r * 32, r < rows ? load32<Fmt>(p + (i0 + r) * a.ld + k0, part, keep)
                                                 : _mm512_setzero_si512());
    return;
  }
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < 32; ++c)
      dst[r * 32 + c] = r < rows && c < cols ? Fmt::one(elem(p, a, i0 + r, k0 + c), part) : 0;
}

// The kb tiles of A's 16-row block ib, each as Fmt::kParts consecutive tiles (plane 0 first),
// consecutive in dst. A row-major A is copied row by row (each row read in order, which the
// hardware prefetcher follows), the rest tile by tile.
template <class Fmt>
EMBER_AMX void pack_a_rows(const MatRef& a, int64_t m, int64_t k, int64_t ib, int64_t kb,
                           uint16_t* dst) {
  constexpr int64_t P = Fmt::kParts;
  const auto* p = static_cast<const uint16_t*>(a.ptr);
  const int64_t full = a.trans || 16 * ib + 16 > m ? 0 : k / 32;
  for (int64_t r = 0; r < 16 && full > 0; ++r) {
    const uint16_t* src = p + (16 * ib + r) * a.ld;
    for (int64_t t = 0; t < full; ++t)
      for (int part = 0; part < P; ++part)
        _mm512_storeu_si512(dst + (t * P + part) * kTileElems + r * 32,
                            load32<Fmt>(src + 32 * t, part));
  }
  for (int64_t t = full; t < kb; ++t)
    for (int part = 0; part < P; ++part)
      pack_a_tile<Fmt>(a, m, k, ib, t, part, dst + (t * P + part) * kTileElems);
}

// B tile (jb, t) of plane `part`: 16 rows of k-pairs (32t + 2r, 32t + 2r + 1), each row 16
// columns 16jb.. with the pair adjacent: dst[r * 32 + 2j + q] = B(32t + 2r + q, 16jb + j), zero
// beyond k or n.
template <class Fmt>
EMBER_AMX void pack_b_tile(const MatRef& b, int64_t k, int64_t n, int64_t jb, int64_t t, int part,
                           uint16_t* dst) {
  const auto* p = static_cast<const uint16_t*>(b.ptr);
  const int64_t j0 = 16 * jb, k0 = 32 * t;
  const int64_t cols = std::min<int64_t>(16, n - j0), kk = std::min<int64_t>(32, k - k0);
  if (cols == 16 && kk == 32) {
    if (!b.trans) {
      for (int64_t r = 0; r < 16; ++r) {  // rows 2r and 2r+1 of k: one pair per column
        const uint16_t* r0 = p + (k0 + 2 * r) * b.ld + j0;
        _mm512_storeu_si512(dst + r * 32, pair_words<Fmt>(r0, r0 + b.ld, part));
      }
    } else {
      // B(k, j) = p[j * ld + k]: each k-pair is one 32-bit word of row j, so the tile is the
      // 16 x 16 transpose of 32-bit words.
      __m512i w[16];
      for (int64_t j = 0; j < 16; ++j) w[j] = load32<Fmt>(p + (j0 + j) * b.ld + k0, part);
      store_transposed_words(w, dst);
    }
    return;
  }
  if (!b.trans) {  // a partial tile of a row-major B: masked loads of the valid columns
    const __mmask16 keep = __mmask16((1u << std::max<int64_t>(cols, 0)) - 1);
    for (int64_t r = 0; r < 16; ++r) {
      __m512i w = _mm512_setzero_si512();
      for (int64_t q = 0; q < 2; ++q)
        if (2 * r + q < kk) {
          const __m256i v = Fmt::load16(p + (k0 + 2 * r + q) * b.ld + j0, part, keep);
          w = _mm512_or_si512(w,
                              _mm512_slli_epi32(_mm512_maskz_cvtepu16_epi32(__mmask16(0xFFFF), v),
                                                unsigned(16 * q)));
        }
      _mm512_storeu_si512(dst + r * 32, w);
    }
    return;
  }
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t j = 0; j < 16; ++j)
      for (int64_t q = 0; q < 2; ++q) {
        const int64_t kr = 2 * r + q;
        dst[r * 32 + 2 * j + q] =
            j < cols && kr < kk ? Fmt::one(elem(p, b, k0 + kr, j0 + j), part) : 0;
      }
}

// Bytes of the next row pair's A that one kernel call brings to L2 while it runs, a few lines per
// k step: [off, end) of each of its two 16-row halves p0 and p1.
struct Prefetch {
  const char *p0 = nullptr, *p1 = nullptr;
  int64_t off = 0, end = 0, step = 0;  // step: bytes per k step
};

// c (32 x 32 float32, row stride 32) = [c +] A rows pair (a0, a1) @ B column pair (b0, b1) over
// kb tiles of k (c is read unless `first`). Each k tile of an operand is kParts consecutive
// tiles (its planes). Four accumulators, two A and two B tiles: all eight tile registers.
// Two planes (float16, Note [AMX float16 gemm]): the four products hi*hi, hi*lo, lo*lo, lo*hi
// of each k tile, each A tile loaded once and B's hi tiles twice (10 loads for 16 products).
template <int64_t kParts>
EMBER_AMX void kernel_32x32(const uint16_t* a0, const uint16_t* a1, const uint16_t* b0,
                            const uint16_t* b1, int64_t kb, float* c, bool first,
                            const Prefetch& pf) {
  if (first) {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
  } else {
    _tile_loadd(0, c, 128);
    _tile_loadd(1, c + 16, 128);
    _tile_loadd(2, c + 16 * 32, 128);
    _tile_loadd(3, c + 16 * 32 + 16, 128);
  }
  for (int64_t t = 0; t < kb; ++t) {
    const int64_t o = t * kParts * kTileElems;
    for (int64_t x = pf.off + t * pf.step, e = std::min(pf.end, x + pf.step); x < e; x += 64) {
      _mm_prefetch(pf.p0 + x, _MM_HINT_T1);
      _mm_prefetch(pf.p1 + x, _MM_HINT_T1);
    }
    _tile_loadd(4, a0 + o, 64);
    _tile_loadd(6, b0 + o, 64);
    _tile_dpbf16ps(0, 4, 6);
    _tile_loadd(7, b1 + o, 64);
    _tile_dpbf16ps(1, 4, 7);
    _tile_loadd(5, a1 + o, 64);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
    if constexpr (kParts == 2) {
      const int64_t l = o + kTileElems;
      // hi * lo, lo * lo, lo * hi: each group of four in accumulator order 0 1 2 3
      _tile_loadd(6, b0 + l, 64);
      _tile_loadd(7, b1 + l, 64);
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_loadd(4, a0 + l, 64);
      _tile_dpbf16ps(3, 5, 7);
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_loadd(5, a1 + l, 64);
      _tile_dpbf16ps(2, 5, 6);
      _tile_loadd(6, b0 + o, 64);
      _tile_dpbf16ps(3, 5, 7);
      _tile_loadd(7, b1 + o, 64);
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
  }
  _tile_stored(0, c, 128);
  _tile_stored(1, c + 16, 128);
  _tile_stored(2, c + 16 * 32, 128);
  _tile_stored(3, c + 16 * 32 + 16, 128);
  EMBER_TILE_FENCE();
}

struct Problem {
  int64_t m, n, k, kb, mpairs, panels, msplit;
  float alpha, beta;
  bool stream;  // C written with streaming stores where aligned (store_block)
  MatRef a, b;
  const uint16_t*
      ap;  // packed A: tile (ib, t) plane q at ((ib * kb + t) * kParts + q) * kTileElems
  uint16_t* c;
  int64_t ldc;
};

// Element (i, j) of a float16 product as the widening path computes it: float32 products
// summed in order. Note [AMX float16 gemm]: only for sums that came out inf or NaN.
float dot_f16(const Problem& P, int64_t i, int64_t j) {
  const auto *pa = static_cast<const uint16_t*>(P.a.ptr),
             *pb = static_cast<const uint16_t*>(P.b.ptr);
  float s = 0;
  for (int64_t q = 0; q < P.k; ++q)
    s += float_from_f16_bits(elem(pa, P.a, i, q)) * float_from_f16_bits(elem(pb, P.b, q, j));
  return s;
}

// C block (rows i0.., columns j0.., at most 32 x 32) = alpha * acc + beta * C, rounded once.
// beta == 0 never reads C. A large C whose rows are 64-byte aligned is written around the
// caches (streaming stores): it is written once and read by nobody here, and a normal store
// would first read every line from memory.
template <class Fmt>
EMBER_AMX void store_block(const Problem& P, int64_t i0, int64_t j0, const float* acc) {
  const int64_t rows = std::min<int64_t>(32, P.m - i0), cols = std::min<int64_t>(32, P.n - j0);
  const __m512 alpha = _mm512_set1_ps(P.alpha), beta = _mm512_set1_ps(P.beta);
  for (int64_t r = 0; r < rows; ++r) {
    uint16_t* out = P.c + (i0 + r) * P.ldc + j0;
    __m256i h[2];
    for (int64_t j = 0; j < cols; j += 16) {
      const __mmask16 keep = __mmask16((1u << std::min<int64_t>(16, cols - j)) - 1);
      __m512 v = _mm512_loadu_ps(acc + r * 32 + j);
      if constexpr (Fmt::kParts == 2) {
        // An inf or NaN operand makes its row's and column's sums inf or NaN, but the planes
        // can turn inf * x into NaN (inf * 0 from a lo plane): such sums are redone.
        const __m512i e = _mm512_set1_epi32(0x7F800000);
        const __mmask16 bad =
            _mm512_cmpeq_epi32_mask(_mm512_and_si512(_mm512_castps_si512(v), e), e) & keep;
        if (__builtin_expect(bad != 0, 0)) {
          alignas(64) float fix[16];
          _mm512_store_ps(fix, v);
          for (int64_t q = 0; q < 16; ++q)
            if (bad >> q & 1) fix[q] = dot_f16(P, i0 + r, j0 + j + q);
          v = _mm512_load_ps(fix);
        }
      }
      if (P.alpha != 1.0f) v = _mm512_mul_ps(v, alpha);
      if (P.beta != 0.0f)
        v = _mm512_add_ps(v,
                          _mm512_mul_ps(beta, Fmt::widen(_mm256_maskz_loadu_epi16(keep, out + j))));
      h[j / 16] = Fmt::narrow(v);
    }
    if (P.stream && cols == 32 && (reinterpret_cast<uintptr_t>(out) & 63) == 0) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(out),
                          _mm512_inserti64x4(_mm512_castsi256_si512(h[0]), h[1], 1));
    } else {
      for (int64_t j = 0; j < cols; j += 16)
        _mm256_mask_storeu_epi16(out + j, __mmask16((1u << std::min<int64_t>(16, cols - j)) - 1),
                                 h[j / 16]);
    }
  }
}

// Packed tiles per k block: 2048 of k for bfloat16, 1024 for float16's two planes; a B panel
// slice is then at most 1 MB (L2).
constexpr int64_t kKcTiles = 64;

// Item w: B panel w / msplit (its packed slices in this thread's buffer, so they are hot in L2
// when used) times the w % msplit-th share of the 32-row pairs.
template <class Fmt>
EMBER_AMX void run_item(const Problem& P, int64_t w, uint16_t* bpanel, float* accs) {
  constexpr int64_t Q = Fmt::kParts, kc = kKcTiles / Q;
  const int64_t panel = w / P.msplit, part = w % P.msplit;
  const int64_t per = (P.mpairs + P.msplit - 1) / P.msplit;
  const int64_t ip0 = part * per, ip1 = std::min(P.mpairs, ip0 + per);
  const int64_t jt0 = panel * kPanelTiles;  // first 16-column tile of the panel
  const int64_t pairs = std::min<int64_t>(kPanelTiles / 2, (P.n - 16 * jt0 + 31) / 32);
  const bool one_block = P.kb <= kc;
  alignas(64) float acc1[32 * 32];
  for (int64_t t0 = 0; t0 < std::max<int64_t>(P.kb, 1); t0 += kc) {
    const int64_t len = std::min(kc, P.kb - t0);
    for (int64_t t = 0; t < len; ++t)  // k outer: each source row is read once, in order
      for (int64_t jt = 0; jt < 2 * pairs; ++jt)
        for (int q = 0; q < Q; ++q)
          pack_b_tile<Fmt>(P.b, P.k, P.n, jt0 + jt, t0 + t, q,
                           bpanel + ((jt * len + t) * Q + q) * kTileElems);
    EMBER_TILE_FENCE();
    const bool first = t0 == 0, last = t0 + kc >= P.kb;
    for (int64_t ip = ip0; ip < ip1; ++ip) {
      const uint16_t* a0 = P.ap + (2 * ip * P.kb + t0) * Q * kTileElems;
      const uint16_t* a1 = a0 + P.kb * Q * kTileElems;
      // The next pair's A would come from memory on its first call (a pair is read once per
      // panel): each call of this pair prefetches a 1/pairs share of it (2048^2: 10% less time).
      const int64_t half = ip + 1 < ip1 ? len * Q * kTileElems * 2 : 0;
      const int64_t per_call = (half + pairs - 1) / pairs;
      Prefetch pf;
      if (half > 0) {
        pf.p0 = reinterpret_cast<const char*>(a0 + 2 * P.kb * Q * kTileElems);
        pf.p1 = pf.p0 + P.kb * Q * kTileElems * 2;
        pf.end = per_call;
      }
      pf.step = len > 0 ? (per_call / len + 63) / 64 * 64 : 0;
      for (int64_t jp = 0; jp < pairs; ++jp) {
        const uint16_t* b0 = bpanel + 2 * jp * len * Q * kTileElems;
        float* acc = one_block ? acc1 : accs + ((ip - ip0) * (kPanelTiles / 2) + jp) * 1024;
        kernel_32x32<Q>(a0, a1, b0, b0 + len * Q * kTileElems, len, acc, first, pf);
        pf.off = pf.end, pf.end = std::min(pf.end + per_call, half);
        if (last) store_block<Fmt>(P, 32 * ip, 16 * jt0 + 32 * jp, acc);
      }
    }
  }
}

template <class Fmt>
EMBER_AMX void run_items(const Problem& P, int64_t w0, int64_t w1) {
  constexpr int64_t kc = kKcTiles / Fmt::kParts;
  thread_local Scratch bscratch;
  thread_local std::unique_ptr<float[]> accs;
  thread_local int64_t accs_len = 0;
  uint16_t* bpanel = bscratch.get(
      size_t(kPanelTiles * std::min(kc, std::max<int64_t>(P.kb, 1)) * Fmt::kParts * kTileElems));
  const int64_t per = (P.mpairs + P.msplit - 1) / P.msplit;
  if (P.kb > kc && accs_len < per * (kPanelTiles / 2) * 1024) {
    accs_len = per * (kPanelTiles / 2) * 1024;
    accs.reset(new float[size_t(accs_len)]);
  }
  load_tile_config();
  for (int64_t w = w0; w < w1; ++w) run_item<Fmt>(P, w, bpanel, accs.get());
  _tile_release();
  _mm_sfence();  // the streaming stores are visible before the caller reads C
  if (accs_len * 4 > int64_t(kKeep)) accs.reset(), accs_len = 0;
}

template <class Fmt>
bool gemm_amx(int64_t m, int64_t n, int64_t k, float alpha, MatRef a, MatRef b, float beta, void* c,
              int64_t ldc);

}  // namespace

bool amx_bf16_available() {
  static const bool yes = !std::getenv("EMBER_DISABLE_AMX") && detect_amx();
  return yes;
}

bool gemm_amx_bf16(int64_t m, int64_t n, int64_t k, float alpha, MatRef a, MatRef b, float beta,
                   void* c, int64_t ldc) {
  return gemm_amx<Bf16>(m, n, k, alpha, a, b, beta, c, ldc);
}

bool gemm_amx_f16(int64_t m, int64_t n, int64_t k, float alpha, MatRef a, MatRef b, float beta,
                  void* c, int64_t ldc) {
  return gemm_amx<F16>(m, n, k, alpha, a, b, beta, c, ldc);
}

namespace {

template <class Fmt>
bool gemm_amx(int64_t m, int64_t n, int64_t k, float alpha, MatRef a, MatRef b, float beta, void* c,
              int64_t ldc) {
  if (!amx_bf16_available()) return false;
  if (m == 0 || n == 0) return true;
  constexpr int64_t Q = Fmt::kParts;
  Problem P{};
  P.m = m, P.n = n, P.k = k, P.alpha = alpha, P.beta = beta, P.a = a, P.b = b, P.ldc = ldc;
  P.c = static_cast<uint16_t*>(c);
  P.stream = beta == 0.0f && m * n * 2 > (int64_t(4) << 20);
  P.kb = (k + 31) / 32;
  P.mpairs = (m + 31) / 32;
  P.panels = (n + 16 * kPanelTiles - 1) / (16 * kPanelTiles);
  // A is packed once, in parallel (16-row blocks); each B panel by the thread that uses it.
  thread_local Scratch ascratch;
  uint16_t* ap = ascratch.get(size_t(2 * P.mpairs * std::max<int64_t>(P.kb, 1) * Q * kTileElems));
  P.ap = ap;
  if (P.kb > 0)  // (k == 0: A may have no storage at all)
    parallel_for(0, 2 * P.mpairs, std::max<int64_t>(1, 256 / P.kb), [&](int64_t b0, int64_t b1) {
      for (int64_t ib = b0; ib < b1; ++ib)
        pack_a_rows<Fmt>(a, m, k, ib, P.kb, ap + ib * P.kb * Q * kTileElems);
    });
  // Items: panels x msplit shares of the rows, enough for every thread when there are few
  // panels; below ~2^22 multiply-adds one thread does it all.
  const int64_t threads = num_threads();
  P.msplit = std::min(P.mpairs, std::max<int64_t>(1, (threads + P.panels - 1) / P.panels));
  const int64_t items = P.panels * P.msplit;
  const double work = double(m) * double(n) * double(std::max<int64_t>(k, 1));
  const int64_t grain = work < double(int64_t(1) << 22) ? items : 1;
  parallel_for(0, items, grain, [&](int64_t w0, int64_t w1) { run_items<Fmt>(P, w0, w1); });
  ascratch.trim();
  return true;
}

}  // namespace

#else

bool amx_bf16_available() { return false; }
bool gemm_amx_bf16(int64_t, int64_t, int64_t, float, MatRef, MatRef, float, void*, int64_t) {
  return false;
}
bool gemm_amx_f16(int64_t, int64_t, int64_t, float, MatRef, MatRef, float, void*, int64_t) {
  return false;
}

#endif

}  // namespace ember::kernels
