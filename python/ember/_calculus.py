"""Numerical integration and differentiation of sampled functions, as torch's: trapezoid (trapz),
cumulative_trapezoid and gradient (numpy's second-order central differences). Compositions of
ember ops along one dim (narrow, arithmetic, sum/cumsum, cat), so autograd flows through."""
import builtins
import numbers

from . import _C
from ._tensor import Tensor


def _check_tensor(x, op, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(x).__name__}")


def _float(y):
    """Integer and bool samples integrate in the default float dtype, as torch."""
    from ._dtype import get_default_dtype
    return y if y.is_floating_point() else y.to(get_default_dtype())


def _dim(y, dim, op):
    if y.dim() == 0:
        raise IndexError(f"{op}(): Dimension specified as {dim} but tensor has no dimensions")
    if not -y.dim() <= dim < y.dim():
        _bad_dim(y, dim, op)
    return dim % y.dim()


def _bad_dim(y, dim, op):
    raise IndexError(f"{op}(): Dimension out of range (expected to be in range of [{-y.dim()}, "
                     f"{y.dim() - 1}], but got {dim})")


def _x_steps(y, x, dim, op):
    """The spacings x[i + 1] - x[i] shaped to broadcast against y's slices along dim."""
    _check_tensor(x, op, "x")
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{op}: There must be one `x` value for each sample point "
                               f"(x has {x.shape[0]}, y has {y.shape[dim]} along dim {dim})")
        shape = [1] * y.dim()
        shape[dim] = x.shape[0]
        x = x.reshape(shape)
        xd = dim
    else:
        xd = dim - y.dim() + x.dim()  # x broadcasts against y from the right
        if xd < 0 or x.shape[xd] != y.shape[dim]:
            raise RuntimeError(f"{op}: There must be one `x` value for each sample point "
                               f"(x {tuple(x.shape)}, y {tuple(y.shape)}, dim {dim})")
    n = x.shape[xd]
    return x.narrow(xd, 1, n - 1) - x.narrow(xd, 0, n - 1)


def _pair_sums(y, dim):
    n = y.shape[dim]
    return y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)


def _scalar_dx(dx, op):
    if dx is None:
        return 1.0
    if isinstance(dx, builtins.bool) or not isinstance(dx, numbers.Number):
        raise TypeError(f"{op}(): argument 'dx' must be a number, not {type(dx).__name__}")
    return dx


def _trapezoid(op, y, x, dx, dim):
    _check_tensor(y, op, "y")
    if x is not None and dx is not None:
        raise TypeError(f"{op}() received an invalid combination of arguments: x and dx")
    d = _dim(y, dim, op)
    if y.shape[d] == 0:
        return _float(y).sum(d)
    if x is not None and not isinstance(x, numbers.Number):
        return (_x_steps(y, x, d, op) * _pair_sums(y, d)).sum(d) / 2
    step = _scalar_dx(x if x is not None else dx, op)
    yf = _float(y)
    return (yf.sum(d) - (yf.select(d, 0) + yf.select(d, -1)) * 0.5) * step


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along dim, with sample points x or a constant spacing dx.

    >>> ember.trapezoid(ember.tensor([1.0, 2.0, 3.0]))
    tensor(4.)
    """
    return _trapezoid("trapezoid", y, x, dx, dim)


def trapz(y, x=None, *, dx=None, dim=-1):
    """torch.trapz: trapezoid's older name.

    >>> ember.trapz(ember.tensor([1.0, 2.0, 3.0]), dx=2.0)
    tensor(8.)
    """
    return _trapezoid("trapz", y, x, dx, dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral along dim (one fewer element than y there).

    >>> ember.cumulative_trapezoid(ember.tensor([1.0, 2.0, 3.0]))
    tensor([1.5000, 4.0000])
    """
    _check_tensor(y, "cumulative_trapezoid", "y")
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid() received an invalid combination of arguments: x and dx")
    d = _dim(y, dim, "cumulative_trapezoid")
    if y.shape[d] == 0:
        return _float(y)
    if x is not None and not isinstance(x, numbers.Number):
        return (_x_steps(y, x, d, "cumulative_trapezoid") * _pair_sums(y, d) / 2).cumsum(d)
    step = _scalar_dx(x if x is not None else dx, "cumulative_trapezoid")
    return (_float(_pair_sums(y, d)) * (step / 2)).cumsum(d)


# ---- gradient --------------------------------------------------------------------------------
def _gradient_dims(input, dim):
    if dim is None:
        return list(range(input.dim()))
    dims = [dim] if isinstance(dim, builtins.int) else list(dim)
    out = []
    for d in dims:
        if not -input.dim() <= d < input.dim():
            _bad_dim(input, d, "gradient")
        out.append(d % input.dim())
    if len(set(out)) != len(out):
        raise RuntimeError(f"torch.gradient: dim {tuple(dims)} appears multiple times in the list of dims")
    return out


