// grid_sample's kernels (torch.nn.functional.grid_sample): the input sampled at the grid's
// normalized coordinates, bilinear / nearest / bicubic, with zeros / border / reflection padding,
// for 2 or 3 spatial dims (bicubic: 2 only), forward and backward. Kernels see pointers and
// sizes only; src/ops/grid_sample.cpp checks arguments and makes operands contiguous.
#pragma once
#include <cstdint>

#include "ember/dtype.h"

namespace ember::kernels {

enum class GridMode : int { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class GridPadding : int { Zeros = 0, Border = 1, Reflection = 2 };

// input (n, c, *in), grid (n, *out, ndim) with the last dim in (x, y[, z]) order, i.e. the
// reverse of the spatial dims; output (n, c, *out). All contiguous, float32 or float64.
struct GridSampleGeom {
  int ndim = 2;  // spatial dims: 2 or 3
  int64_t n = 0, c = 0;
  int64_t in[3] = {1, 1, 1};   // input spatial sizes (outermost first)
  int64_t out[3] = {1, 1, 1};  // output spatial sizes
  GridMode mode = GridMode::Bilinear;
  GridPadding padding = GridPadding::Zeros;
  bool align_corners = false;
};

void grid_sample_forward(DType dt, const GridSampleGeom& g, const char* input, const char* grid,
                         char* out);
// grad_input (overwritten; may be null: not wanted) and grad_grid (overwritten; may be null).
// The grid's gradient is 0 for 'nearest', as torch.
void grid_sample_backward(DType dt, const GridSampleGeom& g, const char* grad_out,
                          const char* input, const char* grid, char* grad_input, char* grad_grid);

}  // namespace ember::kernels
