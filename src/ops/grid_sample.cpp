// grid_sampler (torch.grid_sampler / F.grid_sample): argument checks with torch's rules, one
// kernel call (src/kernels/cpu/grid_sample.cpp), and the backward right below the forward.
// The backward kernel is fused (a scatter into the input's gradient), so, as torch's, it is
// not itself differentiable.
#include "ember/record.h"
#include <vector>

#include "autograd/function.h"
#include "ember/functional.h"
#include "kernels/cpu/grid_sample.h"
#include "ops/iter.h"

namespace ember {
namespace {

using autograd::SavedTensor;
using kernels::GridSampleGeom;

Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : contiguous(detach(t)); }

// Under create_graph the fused backward's results get a node that raises when differentiated:
// a second derivative through grid_sample is not implemented, and must not silently be 0.
void guard_double_backward(const char* what, std::vector<Tensor> inputs, const Tensor& a,
                           const Tensor& b) {
  if (!GradMode::is_enabled()) return;
  std::vector<Tensor> ins, outs;
  for (const Tensor& t : inputs)
    if (t.defined()) ins.push_back(t);
  for (const Tensor* t : {&a, &b})
    if (t->defined()) outs.push_back(*t);
  if (!autograd::any_requires_grad(ins) || outs.empty()) return;
  autograd::record(what, ins, outs, [what](Grads&, const Node&) -> Grads {
    throw NotImplementedError(
        detail::cat("the derivative for '", what, "' is not implemented in ember (torch has one)"));
  });
}

GridSampleGeom check_geometry(const Tensor& input, const Tensor& grid, int64_t mode,
                              int64_t padding_mode, bool align_corners) {
  const char* op = "grid_sampler";
  ops::check_defined(input, op);
  ops::check_defined(grid, op);
  EMBER_CHECK(mode >= 0 && mode <= 2, ValueError, op,
              ": expected interpolation mode 0 (bilinear), 1 (nearest) or 2 (bicubic), but got ",
              mode);
  EMBER_CHECK(padding_mode >= 0 && padding_mode <= 2, ValueError, op,
              ": expected padding mode 0 (zeros), 1 (border) or 2 (reflection), but got ",
              padding_mode);
  EMBER_CHECK(input.dtype() == grid.dtype(), Error, op,
              ": expected input and grid to have same dtype, but input has ",
              dtype_name(input.dtype()), " and grid has ", dtype_name(grid.dtype()));
  EMBER_CHECK(input.dtype() == DType::Float32 || input.dtype() == DType::Float64, Error, op,
              ": expected float32 or float64 input and grid, but got ", dtype_name(input.dtype()),
              " (input of shape ", input.sizes(), ")");
  const int64_t dim = input.dim();
  EMBER_CHECK((dim == 4 || dim == 5) && grid.dim() == dim, Error, op,
              ": expected 4D or 5D input and grid with same number of dimensions, but got input "
              "with sizes ",
              input.sizes(), " and grid with sizes ", grid.sizes());
  EMBER_CHECK(input.size(0) == grid.size(0), Error, op,
              ": expected grid and input to have same batch size, but got input with sizes ",
              input.sizes(), " and grid with sizes ", grid.sizes());
  EMBER_CHECK(grid.size(-1) == dim - 2, Error, op, ": expected grid to have size ", dim - 2,
              " in last dimension, but got grid with sizes ", grid.sizes());
  for (int64_t d = 2; d < dim; ++d)
    EMBER_CHECK(input.size(d) > 0, Error, op,
                ": expected input to have non-empty spatial dimensions, but input has sizes ",
                input.sizes(), " with dimension ", d, " being empty");
  EMBER_CHECK(!(mode == 2 && dim == 5), Error, op,
              ": bicubic interpolation only supports 4D input, but got input with sizes ",
              input.sizes());
  GridSampleGeom g;
  g.ndim = int(dim - 2);
  g.n = input.size(0);
  g.c = input.size(1);
  for (int d = 0; d < g.ndim; ++d) {
    g.in[d] = input.size(2 + d);
    g.out[d] = grid.size(1 + d);
  }
  g.mode = kernels::GridMode(mode);
  g.padding = kernels::GridPadding(padding_mode);
  g.align_corners = align_corners;
  return g;
}

}  // namespace

Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding_mode,
                    bool align_corners) {
  EMBER_RECORD(grid_sampler, input, grid, mode, padding_mode, align_corners);
  const GridSampleGeom g = check_geometry(input, grid, mode, padding_mode, align_corners);
  Dims shape{g.n, g.c};
  for (int d = 0; d < g.ndim; ++d) shape.push_back(g.out[d]);
  Tensor out = Tensor::empty(shape, input.dtype());
  const Tensor x = dense(input), gr = dense(grid);
  if (out.numel() > 0)
    kernels::grid_sample_forward(x.dtype(), g, x.data_ptr(), gr.data_ptr(), out.data_ptr());
  if (!autograd::any_requires_grad(input, grid)) return out;
  autograd::record(g.ndim == 2 ? "GridSampler2DBackward0" : "GridSampler3DBackward0",
                   {&input, &grid}, {&out},
                   [g, sx = SavedTensor(input), sg = SavedTensor(grid)](Grads& gs,
                                                                        const Node& n) -> Grads {
                     const Tensor xo = sx.get(), gro = sg.get();
                     const Tensor x = dense(xo), gr = dense(gro);
                     const Tensor go = dense(detach(gs[0]));
                     Tensor gi =
                         n.needs_input_grad(0) ? Tensor::empty(x.sizes(), x.dtype()) : Tensor();
                     Tensor gg =
                         n.needs_input_grad(1) ? Tensor::empty(gr.sizes(), gr.dtype()) : Tensor();
                     kernels::grid_sample_backward(x.dtype(), g, go.data_ptr(), x.data_ptr(),
                                                   gr.data_ptr(),
                                                   gi.defined() ? gi.data_ptr() : nullptr,
                                                   gg.defined() ? gg.data_ptr() : nullptr);
                     guard_double_backward(g.ndim == 2 ? "grid_sampler_2d_backward"
                                                       : "grid_sampler_3d_backward",
                                           {xo, gro, gs[0]}, gi, gg);
                     return {gi, gg};
                   });
  return out;
}

}  // namespace ember
