"""torch.fx._compatibility.compatibility: the decorator torch.fx marks its APIs with (and
libraries that subclass the tracer mark their overrides with: PyG's `Tracer.trace`). It notes
in the docstring whether the API is backward compatible and records the object."""
import textwrap

_BACK_COMPAT_OBJECTS = {}
_MARKED_WITH_COMPATIBILITY = {}

_NOTES = {True: "\n\n.. note::\n    Backwards-compatibility for this API is guaranteed.\n",
          False: "\n\n.. warning::\n    This API is experimental and is *NOT* "
                 "backward-compatible.\n"}


def compatibility(is_backward_compatible):
    """compatibility(is_backward_compatible) -> decorator returning its argument, with the
    compatibility note added to its docstring.

    >>> @ember.fx._compatibility.compatibility(is_backward_compatible=True)
    ... def f():
    ...     "Doc."
    >>> f.__doc__.splitlines()[0], 'guaranteed' in f.__doc__
    ('Doc.', True)
    """
    def mark(fn):
        fn.__doc__ = textwrap.dedent(getattr(fn, "__doc__", None) or "") + \
            _NOTES[bool(is_backward_compatible)]
        if is_backward_compatible:
            _BACK_COMPAT_OBJECTS.setdefault(fn)
        _MARKED_WITH_COMPATIBILITY.setdefault(fn)
        return fn
    return mark
