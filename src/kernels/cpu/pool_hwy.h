// SIMD max pooling of 16-bit floats and float32 over 2x2 windows with stride 2 (the CNN's
// MaxPool2d(2)), compiled once per instruction set by Highway and picked at run time (as
// elementwise_hwy.h). pool.cpp sends a plane here when the window fits the input without padding
// and the rows are contiguous; every other shape stays on its scalar loops. Note [Max pool 2x2 on
// bits].
#pragma once
#include <cstdint>

namespace ember::kernels {

// One (H, W) plane of bfloat16 (fp16 = false) or float16 bit patterns, rows rs elements apart
// (columns contiguous), into ho x wo outputs (ho <= H / 2, wo <= W / 2) and, if idx is not
// null, the argmax of each as h * W + w. H * W must fit an int32. The result is the scalar
// loop's bit for bit: NaN wins (the last one in the window, payload kept), else the first
// strictly larger value (-0 and +0 tie, so the first of them stays).
void max_pool2x2_half_plane(bool fp16, const uint16_t* src, int64_t rs, int64_t w, int64_t ho,
                            int64_t wo, uint16_t* out, int64_t* idx);
// The same for float32, compared as floats (the scalar loop's comparisons and order).
void max_pool2x2_f32_plane(const float* src, int64_t rs, int64_t w, int64_t ho, int64_t wo,
                           float* out, int64_t* idx);

}  // namespace ember::kernels
