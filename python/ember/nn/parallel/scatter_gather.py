"""torch.nn.parallel.scatter_gather on a machine without accelerators (captum imports it for
its multi-device batches). scatter/scatter_kwargs copy the structure of their inputs once per
target device, as torch's: non-tensor leaves are shared by reference. A tensor leaf would be
split across the devices, and ember has none (CPU only), so it raises, as torch's CPU build
does (there with an AttributeError from its missing CUDA bindings; here a clear RuntimeError);
gather raises torch's AssertionError for CPU tensors."""
import warnings

from ..._tensor import Tensor
from ...autograd import Function

__all__ = ["scatter", "scatter_kwargs", "gather", "is_namedtuple", "Scatter", "Gather"]


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def is_namedtuple(obj):
    """Whether obj is a namedtuple (a tuple with `_asdict` and `_fields`); deprecated in torch,
    with its FutureWarning."""
    warnings.warn("`is_namedtuple` is deprecated, please use the python checks instead",
                  FutureWarning, stacklevel=2)
    return _is_namedtuple(obj)


def _device_index(op, device):
    name = getattr(device, "type", device)
    if name == "cpu" or (isinstance(name, str) and name.startswith("cpu")):
        raise ValueError(f"Expected a non cpu device, but got: {device}")
    return device


class Scatter(Function):
    """Splits a tensor across accelerator devices: there are none in ember."""

    @staticmethod
    def forward(ctx, target_gpus, chunk_sizes, dim, input):
        devices = [_device_index("scatter", d) for d in target_gpus]
        raise RuntimeError(f"scatter: ember runs on the CPU only; it has no device among "
                           f"{devices} to split a tensor of shape {tuple(input.shape)} onto")


class Gather(Function):
    """Concatenates tensors from accelerator devices onto one: there are none in ember."""

    @staticmethod
    def forward(ctx, target_device, dim, *inputs):
        raise AssertionError("Gather function not implemented for CPU tensors")


def scatter(inputs, target_gpus, dim=0):
    """inputs' structure once per device of target_gpus (tuples and lists become lists of
    them, dicts and namedtuples keep their type); tensors raise (no device to split onto)."""
    def split(obj):
        if isinstance(obj, Tensor):
            return Scatter.apply(target_gpus, None, dim, obj)
        if _is_namedtuple(obj):
            return [type(obj)(*parts) for parts in zip(*map(split, obj))]
        if isinstance(obj, tuple) and obj:
            return list(zip(*map(split, obj)))
        if isinstance(obj, list) and obj:
            return [list(parts) for parts in zip(*map(split, obj))]
        if isinstance(obj, dict) and obj:
            return [type(obj)(parts) for parts in zip(*map(split, obj.items()))]
        return [obj for _ in target_gpus]
    return split(inputs)


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """scatter of the positional and keyword inputs, padded to the same count with () and {}."""
    args = scatter(inputs, target_gpus, dim) if inputs else []
    kws = scatter(kwargs, target_gpus, dim) if kwargs else []
    args.extend(() for _ in range(len(kws) - len(args)))
    kws.extend({} for _ in range(len(args) - len(kws)))
    return tuple(args), tuple(kws)


def gather(outputs, target_device, dim=0):
    """Tensors from several devices concatenated on one: CPU tensors raise, as torch's."""
    def join(outs):
        first = outs[0]
        if isinstance(first, Tensor):
            return Gather.apply(target_device, dim, *outs)
        if first is None:
            return None
        if isinstance(first, dict):
            if any(len(first) != len(d) for d in outs):
                raise ValueError("All dicts must have the same number of keys")
            return type(first)((k, join([d[k] for d in outs])) for k in first)
        if _is_namedtuple(first):
            return type(first)._make(map(join, zip(*outs)))
        return type(first)(map(join, zip(*outs)))
    return join(outputs)
