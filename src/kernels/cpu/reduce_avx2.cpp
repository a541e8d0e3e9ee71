// The reduction kernels again, compiled for AVX2 + FMA; reduce.cpp calls them when the CPU
// has both. Every header is included BEFORE the target pragma, so the inline functions and
// templates they define (std::, Dims, parallel_for) stay baseline code and cannot leak AVX2
// instructions into the rest of the program through the linker's merging of inline copies.
#if defined(__x86_64__) && !defined(__AVX2__)
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/reduce.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#define EMBER_REDUCE_ISA avx2
#include "kernels/cpu/reduce_impl.h"
#include "kernels/cpu/arg_softmax_impl.h"
#undef EMBER_REDUCE_ISA
#pragma GCC pop_options
#endif
