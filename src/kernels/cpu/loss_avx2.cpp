// The loss kernels again, compiled for AVX2 + FMA; loss.cpp calls them when the CPU has both.
// Every header is included BEFORE the target pragma, so the inline functions and templates
// they define (std::, parallel_for) stay baseline code and cannot leak AVX2 instructions into
// the rest of the program through the linker's merging of inline copies (as reduce_avx2.cpp).
#if defined(__x86_64__) && !defined(__AVX2__)
#include <algorithm>
#include <bit>
#include <cmath>
#include <type_traits>
#include <vector>

#include "kernels/cpu/loss.h"
#include "kernels/cpu/parallel.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#define EMBER_LOSS_ISA avx2
#include "kernels/cpu/loss_impl.h"
#undef EMBER_LOSS_ISA
#pragma GCC pop_options
#endif
