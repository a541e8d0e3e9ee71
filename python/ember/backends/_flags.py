"""The set_flags / flags pair that torch.backends.cudnn and torch.backends.mkldnn share."""
import contextlib


def set_flags(namespace, values):
    """Replaces each flag in `values` (name -> value) that is not None in the module dict
    `namespace`; returns the previous values, in the order given (torch's set_flags)."""
    orig = tuple(namespace[name] for name in values)
    for name, value in values.items():
        if value is not None:
            namespace[name] = value
    return orig


@contextlib.contextmanager
def flags(set_module_flags, *values):
    """`with flags(...)`: sets the module's flags and restores them after."""
    orig = set_module_flags(*values)
    try:
        yield
    finally:
        set_module_flags(*orig)
