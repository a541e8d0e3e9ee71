"""torch._tensor_str's names that libraries import to print their own tensor subclasses and
files (PyG's OFF writer, Index/EdgeIndex reprs): the print options object, the values part of
a repr, and the suffix joiner. The formatting itself is ember._printing's."""
from ._printing import _OPTS as PRINT_OPTS, _add_suffixes, get_printoptions, set_printoptions  # noqa: F401
from ._printing import tensor_body


def _tensor_str(self, indent):
    """The values of tensor `self` as its repr shows them, without "tensor(" and the suffixes;
    lines after the first are indented by `indent` + 1.

    >>> print(ember._tensor_str._tensor_str(ember.tensor([[1., 2.], [3., 4.]]), 0))
    [[1., 2.],
     [3., 4.]]
    """
    return tensor_body(self, indent)
