// 2-d and 3-d convolution kernels. float32 with stride 1 (on a CPU with AVX2 or AVX-512) takes the
// direct path (conv_direct.h: the taps read from a zero-padded copy of each image, SIMD
// micro-kernels, no im2col and no BLAS); everything else runs im2col + one GEMM per image
// and group (forward), and the matching backward (grad_weight and grad_input by GEMM,
// col2im, grad_bias by a sum). Kernels see pointers and sizes only; the ops layer
// (src/ops/conv.cpp) checks arguments, allocates outputs and the scratch workspace, and
// records autograd.
//
// Note [Convolution threads]: there is ONE level of parallelism. When the batch has at
// least two images (and enough work), images run in parallel, one column buffer (or padded
// image) per thread; each GEMM is then called from inside an OpenMP region, where
// OpenBLAS's OpenMP build runs on the calling thread only. With a single image (or one
// thread) the images run in turn on the calling thread and each GEMM gets BLAS's own
// threads, while im2col and col2im split their channels with parallel_for (the direct path
// splits the image's output tiles). The direct weight gradient splits its output tiles
// over the threads. Nothing ever changes BLAS's thread count at run time.
//
// Note [Deterministic convolution gradients]: grad_weight and grad_bias sum over the batch.
// im2col path: the batch is cut into a number of blocks fixed by the geometry alone (never
// by the thread count); each block sums its images in order into its own partial, and the
// partials are added in block order at the end. Direct path: each grad_weight element is
// summed by one thread, over batch chunks whose size is fixed by the geometry, in order;
// grad_bias sums each channel in image order. So the result is the same for any number of
// threads.
#pragma once
#include <cstdint>

#include "ember/dtype.h"

namespace ember::kernels {

// One convolution's geometry, in elements. A 3-d convolution (conv3d) adds a depth dim
// between the channels and the rows (input (N, C, D, H, W), weight (O, C / groups, kd, kh,
// kw), output (N, O, od, ho, wo)); a 2-d one keeps the depth defaults (one plane, a kernel
// of depth 1). The im2col path is then vol2col (rows (c, kz, ki, kj), columns (oz, oh, ow));
// the direct path runs 2-d convolutions only.
struct Conv2dGeom {
  int64_t n, c, h, w;  // input (N, C, H, W), any strides (in_stride)
  int64_t o, kh, kw;   // weight (O, C / groups, kh, kw), contiguous
  int64_t groups;
  int64_t sh, sw;        // stride
  int64_t ph, pw;        // zero rows / columns before the input (after it: implied by ho, wo)
  int64_t dh, dw;        // dilation
  int64_t ho, wo;        // output (N, O, ho, wo), contiguous
  int64_t in_stride[4];  // input strides (n, c, h, w)
  int64_t d = 1, kd = 1, sd = 1, pd = 0, dd = 1, od = 1;  // depth: input, kernel, stride,
                                                          // padding, dilation, output
  int64_t in_stride_d = 0;                                // input stride of the depth dim
};

// How one call splits its work. slots: images run on this many threads at once, each with
// its own column buffer of `col` elements (0 when BLAS reads the image in place). blocks:
// partial sums of grad_weight / grad_bias (backward). workspace: elements (of the conv's
// dtype) of scratch the caller must provide.
// direct: the call takes the direct path (with direct_slots threads over images); the other
// fields still describe the im2col path, which the direct backward falls back to for
// grad_input when the weights hold inf or NaN (workspace covers both).
// dnnl: oneDNN runs the call (conv_dnnl.h); the workspace covers it and ember's own path, which
// takes over for any pass oneDNN declines at run time.
// folded: images per GEMM of the batch-folded path (Note [Batch-folded convolution] in
// conv.cpp), 0 when it does not run the call.
struct Conv2dPlan {
  int64_t slots = 1, blocks = 1, col = 0, workspace = 0;
  bool direct = false;
  int64_t direct_slots = 1;
  bool dnnl = false;
  int64_t folded = 0;
};
// reduce_batch: the call computes grad_weight or grad_bias (sums over the batch).
Conv2dPlan conv2d_plan(DType dt, const Conv2dGeom& g, bool backward, bool reduce_batch);

// Whether the batch-folded im2col path (Note [Batch-folded convolution] in conv.cpp) should
// run this geometry: float32 2-d convolutions without groups onto small images, where it was
// measured faster than oneDNN. EMBER_CONV_FOLD=1 sends every geometry it can run (float32 and
// float64 2-d, groups 1, not 1x1 stride 1) to it, =0 none; EMBER_CONV_DNNL=1 still wins.
bool conv2d_folded_preferred(DType dt, const Conv2dGeom& g);

// out = conv(input, weight) + bias. bias (O,) may be null. Any dtype but bool (integers
// use ember's integer GEMM loop and wrap around on overflow).
void conv2d_forward(DType dt, const Conv2dGeom& g, const Conv2dPlan& plan, const void* input,
                    const void* weight, const void* bias, void* out, void* workspace);

// Gradients for float32 / float64: grad_out is contiguous (N, O, ho, wo); each of
// grad_input (contiguous (N, C, H, W)), grad_weight (O, C / groups, kh, kw) and grad_bias
// (O,) may be null when not wanted; they are overwritten, never accumulated into.
void conv2d_backward(DType dt, const Conv2dGeom& g, const Conv2dPlan& plan, const void* input,
                     const void* weight, const void* grad_out, void* grad_input, void* grad_weight,
                     void* grad_bias, void* workspace);

}  // namespace ember::kernels
