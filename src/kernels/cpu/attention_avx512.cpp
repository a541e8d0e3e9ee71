// The kernels of attention_impl.h again, compiled for AVX-512 (F, VL, DQ, BW); attention.cpp calls
// them when the CPU has it (cpu.h use_avx512). Headers come BEFORE the target pragma (see
// nn_avx2.cpp).
#if defined(__x86_64__) && !defined(__AVX512F__)
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/attention.h"
#include "kernels/cpu/blas.h"
#include "kernels/cpu/parallel.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f,avx512vl,avx512dq,avx512bw")
#define EMBER_ATTENTION_ISA avx512
#define EMBER_ATTENTION_VEC_BYTES 64
#include "kernels/cpu/attention_impl.h"
#undef EMBER_ATTENTION_VEC_BYTES
#undef EMBER_ATTENTION_ISA
#pragma GCC pop_options
#endif
