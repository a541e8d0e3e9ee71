// The kernels of attention_impl.h again, compiled for AVX2 + FMA; attention.cpp calls them
// when the CPU has both. Headers come BEFORE the target pragma (see nn_avx2.cpp).
#if defined(__x86_64__) && !defined(__AVX2__)
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/attention.h"
#include "kernels/cpu/blas.h"
#include "kernels/cpu/parallel.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#define EMBER_ATTENTION_ISA avx2
#define EMBER_ATTENTION_VEC_BYTES 32
#include "kernels/cpu/attention_impl.h"
#undef EMBER_ATTENTION_VEC_BYTES
#undef EMBER_ATTENTION_ISA
#pragma GCC pop_options
#endif
