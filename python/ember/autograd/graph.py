"""torch.autograd.graph's saved-tensor hooks: saved_tensors_hooks, save_on_cpu and
disable_saved_tensors_hooks. The hooks act on every tensor an op saves for backward (the C++
SavedTensor, include/ember/saved_hooks.h) and on Function.save_for_backward."""
import contextlib

from .. import _C

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]

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
