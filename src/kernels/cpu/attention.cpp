// Fused attention (attention.h): the baseline copy of attention_impl.h, the AVX2 copy from
// attention_avx2.cpp, the AVX-512 one from attention_avx512.cpp, and the choice (cpu.h).
#include "kernels/cpu/attention.h"

#include <bit>
#include <cmath>
#include <type_traits>

#include "kernels/cpu/blas.h"
#include "kernels/cpu/cpu.h"
#include "kernels/cpu/parallel.h"

#define EMBER_ATTENTION_ISA generic
#define EMBER_ATTENTION_VEC_BYTES 16
#include "kernels/cpu/attention_impl.h"
#undef EMBER_ATTENTION_VEC_BYTES
#undef EMBER_ATTENTION_ISA

namespace ember::kernels {
namespace avx2 {  // attention_avx2.cpp
void attention_forward(DType dt, const AttentionShape& a, const void* q, const void* k,
                       const void* v, void* out, void* lse);
void attention_backward(DType dt, const AttentionShape& a, const void* go, const void* q,
                        const void* k, const void* v, const void* out, const void* lse, void* gq,
                        void* gk, void* gv);
}  // namespace avx2
namespace avx512 {  // attention_avx512.cpp
void attention_forward(DType dt, const AttentionShape& a, const void* q, const void* k,
                       const void* v, void* out, void* lse);
void attention_backward(DType dt, const AttentionShape& a, const void* go, const void* q,
                        const void* k, const void* v, const void* out, const void* lse, void* gq,
                        void* gk, void* gv);
}  // namespace avx512

void attention_forward(DType dt, const AttentionShape& a, const void* q, const void* k,
                       const void* v, void* out, void* lse) {
  if (use_avx512()) return avx512::attention_forward(dt, a, q, k, v, out, lse);
  if (use_avx2()) return avx2::attention_forward(dt, a, q, k, v, out, lse);
  generic::attention_forward(dt, a, q, k, v, out, lse);
}

void attention_backward(DType dt, const AttentionShape& a, const void* go, const void* q,
                        const void* k, const void* v, const void* out, const void* lse, void* gq,
                        void* gk, void* gv) {
  if (use_avx512()) return avx512::attention_backward(dt, a, go, q, k, v, out, lse, gq, gk, gv);
  if (use_avx2()) return avx2::attention_backward(dt, a, go, q, k, v, out, lse, gq, gk, gv);
  generic::attention_backward(dt, a, go, q, k, v, out, lse, gq, gk, gv);
}

}  // namespace ember::kernels
