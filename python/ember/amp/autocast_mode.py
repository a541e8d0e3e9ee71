"""ember.autocast / ember.amp.autocast: PyTorch's automatic mixed precision region.

On the CPU, autocast runs the ops of torch's lower-precision list (matmul, mm, bmm, addmm, linear,
conv*) in bfloat16 (or float16), the ops of its float32 list (the losses, prod, ...) in float32, and
everything else in its inputs' dtypes. The casts happen in C++ at each listed op's entry, from a
per-thread state this module sets (Note [Autocast] in include/ember/autocast.h; docs/half.md).
As torch's CPU build: autocast('cuda') warns and disables itself (no CUDA), an unsupported dtype
warns and disables, enabled=False is a plain region, regions nest, and autocast works as a
context manager and as a decorator.
"""
import functools
import warnings

from .. import _C
from .._device import DEVICE_TYPES
from .._dtype import PlannedDtype, bfloat16, float16

# torch._C._is_autocast_available and torch's default autocast dtypes, per device type.
_AVAILABLE = ("cpu", "cuda", "mps", "xpu", "xla", "hpu", "ipu", "mtia", "maia", "privateuseone")
_DEFAULT_DTYPE = {"cpu": bfloat16, "xla": bfloat16, "hpu": bfloat16, "maia": bfloat16}
_enabled = {}   # device type -> bool (False when absent); the CPU's state lives in C++
_dtype = {}     # device type -> dtype set by set_autocast_dtype (not the CPU's)
_cache = [True]
_nesting = [0]


def _check_type(device_type):
    if device_type not in DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of "
                           f"device string: {device_type}")
    return device_type


def is_autocast_available(device_type):
    """Whether autocast can target `device_type` (a device type string, as torch)."""
    return _check_type(device_type) in _AVAILABLE


def is_autocast_enabled(device_type=None):
    """Whether an autocast region is active for `device_type` (no argument: CUDA, as torch).

    >>> with ember.autocast('cpu'):
    ...     print(ember.is_autocast_enabled('cpu'))
    True
    >>> ember.is_autocast_enabled('cpu')
    False
    """
    device_type = _check_type("cuda" if device_type is None else device_type)
    if device_type == "cpu":
        return _C._autocast_cpu_enabled()
    return _enabled.get(device_type, False)


def get_autocast_dtype(device_type):
    """The dtype autocast uses for `device_type` (torch's defaults until set_autocast_dtype).

    >>> ember.get_autocast_dtype('cpu')
    ember.bfloat16
    """
    _check_type(device_type)
    if device_type not in _AVAILABLE:
        raise RuntimeError("unsupported scalarType")
    if device_type == "cpu":
        return _C._autocast_cpu_dtype()
    return _dtype.get(device_type, _DEFAULT_DTYPE.get(device_type, float16))


def _refuse(device_type, dtype):
    raise NotImplementedError(
        f"autocast: ember has no '{device_type}' device to autocast to {dtype}; CPU autocast "
        f"works (autocast('cpu', dtype=torch.bfloat16))")


def set_autocast_enabled(device_type, enabled):
    """Turns autocast on or off for `device_type` on this thread (only the CPU can be on).

    >>> ember.set_autocast_enabled('cpu', True)
    >>> ember.is_autocast_enabled('cpu')
    True
    >>> ember.set_autocast_enabled('cpu', False)
    """
    _check_type(device_type)
    if device_type == "cpu":
        _C._set_autocast_cpu_enabled(bool(enabled))
        return
    if enabled:
        _refuse(device_type, get_autocast_dtype(device_type))
    _enabled[device_type] = False


def set_autocast_dtype(device_type, dtype):
    """set_autocast_dtype(device_type, dtype) -> None

    The dtype autocast regions of `device_type` use from now on.

    >>> ember.set_autocast_dtype('cpu', ember.float16)
    >>> ember.get_autocast_dtype('cpu')
    ember.float16
    >>> ember.set_autocast_dtype('cpu', ember.bfloat16)
    """
    get_autocast_dtype(device_type)  # validates the device type
    if not isinstance(dtype, (PlannedDtype, _C.dtype)):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' (position 2) must be "
                        f"ember.dtype, not {type(dtype).__name__}")
    if device_type == "cpu":
        if dtype in (bfloat16, float16):  # anything else only disables the region (autocast)
            _C._set_autocast_cpu_dtype(dtype)
        return
    _dtype[device_type] = dtype


