// Convolutions on oneDNN's primitives (Note [Convolution on oneDNN] in conv_dnnl.cpp): the
// forward, backward-data and backward-weights passes of the geometries where they were measured
// faster than ember's own kernels (conv.cpp). Without oneDNN in the build every function here
// declines and conv.cpp runs its own paths.
#pragma once
#include <cstdint>

#include "ember/dtype.h"
#include "kernels/cpu/conv.h"

namespace ember::kernels {

enum class ConvPass { Forward, BackwardData, BackwardWeights };

// Whether oneDNN should run convolutions of this dtype and geometry (the input's strides aside:
// oneDNN reads a dense input only, so the caller copies a strided one first).
bool conv_dnnl_preferred(DType dt, const Conv2dGeom& g);

// Elements (of dt) of scratch that the pass needs (its layout reorders), or -1 when oneDNN does
// not run it: not preferred, an input that is not dense, or a geometry oneDNN refuses.
int64_t conv_dnnl_workspace(DType dt, const Conv2dGeom& g, ConvPass pass);

// The passes, on dense (N, C, [D,] H, W) tensors and contiguous weights (O, C / groups, ...);
// each returns false (writing nothing) when oneDNN declines, true when the outputs are written.
// out = conv(input, weight) + bias (bias may be null).
bool conv_dnnl_forward(DType dt, const Conv2dGeom& g, const void* input, const void* weight,
                       const void* bias, void* out, void* workspace);
// grad_input = the adjoint of the convolution applied to grad_out.
bool conv_dnnl_backward_data(DType dt, const Conv2dGeom& g, const void* weight,
                             const void* grad_out, void* grad_input, void* workspace);
// grad_weight and grad_bias (either may be null, not both) from input and grad_out.
bool conv_dnnl_backward_weights(DType dt, const Conv2dGeom& g, const void* input,
                                const void* grad_out, void* grad_weight, void* grad_bias,
                                void* workspace);

}  // namespace ember::kernels
