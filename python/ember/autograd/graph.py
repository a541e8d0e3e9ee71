"""torch.autograd.graph: saved-tensor hooks (saved_tensors_hooks, save_on_cpu,
disable_saved_tensors_hooks), acting on every tensor an op saves for backward (the C++
SavedTensor, include/ember/saved_hooks.h) and on Function.save_for_backward; Node (the type of
grad_fn); register_multi_grad_hook."""
import contextlib

from .. import _C

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "Node",
           "register_multi_grad_hook"]

Node = _C.Node  # isinstance(t.grad_fn, Node)

_stack = []            # (pack, unpack) pushed on this thread, innermost last (for Functions)
_disabled = [None]     # the error message while disable_saved_tensors_hooks is active


class saved_tensors_hooks:
    """While active, a tensor saved for backward is stored as pack_hook(tensor) (run under
    no_grad), and unpack_hook(packed) gives it back when backward needs it; it must return a
    tensor with the same content."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _disabled[0] is not None:
            raise RuntimeError(_disabled[0])
        _C._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)
        _stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _stack.pop()
        _C._pop_saved_tensors_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept as CPU copies (torch's offloading; ember's tensors are all on
    the CPU, so this stores a copy and hands it back at backward). pin_memory is accepted."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            return tensor.device, tensor.detach().clone()

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Entering saved_tensors_hooks inside this block raises RuntimeError(error_message)."""
    prev = _disabled[0]
    _disabled[0] = error_message
    try:
        yield
    finally:
        _disabled[0] = prev


class _MultiHandle:
    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """mode="all": fn(grads) once per backward that reaches any of `tensors`, grads[i] the
    gradient of tensors[i] or None where that backward did not reach it; ember calls it when
    the backward has finished (torch: as soon as the last of those gradients is ready).
    mode="any": fn(grad) once per backward, with the first of those gradients computed.
    Returns a handle whose remove() drops the hook."""
    from .variable import Variable
    modes = ("all", "any")
    if mode not in modes:
        raise ValueError(f"Expects mode to be one of {modes} but got {mode}")
    tensors = tuple(tensors)
    state = {"buffer": None}

    def finish():
        buffer, state["buffer"] = state["buffer"], None
        if mode == "all":
            fn(tuple(buffer))

    def inner(idx):
        def hook(grad):
            first = state["buffer"] is None
            if first:
                state["buffer"] = [None] * len(tensors)
                Variable._execution_engine.queue_callback(finish)
                if mode == "any":
                    fn(grad)
            state["buffer"][idx] = grad
        return hook

    return _MultiHandle(tuple(t.register_hook(inner(i)) for i, t in enumerate(tensors)
                              if t.requires_grad))
