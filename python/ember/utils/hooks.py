"""ember.utils.hooks: torch.utils.hooks' RemovableHandle (what every register_*_hook returns)
and unserializable_hook. ember never pickles hooks with a tensor, so nothing warns about them;
the decorator marks the function as torch's does."""
from ..nn.modules._hook_handles import RemovableHandle

__all__ = ["RemovableHandle", "unserializable_hook"]


def unserializable_hook(f):
    """Marks hook function f as one that is not serialized with a tensor (torch's flag).

    >>> @ember.utils.hooks.unserializable_hook
    ... def hook(grad):
    ...     return grad
    >>> hook.__torch_unserializable__
    True
    """
    f.__torch_unserializable__ = True
    return f
