"""The handle every register_*_hook returns (torch.utils.hooks.RemovableHandle), and how a
hook joins its ordered table (prepend or append)."""


class RemovableHandle:
    """What register_*_hook returns: handle.remove() takes the hook out (torch.utils.hooks)."""
    _next_id = 0

    def __init__(self, *hooks_dicts, extra_dicts=()):
        self.hooks_dicts = hooks_dicts
        self.extra_dicts = extra_dicts
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self):
        for d in self.hooks_dicts + tuple(self.extra_dicts):
            d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def add_hook(hooks, hook, prepend, extra=None):
    handle = RemovableHandle(hooks, extra_dicts=[d for d in (extra,) if d is not None])
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle
