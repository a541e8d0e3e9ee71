// Runtime CPU dispatch. The build targets baseline x86-64; kernels that profit from AVX2+FMA
// are compiled a second time for it, and this picks the copy once per process (so results
// stay deterministic). EMBER_DISABLE_AVX2=1 in the environment forces the baseline copy,
// which is how the tests cover it on AVX2 machines.
#pragma once

namespace ember::kernels {

bool use_avx2();

}  // namespace ember::kernels
