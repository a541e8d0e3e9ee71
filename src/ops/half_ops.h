// bfloat16/float16 at the ops layer: the kernels that are not Loop-based (reductions,
// softmax, norms, losses, pools, convolution, matmul) run on float32 copies.
//
// Note [Half ops through float32]: an op over a half tensor widens its inputs to float32
// (exact), runs the float32 kernel (which accumulates in float32, as torch does for
// reduced-precision reductions) and rounds the result once into the half dtype. The
// autograd record stays on the half tensors, so gradients are half too, as in torch. The
// elementwise kernels convert in blocks instead (Note [Half kernels], kernels/cpu/half.h).
#pragma once
#include "ember/tensor.h"

namespace ember::ops {

// t as float32 when it is bfloat16/float16 (a new tensor, no gradient recorded); else t.
Tensor widened(const Tensor& t);
// r rounded into dtype dt when dt is bfloat16/float16 (no gradient recorded); else r.
Tensor narrowed(const Tensor& r, DType dt);
// The dtype a kernel computes in for dtype dt: float32 for the half types, else dt.
inline DType compute_dtype_of(DType dt) { return is_half(dt) ? DType::Float32 : dt; }

}  // namespace ember::ops
