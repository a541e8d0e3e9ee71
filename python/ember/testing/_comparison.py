"""assert_close as torch.testing.assert_close: the same pairing rules (None, bool, numbers,
tensors, nested sequences and mappings), the same default tolerances per dtype and the same
mismatch messages ("Tensor-likes are not close!", mismatched elements, greatest differences
and their indices). Values are compared with ember ops (isclose, max); no element loops."""
import collections.abc
import cmath
import warnings

from .. import _C

# (rtol, atol) per dtype, torch's table; every other dtype compares exactly.
_DTYPE_PRECISIONS = {"float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
                     "float16": (0.001, 1e-5), "bfloat16": (0.016, 1e-5)}
_NUMBER_DTYPE = {int: "int64", float: "float64", complex: "complex128"}


class _Mismatch(Exception):
    def __init__(self, type_, msg, path=()):
        super().__init__(msg)
        self.type, self.msg, self.path = type_, msg, path

    def to_error(self, msg=None):
        if msg is None:
            text = self.msg
        elif callable(msg):
            text = msg(self.msg)
        else:
            text = msg
        if msg is None and self.path:
            text += f"\n\nThe failure occurred for item {''.join(str([p]) for p in self.path)}"
        return self.type(text)


def _dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def _tolerances(names, rtol, atol, path):
    if (rtol is None) ^ (atol is None):
        raise _Mismatch(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                        f"but got no {'rtol' if rtol is None else 'atol'}.", path)
    if rtol is not None:
        return rtol, atol
    pairs = [_DTYPE_PRECISIONS.get(n, (0.0, 0.0)) for n in names]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _diff_line(kind, diff, idx, tol, equality):
    line = f"{kind.title()} difference: {diff}" if idx is None else \
        f"Greatest {kind} difference: {diff} at index {idx}"
    return line + ("" if equality else f" (up to {tol} allowed)") + "\n"


def _mismatch_msg(ident, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0
    msg = f"{ident} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += extra.strip() + "\n"
    msg += _diff_line("absolute", abs_diff, abs_idx, atol, equality)
    msg += _diff_line("relative", rel_diff, rel_idx, rtol, equality)
    return msg.strip()


def _scalar_msg(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol,
                         rel_diff, None, rtol)


def _unravel(flat, shape):
    idx = []
    for size in reversed(shape):
        flat, mod = divmod(flat, size)
        idx.append(mod)
    return tuple(reversed(idx))


def _tensor_msg(actual, expected, matches, rtol, atol):
    from .. import abs as eabs, max as emax, int64
    n = matches.numel()
    bad = n - int(matches.sum())
    extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
    a, e, m = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.dtype.is_floating_point:
        a, e = a.to(int64), e.to(int64)
    abs_diff = eabs(a - e)
    abs_diff[m] = 0
    max_abs, abs_i = emax(abs_diff, 0)
    rel_diff = abs_diff / eabs(e)
    rel_diff[m] = 0
    max_rel, rel_i = emax(rel_diff, 0)
    shape = tuple(matches.shape)
    return _mismatch_msg("Tensor-likes", extra, max_abs.item(), _unravel(int(abs_i), shape), atol,
                         max_rel.item(), _unravel(int(rel_i), shape), rtol)


def _compare_tensors(actual, expected, path, o):
    from .. import isclose, promote_types
    if tuple(actual.shape) != tuple(expected.shape):
        raise _Mismatch(AssertionError, "The values for attribute 'shape' do not match: "
                        f"{actual.shape} != {expected.shape}.", path)
    if o["check_stride"] and actual.stride() != expected.stride():
        raise _Mismatch(AssertionError, "The values for attribute 'stride()' do not match: "
                        f"{actual.stride()} != {expected.stride()}.", path)
    if o["check_device"] and actual.device != expected.device:
        raise _Mismatch(AssertionError, "The values for attribute 'device' do not match: "
                        f"{actual.device} != {expected.device}.", path)
    if o["check_dtype"] and actual.dtype != expected.dtype:
        raise _Mismatch(AssertionError, "The values for attribute 'dtype' do not match: "
                        f"{actual.dtype} != {expected.dtype}.", path)
    rtol, atol = _tolerances([_dtype_name(actual.dtype), _dtype_name(expected.dtype)],
                             o["rtol"], o["atol"], path)
    actual, expected = actual.detach(), expected.detach()
    if actual.dtype != expected.dtype:
        dtype = promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(dtype), expected.to(dtype)
    if actual.numel() == 0:
        return
    matches = isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=o["equal_nan"])
    if bool(matches.all()):
        return
    if actual.dim() == 0:
        msg = _scalar_msg(actual.item(), expected.item(), rtol, atol)
    else:
        msg = _tensor_msg(actual, expected, matches, rtol, atol)
    raise _Mismatch(AssertionError, msg, path)