def _spacings(spacing, dims, op="torch.gradient"):
    """One entry per dim: a number (uniform step) or a 1-d coordinate tensor."""
    if isinstance(spacing, (numbers.Number, Tensor)) and not (isinstance(spacing, Tensor) and spacing.dim() == 1):
        if isinstance(spacing, Tensor):
            spacing = spacing.item()
        return [spacing] * len(dims)
    spacing = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing]
    if len(spacing) == 1 and len(dims) > 1 and isinstance(spacing[0], numbers.Number):
        return spacing * len(dims)
    if len(spacing) != len(dims):
        raise RuntimeError(f"{op} expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length "
                           f"{len(spacing)} and a dim argument of length {len(dims)}.")
    return [s.item() if isinstance(s, Tensor) and s.dim() == 0 else s for s in spacing]


def _gradient_uniform(f, d, h, edge_order):
    n = f.shape[d]
    a = lambda s, k: f.narrow(d, s, k)  # noqa: E731
    inner = (a(2, n - 2) - a(0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (a(1, 1) - a(0, 1)) / h
        last = (a(n - 1, 1) - a(n - 2, 1)) / h
    else:
        first = (a(0, 1) * -1.5 + a(1, 1) * 2 - a(2, 1) * 0.5) / h
        last = (a(n - 3, 1) * 0.5 - a(n - 2, 1) * 2 + a(n - 1, 1) * 1.5) / h
    return _C.cat([first, inner, last], d)


def _gradient_coords(f, d, x, edge_order):
    n = f.shape[d]
    if x.dim() != 1 or x.shape[0] != n:
        raise RuntimeError(f"torch.gradient expected each tensor to be on the same device and of size "
                           f"{n} along dim {d}, but got coordinates of shape {tuple(x.shape)}")
    shape = [1] * f.dim()
    shape[d] = n - 1
    h = (x[1:] - x[:-1]).to(f.dtype).reshape(shape)
    a = lambda s, k: f.narrow(d, s, k)  # noqa: E731
    hk = lambda s, k: h.narrow(d, s, k)  # noqa: E731
    h1, h2 = hk(0, n - 2), hk(1, n - 2)  # the steps left and right of each inner point
    inner = (a(2, n - 2) * (h1 * h1) - a(0, n - 2) * (h2 * h2) + a(1, n - 2) * (h2 * h2 - h1 * h1)) \
        / (h1 * h2 * (h1 + h2))
    if edge_order == 1:
        first = (a(1, 1) - a(0, 1)) / hk(0, 1)
        last = (a(n - 1, 1) - a(n - 2, 1)) / hk(n - 2, 1)
    else:  # numpy's second-order one-sided formulas on uneven steps
        d1, d2 = hk(0, 1), hk(1, 1)
        first = a(0, 1) * (-(2 * d1 + d2) / (d1 * (d1 + d2))) + a(1, 1) * ((d1 + d2) / (d1 * d2)) \
            + a(2, 1) * (-d1 / (d2 * (d1 + d2)))
        d1, d2 = hk(n - 3, 1), hk(n - 2, 1)
        last = a(n - 3, 1) * (d2 / (d1 * (d1 + d2))) + a(n - 2, 1) * (-(d2 + d1) / (d1 * d2)) \
            + a(n - 1, 1) * ((2 * d2 + d1) / (d2 * (d1 + d2)))
    return _C.cat([first, inner, last], d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative estimated along each dim: central differences inside, one-sided
    differences of order edge_order (1 or 2) at the ends. Returns one tensor per dim.

    >>> ember.gradient(ember.tensor([1.0, 4.0, 9.0, 16.0]))
    (tensor([3., 4., 6., 7.]),)
    """
    _check_tensor(input, "gradient", "input")
    if edge_order not in (1, 2) or isinstance(edge_order, builtins.bool):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = _gradient_dims(input, dim)
    steps = _spacings(spacing, dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError(f"torch.gradient expected each dimension size to be at least "
                               f"edge_order+1 (dim {d} has size {input.shape[d]}, edge_order "
                               f"{edge_order})")
    f = _float(input)
    out = []
    for d, h in zip(dims, steps):
        if isinstance(h, Tensor):
            out.append(_gradient_coords(f, d, _float(h), edge_order))
        else:
            out.append(_gradient_uniform(f, d, h, edge_order))
    return tuple(out)


FUNCTIONS = {"trapezoid": trapezoid, "trapz": trapz, "cumulative_trapezoid": cumulative_trapezoid,
             "gradient": gradient}
METHODS = {}
