"""torch's global switches for float32 matmul precision and deterministic algorithms.

Programs set them for speed (TF32 on GPUs) or reproducibility. ember stores and reports them as
torch does, with torch's validation and messages; its CPU kernels do not consult them (float32
matmuls always run in full float32 through BLAS, and no ember op has a faster
nondeterministic variant to switch off). (docs/devices.md)
"""
import builtins
import warnings

_PRECISIONS = ("highest", "high", "medium")
_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}
_state = {"matmul_precision": "highest", "deterministic": False, "warn_only": False}


def get_float32_matmul_precision():
    """'highest' (the default), 'high' or 'medium'.

    >>> ember.get_float32_matmul_precision()
    'highest'
    """
    return _state["matmul_precision"]


def set_float32_matmul_precision(precision):
    """Stores the precision float32 matmuls may use; an unknown name warns and changes nothing.

    >>> ember.set_float32_matmul_precision('high')
    >>> ember.get_float32_matmul_precision()
    'high'
    >>> ember.set_float32_matmul_precision('highest')
    """
    if not isinstance(precision, str):
        raise RuntimeError("set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state["matmul_precision"] = precision


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Stores whether only deterministic algorithms may run (ember's ops all are).

    >>> ember.use_deterministic_algorithms(True)
    >>> ember.are_deterministic_algorithms_enabled()
    True
    >>> ember.use_deterministic_algorithms(False)
    """
    if not isinstance(mode, builtins.bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    if not isinstance(warn_only, builtins.bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled():
    """are_deterministic_algorithms_enabled() -> bool

    Whether use_deterministic_algorithms(True) is in effect.

    >>> ember.are_deterministic_algorithms_enabled()
    False
    """
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    """is_deterministic_algorithms_warn_only_enabled() -> bool

    Whether use_deterministic_algorithms was set with warn_only=True.

    >>> ember.is_deterministic_algorithms_warn_only_enabled()
    False
    """
    return _state["warn_only"]


def get_deterministic_debug_mode():
    """0 (default), 1 (warn) or 2 (error), from use_deterministic_algorithms.

    >>> ember.get_deterministic_debug_mode()
    0
    """
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_deterministic_debug_mode(debug_mode):
    """0/'default', 1/'warn' or 2/'error': use_deterministic_algorithms by another name.

    >>> ember.set_deterministic_debug_mode('warn')
    >>> ember.get_deterministic_debug_mode()
    1
    >>> ember.set_deterministic_debug_mode(0)
    """
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if not isinstance(debug_mode, builtins.int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(builtins.bool(debug_mode != 0), warn_only=debug_mode == 1)
