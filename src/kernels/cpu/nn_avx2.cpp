// The kernels of nn_impl.h again, compiled for AVX2 + FMA with 32-byte vectors; nn.cpp calls
// them when the CPU has both. Every header is included BEFORE the target pragma, so the
// inline functions and templates they define (std::, parallel_for) stay baseline code and
// cannot leak AVX2 instructions into the rest of the program (as in reduce_avx2.cpp).
#if defined(__x86_64__) && !defined(__AVX2__)
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/cpu/nn.h"
#include "kernels/cpu/parallel.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#define EMBER_NN_ISA avx2
#define EMBER_NN_VBYTES 32
#include "kernels/cpu/nn_impl.h"
#undef EMBER_NN_ISA
#undef EMBER_NN_VBYTES
#pragma GCC pop_options
#endif
