"""make_tensor as torch.testing.make_tensor: values uniform in [low, high) with torch's default
range per dtype (floats [-9, 9), integers [-9, 10) clamped to the dtype, bool {False, True})."""
import collections.abc
import math
import warnings

from .. import _C


def _dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def _low_high(dtype, low, high, lowest, highest, default_low, default_high, integral):
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and not integral:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex "
                      "types is deprecated since 2.1 and will be removed in 2.3. Use "
                      "`torch.full(...)` instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if integral:
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of `shape` and `dtype` filled from ember's RNG (seed with ember.manual_seed).
    noncontiguous=True returns every other element of a tensor twice as wide in the last dim.
    memory_format lays the result out so (ember.channels_last, ...).

    >>> t = ember.testing.make_tensor(2, 3, dtype=ember.float32, device="cpu", low=-1, high=1)
    >>> t.shape, t.dtype, bool((t.abs() <= 1).all())
    (ember.Size([2, 3]), ember.float32, True)
    """
    import ember
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous} and "
                         f"memory_format={memory_format}")
    name = _dtype_name(dtype)
    integral = name in ("bool", "uint8", "int8", "int16", "int32", "int64")
    if requires_grad and integral:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral dtypes, "
                         f"but got dtype={dtype}")
    if device is not None and str(device) != "cpu":
        raise RuntimeError(f"make_tensor: device '{device}' is not available; ember runs on cpu")
    numel = math.prod(shape)
    noncontiguous = noncontiguous and numel > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if name == "bool":
        low, high = _low_high(dtype, low, high, 0, 2, 0, 2, True)
        result = ember.randint(low, high, shape, dtype=dtype)
    elif integral:
        info = ember.iinfo(dtype)
        low, high = _low_high(dtype, low, high, info.min, info.max + (name != "int64"), -9, 10,
                              True)
        result = ember.randint(low, high, shape, dtype=dtype)
    elif dtype.is_floating_point:
        info = ember.finfo(dtype)
        low, high = _low_high(dtype, low, high, info.min, info.max, -9, 9, False)
        result = ember.empty(shape, dtype=dtype)
        if high - low >= info.max:  # the width itself would overflow: draw half, double
            result.uniform_(low / 2, high / 2).mul_(2)
        else:
            result.uniform_(low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "torch.testing.make_tensor().")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if integral else ember.finfo(dtype).tiny
    if not integral:
        result.requires_grad_(requires_grad)
    return result
