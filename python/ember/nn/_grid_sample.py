"""Spatial transformers: F.affine_grid and F.grid_sample, and torch's aten-level forms
(torch.affine_grid_generator, torch.grid_sampler, grid_sampler_2d / grid_sampler_3d).

grid_sample is one C++ op (src/ops/grid_sample.cpp: forward and backward kernels for input
and grid); affine_grid is a composition: a base grid of pixel centres times theta^T, one bmm.
Re-exported by ember.nn.functional and ember."""
import warnings

from .. import _C
from .. import _creation as _cr
from .._pointwise import _check_tensor

__all__ = ["affine_grid", "grid_sample"]

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_CHANGED = ("Default grid_sample and affine_grid behavior has changed to align_corners=False "
            "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
            "See the documentation of grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input (N, C, H, W) / (N, C, D, H, W) sampled at grid (N, Ho, Wo, 2) / (N, Do, Ho, Wo, 3),
    whose last dim holds (x, y[, z]) in [-1, 1]; differentiable in input and grid.

    >>> x = ember.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> grid = ember.tensor([[[[0.0, 0.0], [-1.0, -1.0]]]])
    >>> ember.nn.functional.grid_sample(x, grid, align_corners=True)
    tensor([[[[2.5000, 1.0000]]]])
    """
    if mode not in _MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_CHANGED, stacklevel=2)
        align_corners = False
    return _C.grid_sampler(input, grid, _MODES[mode], _PADDINGS[padding_mode], bool(align_corners))


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """torch.grid_sampler: grid_sample with the modes as ints (0 bilinear, 1 nearest, 2 bicubic;
    0 zeros, 1 border, 2 reflection).

    >>> x = ember.arange(4.0).reshape(1, 1, 2, 2)
    >>> grid = ember.tensor([[[[-1.0, -1.0], [1.0, 1.0]]]])
    >>> ember.grid_sampler(x, grid, 0, 0, True)
    tensor([[[[0., 3.]]]])
    """
    return _C.grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


# name -> its docstring example (a doctest of tests/python/test_docstring_examples.py)
SAMPLER_EXAMPLES = {
    "grid_sampler_2d": """\
>>> x = ember.arange(4.0).reshape(1, 1, 2, 2)
>>> ember.grid_sampler_2d(x, ember.zeros(1, 1, 1, 2), 0, 0, True)
tensor([[[[1.5000]]]])""",
    "grid_sampler_3d": """\
>>> x = ember.arange(8.0).reshape(1, 1, 2, 2, 2)
>>> ember.grid_sampler_3d(x, ember.zeros(1, 1, 1, 1, 3), 0, 0, True)
tensor([[[[[3.5000]]]]])""",
}


def _sampler_of_rank(name, dim):
    def sampler(input, grid, interpolation_mode, padding_mode, align_corners):
        if input.dim() != dim or grid.dim() != dim:
            raise RuntimeError(f"{name}(): expected {dim}D input and grid, but got input with "
                               f"sizes {list(input.shape)} and grid with sizes "
                               f"{list(grid.shape)}")
        return _C.grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)
    sampler.__name__ = sampler.__qualname__ = name
    sampler.__doc__ = (f"torch.{name}: grid_sampler restricted to {dim}-d input and grid.\n\n"
                       + SAMPLER_EXAMPLES[name])
    return sampler


grid_sampler_2d = _sampler_of_rank("grid_sampler_2d", 4)
grid_sampler_3d = _sampler_of_rank("grid_sampler_3d", 5)


def _steps(n, align_corners, like):
    """n pixel centres in [-1, 1] (align_corners: the corner pixels' centres at -1 and 1)."""
    if n <= 1:
        return _cr.zeros(1, dtype=like.dtype)
    r = _cr.linspace(-1.0, 1.0, n, dtype=like.dtype)
    return r if align_corners else r * ((n - 1) / n)


def affine_grid_generator(theta, size, align_corners):
    """torch.affine_grid_generator: the (N, H, W, 2) / (N, D, H, W, 3) grid theta maps the
    output's pixel centres to: base (x, y[, z], 1) rows times theta^T, one bmm.

    >>> theta = ember.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> ember.affine_grid_generator(theta, [1, 1, 1, 2], True)
    tensor([[[[-1.,  0.],
              [ 1.,  0.]]]])
    """
    size = [int(s) for s in size]
    spatial = size[2:]
    axes = [_steps(n, align_corners, theta) for n in reversed(spatial)]  # x, y[, z]
    nd = len(spatial)
    cols = []
    for k, a in enumerate(axes):  # a runs along spatial dim nd - 1 - k
        shape = [1] * nd
        shape[nd - 1 - k] = a.shape[0]
        cols.append(a.reshape(shape).expand(spatial))
    cols.append(_cr.ones(spatial, dtype=theta.dtype))
    base = _C.stack(cols, -1).reshape(1, -1, nd + 1).expand(size[0], -1, -1)
    grid = _C.bmm(base, theta.transpose(1, 2))
    return grid.reshape([size[0]] + spatial + [nd])


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of affine maps theta (N, 2, 3) or (N, 3, 4) for an output
    of size (N, C, H, W) or (N, C, D, H, W); feed it to grid_sample.

    >>> theta = ember.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> ember.nn.functional.affine_grid(theta, [1, 1, 1, 2], align_corners=False)
    tensor([[[[-0.5000,  0.0000],
              [ 0.5000,  0.0000]]]])
    """
    if align_corners is None:
        warnings.warn(_CHANGED, stacklevel=2)
        align_corners = False
    _check_tensor(theta, "affine_grid", "theta")
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"affine_grid: theta's batch size ({theta.shape[0]}) must match "
                           f"size[0] ({size[0]}); theta of shape {list(theta.shape)}, size {size}")
    return affine_grid_generator(theta, size, align_corners)
