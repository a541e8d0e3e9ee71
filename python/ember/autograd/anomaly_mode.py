"""Anomaly detection, as torch.autograd.anomaly_mode: while on, backward raises
RuntimeError("Function 'XBackward0' returned nan values in its 0th output.") at the first node
whose result holds a NaN (the check runs in the C++ engine, include/ember/anomaly.h). ember does
not record the forward traceback of each node that torch prints alongside."""
import warnings

from .. import _C

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_anomaly_enabled"]


def is_anomaly_enabled():
    """is_anomaly_enabled() -> bool

    Whether autograd anomaly detection (detect_anomaly / set_anomaly_enabled) is on.

    >>> ember.is_anomaly_enabled()
    False
    """
    return _C._is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    """is_anomaly_check_nan_enabled() -> bool

    Whether anomaly detection also checks backward results for NaN.

    >>> ember.is_anomaly_check_nan_enabled()
    True
    """
    return _C._is_anomaly_check_nan_enabled()


def set_anomaly_enabled(enabled, check_nan=True):
    """set_anomaly_enabled(enabled, check_nan=True) -> None

    Turns autograd anomaly detection on or off (what detect_anomaly does for a block).

    >>> ember.set_anomaly_enabled(True)
    >>> ember.is_anomaly_enabled()
    True
    >>> ember.set_anomaly_enabled(False)
    """
    _C._set_anomaly_enabled(bool(enabled), bool(check_nan))


class detect_anomaly:
    """Context manager turning anomaly detection on (warns, as torch: it costs a NaN test per
    backward node result).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with ember.autograd.detect_anomaly():
    ...         print(ember.is_anomaly_enabled())
    True
    >>> ember.is_anomaly_enabled()
    False
    """

    def __init__(self, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Sets anomaly detection on or off; as a context manager, restores it on exit.

    >>> with ember.autograd.set_detect_anomaly(True):
    ...     print(ember.is_anomaly_enabled())
    True
    >>> ember.is_anomaly_enabled()
    False
    """

    def __init__(self, mode, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev, self.prev_check_nan)
