// bfloat16 matrix products on AMX tiles (Intel Sapphire Rapids and later).
//
// Note [AMX bfloat16 gemm]: both operands are packed into 1 KB tiles, zero-padded to whole tiles
// (A: 16 rows x 32 k, copied row by row; B: 16 k-pairs x 16 columns with each pair of k
// adjacent, the "VNNI" order TDPBF16PS reads), so transposed, strided and odd-sized operands
// cost only the packing. A is packed once per call; B one panel of 256 columns at a time, by
// the thread that uses it, so the panel (at most 1 MB: k is cut in blocks of 2048) is in L2.
// The micro-kernel keeps a 32 x 32 block of C in four tile registers (two A and two B tiles
// fill the other four) and runs the whole k block in them: TDPBF16PS, float32 accumulation of
// bfloat16 products, one load per product. The float32 sums are scaled (alpha), added to
// beta * C in float32 and rounded once to nearest even (NaN -> 0xFFFF, as float_to_half) with
// AVX-512; a C larger than 4 MB is written with streaming stores (no read of each line first).
// Each C element is computed by one thread in one order, so results do not depend on the
// thread count. TDPBF16PS counts denormal inputs as zero and flushes denormal sums, as
// torch's AMX path does. 2048^2 on one thread (thread CPU time, loaded machine): 17-18 ms,
// against torch 2.13's oneDNN 3.x 19-21 ms and oneDNN 2.6's AMX matmul 31-42 ms. The 2x2
// kernel's tile loads hide behind its products when they hit L1 and cost 40% more from L2, 3x
// from beyond: hence the B panel in L2 and the prefetch of A's next row pair (run_item).
//
// Note [AMX float16 gemm]: the CPU has no float16 product with float32 accumulation (AMX-FP16
// comes with Granite Rapids; AVX512-FP16 accumulates in float16), so float16 rides on the
// bfloat16 tiles. Every finite float16 x is exactly hi + lo with hi = x truncated to bfloat16 (8
// significant bits) and lo = x - hi: x has at most 11 significant bits, so lo is a multiple of
// x's float16 ulp below hi's bfloat16 ulp, at most 3 bits, exact in bfloat16; float16
// denormals (>= 2^-24) are normal bfloat16 numbers, so the tiles' denormal flush never sees
// them. bfloat16 products are exact in float32, so A @ B = Ah@Bh + Ah@Bl + Al@Bl + Al@Bh with
// float32 accumulation: the products are exact and only the order of the float32 sums differs
// from torch's float16 matmul (and from the widening path), as between any two float32
// gemms. Packing splits each operand into the two planes (each k tile becomes two tiles,
// `Fmt::kParts`) and the micro-kernel runs all four products per k tile: 4x the bfloat16
// work, about 3x faster than ember's float32 gemm at 2048^2 (docs/half.md). Non-finite
// operands: inf * x must stay inf, but the planes would add inf * 0 (hi times a lo plane that
// is 0) = NaN. An inf or NaN operand makes every sum of its row (of A) or column (of B) inf or
// NaN, and only those: store_block redoes exactly the sums that came out non-finite as float32
// dot products of the widened operands, the widening path's value (torch's inf/NaN pattern).
#pragma once
#include <cstdint>

#include "kernels/cpu/blas.h"

namespace ember::kernels {

// True when the CPU has AMX-TILE and AMX-BF16, the OS enables their state, and Linux granted
// this process the tile data permission (requested once, on the first call).
// EMBER_DISABLE_AMX=1 in the environment answers false (the tests compare both paths).
bool amx_bf16_available();

// C[m, n] = alpha * op(A)[m, k] @ op(B)[k, n] + beta * C, all bfloat16, C row-major with
// leading dimension ldc; beta == 0 never reads C. Returns false, writing nothing, when
// amx_bf16_available() is false.
bool gemm_amx_bf16(int64_t m, int64_t n, int64_t k, float alpha, MatRef a, MatRef b, float beta,
                   void* c, int64_t ldc);

// The same for float16 A, B and C (Note [AMX float16 gemm]): float32 accumulation, alpha and
// beta * C in float32, one rounding (F16C, nearest even). Returns false, writing nothing, when
// amx_bf16_available() is false.
bool gemm_amx_f16(int64_t m, int64_t n, int64_t k, float alpha, MatRef a, MatRef b, float beta,
                  void* c, int64_t ldc);

}  // namespace ember::kernels
