"""torch.autograd.grad_mode's names: the grad-mode switches (python/ember/_grad_mode.py) and
set_multithreading_enabled."""
from .._grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "set_multithreading_enabled"]

_multithreading = [True]


def is_multithreading_enabled():
    """Whether backward may run device threads (torch's flag; ember's CPU engine always runs
    backward on the calling thread, so the flag changes nothing but its own value).

    >>> ember.autograd.is_multithreading_enabled()
    True
    """
    return _multithreading[0]


class set_multithreading_enabled:
    """Context manager / function setting is_multithreading_enabled(), as torch's.

    >>> with ember.autograd.set_multithreading_enabled(False):
    ...     print(ember.autograd.is_multithreading_enabled())
    False
    >>> ember.autograd.is_multithreading_enabled()
    True
    """

    def __init__(self, mode):
        self.prev = _multithreading[0]
        _multithreading[0] = bool(mode)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _multithreading[0] = self.prev

    def clone(self):
        return self.__class__(_multithreading[0])