def _compare_numbers(actual, expected, path, o):
    if o["check_dtype"] and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != "
                        f"{type(expected)}.", path)
    rtol, atol = _tolerances([_NUMBER_DTYPE[type(x)] for x in (actual, expected)],
                             o["rtol"], o["atol"], path)
    if actual == expected:
        return
    if o["equal_nan"] and cmath.isnan(actual) and cmath.isnan(expected):
        return
    abs_diff = abs(actual - expected)
    if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
        return
    raise _Mismatch(AssertionError, _scalar_msg(actual, expected, rtol, atol), path)


def _as_number(x):
    try:
        import numpy as np
        if isinstance(x, np.number):
            return x.item()
    except ImportError:  # pragma: no cover
        pass
    return x


def _is_array(x):
    return type(x).__module__ == "numpy" and type(x).__name__ == "ndarray"


def _compare(actual, expected, path, o):
    if actual is None or expected is None:
        if actual is None and expected is None:
            return
        raise _Mismatch(AssertionError, f"None mismatch: {actual} is not {expected}", path)
    if isinstance(actual, bool) and isinstance(expected, bool):
        if actual != expected:
            raise _Mismatch(AssertionError,
                            f"Booleans mismatch: {actual} is not {expected}", path)
        return
    a, e = _as_number(actual), _as_number(expected)
    nums = (int, float, complex)
    if isinstance(a, nums) and isinstance(e, nums) and not isinstance(a, bool) \
            and not isinstance(e, bool):
        return _compare_numbers(a, e, path, o)
    if isinstance(actual, _C.Tensor) and isinstance(expected, _C.Tensor):
        return _compare_tensors(actual, expected, path, o)
    if _is_array(actual) and _is_array(expected):
        from .. import from_numpy
        return _compare_tensors(from_numpy(actual), from_numpy(expected), path, o)
    seq = collections.abc.Sequence
    if isinstance(actual, seq) and not isinstance(actual, str) and \
            isinstance(expected, seq) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, "The length of the sequences mismatch: "
                            f"{len(actual)} != {len(expected)}", path)
        for i, (x, y) in enumerate(zip(actual, expected)):
            _compare(x, y, path + (i,), o)
        return
    mp = collections.abc.Mapping
    if isinstance(actual, mp) and isinstance(expected, mp):
        ka, ke = set(actual.keys()), set(expected.keys())
        if ka != ke:
            raise _Mismatch(AssertionError, "The keys of the mappings do not match:\n"
                            f"Missing keys in the actual mapping: {sorted(ke - ka)}\n"
                            f"Additional keys in the actual mapping: {sorted(ka - ke)}", path)
        for k in actual:
            _compare(actual[k], expected[k], path + (k,), o)
        return
    raise _Mismatch(TypeError, "No comparison pair was able to handle inputs of type "
                    f"{type(actual)} and {type(expected)}.", path)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raises AssertionError unless `actual` and `expected` are close: |a - e| <= atol + rtol*|e|
    elementwise, with torch's defaults per dtype (float32: rtol 1.3e-6, atol 1e-5; float64:
    1e-7, 1e-7; integers and bool: exact). `msg` replaces the message (a callable gets it).

    >>> ember.testing.assert_close(ember.tensor([1.0]), ember.tensor([1.0 + 1e-7]))
    >>> try:
    ...     ember.testing.assert_close(ember.tensor([1.0]), ember.tensor([1.1]))
    ... except AssertionError:
    ...     print("not close")
    not close
    """
    __tracebackhide__ = True
    options = dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device,
                   check_dtype=check_dtype, check_stride=check_stride)
    try:
        _compare(actual, expected, (), options)
    except _Mismatch as m:
        raise m.to_error(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated (as in torch since 1.12): use assert_close. Compares after promotion (no dtype
    check), NaN equal to NaN, tolerances float32 (1e-4, 1e-5), float64 (1e-5, 1e-8).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ember.testing.assert_allclose(ember.tensor([1.0, 2.0]), [1.0, 2.0 + 1e-7])
    >>> print("close")
    close
    """
    __tracebackhide__ = True
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning, stacklevel=2)
    from .. import tensor
    if not isinstance(actual, _C.Tensor):
        actual = tensor(actual)
    if not isinstance(expected, _C.Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        table = {"float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8), "float16": (1e-3, 1e-3)}
        pairs = [table.get(_dtype_name(t.dtype), (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