# torch's pre-2.4 CPU spellings: still public, each warning as torch's does.
def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    """Deprecated spelling of ``is_autocast_enabled('cpu')`` (warns, as torch).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ember.is_autocast_cpu_enabled()
    False
    """
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    """Deprecated spelling of ``set_autocast_enabled('cpu', enabled)`` (warns, as torch).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ember.set_autocast_cpu_enabled(True)
    ...     print(ember.is_autocast_enabled('cpu'))
    ...     ember.set_autocast_cpu_enabled(False)
    True
    """
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    """Deprecated spelling of ``get_autocast_dtype('cpu')`` (warns, as torch).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ember.get_autocast_cpu_dtype()
    ember.bfloat16
    """
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    """Deprecated spelling of ``set_autocast_dtype('cpu', dtype)`` (warns, as torch).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ember.set_autocast_cpu_dtype(ember.float16)
    ...     print(ember.get_autocast_dtype('cpu'))
    ...     ember.set_autocast_cpu_dtype(ember.bfloat16)
    ember.float16
    """
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def is_autocast_cache_enabled():
    """is_autocast_cache_enabled() -> bool

    Whether autocast regions cache their casts (a flag only: ember caches none).

    >>> ember.is_autocast_cache_enabled()
    True
    """
    return _cache[0]


def set_autocast_cache_enabled(enabled):
    """set_autocast_cache_enabled(enabled) -> None

    Sets the flag is_autocast_cache_enabled() reads (ember caches no casts either way).

    >>> ember.set_autocast_cache_enabled(False)
    >>> ember.is_autocast_cache_enabled()
    False
    >>> ember.set_autocast_cache_enabled(True)
    """
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    _cache[0] = enabled


def clear_autocast_cache():
    """Drops the casts cached inside autocast regions: ember caches none.

    >>> ember.clear_autocast_cache() is None
    True
    """


def autocast_increment_nesting():
    """autocast_increment_nesting() -> int

    Adds one to the autocast nesting counter and returns it.

    >>> ember.autocast_increment_nesting()
    1
    >>> ember.autocast_decrement_nesting()
    0
    """
    _nesting[0] += 1
    return _nesting[0]


def autocast_decrement_nesting():
    """autocast_decrement_nesting() -> int

    Takes one from the autocast nesting counter and returns it.

    >>> ember.autocast_increment_nesting()
    1
    >>> ember.autocast_decrement_nesting()
    0
    """
    _nesting[0] -= 1  # below 0 as torch's counter goes (an unmatched decrement is the caller's)
    return _nesting[0]


class autocast:
    """autocast(device_type, dtype=None, enabled=True, cache_enabled=None): a mixed-precision
    region, as a context manager or a decorator (see the module doc for what ember does).

    >>> a, b = ember.ones(2, 2), ember.ones(2, 2)
    >>> with ember.autocast('cpu', dtype=ember.bfloat16):
    ...     c = a @ b
    >>> c.dtype
    ember.bfloat16
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError("User specified an unsupported autocast device_type "
                               f"'{device_type}'")
        self._cache_enabled = (is_autocast_cache_enabled() if cache_enabled is None
                               else cache_enabled)
        if enabled:
            name = device_type.upper()
            if device_type == "cuda":
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                              stacklevel=2)
                enabled = False
            elif self.fast_dtype not in (bfloat16, float16):
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. "
                              f"Disabling autocast.\n{name} Autocast only supports dtypes of "
                              f"{bfloat16}, {float16} currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        if self._enabled and self.device != "cpu":  # before any state changes
            _refuse(self.device, self.fast_dtype)
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                            "Did you mean to use autocast as a context manager? For example:\n"
                            "    with torch.autocast(device_type=...):\n"
                            "        output = model(input)")

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


def _cast(value, dtype):
    """torch.amp.autocast_mode._cast: floating tensors (in containers too) cast to dtype."""
    if isinstance(value, _C.Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {_cast(k, dtype): _cast(v, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype) for v in value)
    return value


def float32_op(fn):
    """Puts a loss written in Python on torch's CPU autocast float32 list (the C++ ops on it cast
    in C++, Note [Autocast]): inside an enabled CPU region its bfloat16/float16 tensor arguments
    go to float32 and it runs with autocast off, as torch runs them."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        if not _C._autocast_cpu_enabled():
            return fn(*args, **kwargs)
        _C._set_autocast_cpu_enabled(False)
        try:
            return fn(*_half_to_float32(args), **_half_to_float32(kwargs))
        finally:
            _C._set_autocast_cpu_enabled(True)
    return run


def _half_to_float32(value):
    if isinstance(value, _C.Tensor):
        return value.float() if value.dtype in (bfloat16, float16) else value
    if isinstance(value, dict):
        return {k: _half_to_float32(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_half_to_float32(v) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom autograd Function's forward: inside an enabled autocast region with
    `cast_inputs` set, floating tensor arguments are cast to it and forward runs with autocast off
    (as torch); otherwise forward runs as is."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]  # the Function's ctx: backward runs under the same autocast state
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        ctx._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, cast_inputs), **_cast(kwargs, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom autograd Function's backward (runs it with forward's autocast
    state)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
