// Runtime CPU dispatch. The build targets baseline x86-64; kernels that profit from AVX2+FMA
// are compiled a second time for it, and this picks the copy once per process (so results
// stay deterministic). EMBER_DISABLE_AVX2=1 in the environment forces the baseline copy,
// which is how the tests cover it on AVX2 machines.
#pragma once

namespace ember::kernels {

bool use_avx2();
// AVX-512 (F, VL, DQ, BW) on top of use_avx2(), for the few kernels compiled a third time
// for it (the fused attention); EMBER_DISABLE_AVX512=1 turns it off alone.
bool use_avx512();

}  // namespace ember::kernels
