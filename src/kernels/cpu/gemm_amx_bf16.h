// bfloat16 matrix products on AMX tiles (Intel Sapphire Rapids and later).
//
// Note [AMX bfloat16 gemm]: both operands are packed into 1 KB tiles (A: 16 rows x 32 k; B:
// 16 k-pairs x 16 columns, each pair of k adjacent as TDPBF16PS wants it, "VNNI" order),
// zero-padded to whole tiles, so transposed, strided and odd-sized operands cost only the
// packing. The micro-kernel keeps a 32 x 32 block of C in four tile registers and runs the whole
// k loop in them (TDPBF16PS: float32 accumulation of bfloat16 products), reading B from a panel
// of 256 columns kept in L2 and A from a 32-row block kept in L1/L2. Each C element is computed
// by one thread in one order, so results do not depend on the thread count. The float32 sums
// are scaled (alpha), added to beta * C in float32, and rounded once to nearest even into C,
// as torch does. As every AMX unit, TDPBF16PS treats bfloat16 denormal inputs as zero.
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

}  // namespace ember::kernels
