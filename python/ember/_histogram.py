"""torch.histogram and torch.histogramdd: bins as a count, counts per dim or edge tensors, an
optional range, weights and density, parsed here; the binning is C++ (src/ops/histogram.cpp)."""
import builtins

from . import _C, return_types
from ._tensor import Tensor


def _range(range, op):
    if range is None:
        return None
    try:
        return [builtins.float(v) for v in range]
    except (TypeError, ValueError):
        raise TypeError(f"{op}(): range must be a sequence of numbers, got {range!r}") from None


def _run(input, bins, range, weight, density, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if isinstance(bins, Tensor):
        bins = [bins]
    elif isinstance(bins, builtins.int) and not isinstance(bins, builtins.bool):
        bins = [bins]
    elif not isinstance(bins, (list, tuple)) or not bins:
        raise TypeError(f"{op}(): bins must be an int, a sequence of ints or of tensors, "
                        f"got {type(bins).__name__}")
    if all(isinstance(b, Tensor) for b in bins):
        if range is not None:
            raise TypeError(f"{op}(): range cannot be given together with bin edges (tensors)")
        return _C._histogramdd_edges(input, list(bins), weight, density, op)
    if not all(isinstance(b, builtins.int) and not isinstance(b, builtins.bool) for b in bins):
        raise TypeError(f"{op}(): bins must be an int, a sequence of ints or of tensors, got {bins!r}")
    return _C._histogramdd_counts(input, list(bins), _range(range, op), weight, density, op)


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """Counts (or weights) of input's elements in `bins` equal-width bins over `range` (default:
    input's min and max), or in the bins between the given edges. Returns (hist, bin_edges).

    >>> ember.histogram(ember.tensor([1.0, 2.0, 1.0]), bins=2, range=(0.0, 2.0))
    ember.return_types.histogram(
    hist=tensor([0., 3.]),
    bin_edges=tensor([0., 1., 2.]))
    """
    if isinstance(bins, (list, tuple)):
        raise TypeError("histogram(): bins must be an int or a 1-d tensor of edges")
    if isinstance(input, Tensor):  # the 1-d case of histogramdd: one point per element
        if isinstance(weight, Tensor) and weight.shape == input.shape:
            weight = weight.reshape(-1)
        input = input.reshape(-1, 1)
    hist, edges = _run(input, bins, range, weight, density, "histogram")
    hist, edge = hist, edges[0]
    if out is not None:
        from ._comparison import _into
        hist, edge = _into(hist, out[0], "histogram"), _into(edge, out[1], "histogram")
    return return_types.histogram(hist, edge)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """The D-dimensional histogram of the points input[..., :] (last dim D).

    >>> h = ember.histogramdd(ember.tensor([[0.0, 0.0], [1.0, 1.0]]), bins=[2, 2])
    >>> h.hist
    tensor([[1., 0.],
            [0., 1.]])
    """
    hist, edges = _run(input, bins, range, weight, density, "histogramdd")
    return return_types.histogramdd(hist, tuple(edges))


FUNCTIONS = {"histogram": histogram, "histogramdd": histogramdd}
METHODS = {"histogram": histogram}
