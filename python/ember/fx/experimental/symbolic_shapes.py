"""torch.fx.experimental.symbolic_shapes: guards on conditions over sizes that may be symbolic.
ember's sizes are always concrete, so each condition is a plain bool and each guard is its
truth (a non-bool is refused, as torch refuses it)."""

__all__ = ["guard_or_false", "guard_or_true", "statically_known_true", "statically_known_false",
           "GuardOnDataDependentSymNode"]


class GuardOnDataDependentSymNode(RuntimeError):
    """Raised by torch's tracer when a guard needs a data-dependent size; ember's sizes never
    are symbolic, so it is only caught."""


def _bool(a):
    if not isinstance(a, bool):
        raise AssertionError(f"Expected bool, got {type(a)}")
    return a


def guard_or_false(a):
    """a itself (torch: False when a is a condition on sizes it cannot decide).

    >>> from ember.fx.experimental.symbolic_shapes import guard_or_false
    >>> guard_or_false(4 % 2 == 0)
    True
    """
    return _bool(a)


def guard_or_true(a):
    """a itself (torch: True when a is a condition on sizes it cannot decide)."""
    return _bool(a)


def statically_known_true(a):
    """a itself: every ember size is known."""
    return _bool(a)


def statically_known_false(a):
    """not a: every ember size is known."""
    return not _bool(a)
