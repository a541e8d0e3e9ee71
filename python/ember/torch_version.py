"""ember.torch_version: torch.torch_version's TorchVersion, a str that also compares with
version tuples and version strings by release numbers ('2.1.0' > (1, 10), '2.1' > '2.0.9'),
and __version__, ember's version as one."""
import re
from collections.abc import Iterable

from .version import __version__ as internal_version

__all__ = ["TorchVersion"]

_RELEASE = re.compile(r"^v?(\d+(?:\.\d+)*)(?:(a|b|rc|\.?dev|\.?post)(\d*))?(?:\+.*)?$")
_PHASE = {"dev": -3, ".dev": -3, "a": -2, "b": -1, "rc": 0, None: 1, "post": 2, ".post": 2}


def _key(v):
    """(release numbers padded to 4, phase, phase number), or None when v is not a version."""
    if isinstance(v, str):
        m = _RELEASE.match(v.strip())
        if not m:
            return None
        nums = [int(p) for p in m.group(1).split(".")]
        phase, n = _PHASE[m.group(2)], int(m.group(3) or 0)
    elif isinstance(v, Iterable):
        try:
            nums = [int(p) for p in v]
        except (TypeError, ValueError):
            return None
        phase, n = _PHASE[None], 0
    else:
        return None
    nums += [0] * max(0, 4 - len(nums))
    return tuple(nums), phase, n


class TorchVersion(str):
    """A version string that compares by release numbers against strings and tuples;
    an unparseable side falls back to plain string comparison."""
    __slots__ = ()

    def _cmp(self, other, op):
        a, b = _key(str(self)), _key(other)
        if a is None or b is None:
            if not isinstance(other, str):
                return NotImplemented
            return getattr(str, op)(self, other)
        return getattr(tuple, op)(a, b)

    def __gt__(self, other):
        return self._cmp(other, "__gt__")

    def __lt__(self, other):
        return self._cmp(other, "__lt__")

    def __ge__(self, other):
        return self._cmp(other, "__ge__")

    def __le__(self, other):
        return self._cmp(other, "__le__")

    def __eq__(self, other):
        return self._cmp(other, "__eq__")

    def __ne__(self, other):
        result = self._cmp(other, "__eq__")
        return result if result is NotImplemented else not result

    __hash__ = str.__hash__


__version__ = TorchVersion(internal_version)
