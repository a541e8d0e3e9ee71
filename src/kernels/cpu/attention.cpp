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
int64_t attention_kept_probs(DType dt, const AttentionShape& a);
void attention_forward(DType dt, const AttentionShape& a, const void* q, const void* k,
                       const void* v, void* out, void* lse, void* probs);
void attention_backward(DType dt, const AttentionShape& a, const void* go, const void* q,
                        const void* k, const void* v, const void* out, const void* lse,
                        const void* probs, void* gq, void* gk, void* gv);
}  // namespace avx2
namespace avx512 {  // attention_avx512.cpp
int64_t attention_kept_probs(DType dt, const AttentionShape& a);
void attention_forward(DType dt, const AttentionShape& a, const void* q, const void* k,
                       const void* v, void* out, void* lse, void* probs);
void attention_backward(DType dt, const AttentionShape& a, const void* go, const void* q,
                        const void* k, const void* v, const void* out, const void* lse,
                        const void* probs, void* gq, void* gk, void* gv);
}  // namespace avx512

int64_t attention_kept_probs(DType dt, const AttentionShape& a) {
  if (use_avx512()) return avx512::attention_kept_probs(dt, a);
  if (use_avx2()) return avx2::attention_kept_probs(dt, a);
  return generic::attention_kept_probs(dt, a);
}

void attention_forward(DType dt, const AttentionShape& a, const void* q, const void* k,
                       const void* v, void* out, void* lse, void* probs) {
  if (use_avx512()) return avx512::attention_forward(dt, a, q, k, v, out, lse, probs);
  if (use_avx2()) return avx2::attention_forward(dt, a, q, k, v, out, lse, probs);
  generic::attention_forward(dt, a, q, k, v, out, lse, probs);
}

void attention_backward(DType dt, const AttentionShape& a, const void* go, const void* q,
                        const void* k, const void* v, const void* out, const void* lse,
                        const void* probs, void* gq, void* gk, void* gv) {
  if (use_avx512())
    return avx512::attention_backward(dt, a, go, q, k, v, out, lse, probs, gq, gk, gv);
  if (use_avx2()) return avx2::attention_backward(dt, a, go, q, k, v, out, lse, probs, gq, gk, gv);
  generic::attention_backward(dt, a, go, q, k, v, out, lse, probs, gq, gk, gv);
}

}  // namespace ember::kernels
