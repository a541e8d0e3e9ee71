"""torch.autograd.forward_ad's dual-number API: dual_level, make_dual, unpack_dual,
enter_dual_level, exit_dual_level, UnpackedDualTensor.

Note [forward_ad on reverse mode]: ember has no per-op tangent rules. make_dual returns a
tracked copy of the primal (a view that requires grad) and remembers its tangent; ops record the
usual reverse-mode graph. unpack_dual(y) computes y's tangent J v when asked, with the
double-backward trick (the gradient of g(u) = J^T u with respect to a dummy u along the
tangents v). Consequences, unlike torch: tangents flow only through ops run with grad mode on,
and a dual tensor requires grad (also after its level is exited)."""
from collections import namedtuple

from .. import _C
from .._grad_mode import _DecoratorContext, enable_grad

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])

_levels = []  # one entry per open level: {"duals": [(dual, tangent)], "keep_graph": bool}


def enter_dual_level():
    """Opens a new forward-AD level and returns its index."""
    _levels.append({"duals": [], "keep_graph": False})
    return len(_levels) - 1


def exit_dual_level(*, level=None):
    """Closes the innermost level: the tangents it recorded are forgotten."""
    current = len(_levels) - 1
    if level is None:
        level = current
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != current:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    _levels.pop()


def _level(level):
    return len(_levels) - 1 if level is None else level


def make_dual(tensor, tangent, *, level=None):
    """A tensor carrying `tangent` (same shape) at `level` (Note [forward_ad on reverse mode])."""
    level = _level(level)
    if level < 0 or level >= len(_levels):
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not tensor.dtype.is_floating_point:
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not tangent.dtype.is_floating_point:
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than "
                           "that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")
    with enable_grad():
        dual = tensor.view_as(tensor) if tensor.requires_grad else \
            tensor.detach().requires_grad_(True)
    state = _levels[level]
    state["keep_graph"] = state["keep_graph"] or tensor.requires_grad
    state["duals"].append((dual, tangent.detach()))
    return dual


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of `tensor` at `level`; tangent is None when it does not depend on a
    dual tensor of that level."""
    from . import grad
    level = _level(level)
    if level < 0 or level >= len(_levels) or not isinstance(tensor, _C.Tensor):
        return UnpackedDualTensor(tensor, None)
    state = _levels[level]
    primal = tensor if state["keep_graph"] else tensor.detach()
    for dual, tangent in state["duals"]:
        if dual is tensor:
            return UnpackedDualTensor(primal, tangent)
    if not tensor.requires_grad or not state["duals"]:
        return UnpackedDualTensor(tensor, None)
    duals = [d for d, _ in state["duals"]]
    with enable_grad():
        u = tensor.detach().mul(0).requires_grad_(True)
        g = grad([tensor], duals, [u], retain_graph=True, create_graph=True, allow_unused=True)
        used = [(gi, t) for gi, (_, t) in zip(g, state["duals"]) if gi is not None]
        if not used:
            return UnpackedDualTensor(primal, None)
        linked = [(gi, t) for gi, t in used if gi.requires_grad]
        if not linked:  # J^T u does not involve u: J is 0
            return UnpackedDualTensor(primal, tensor.detach().mul(0))
        (jv,) = grad([gi for gi, _ in linked], [u], [t for _, t in linked], retain_graph=True,
                     allow_unused=True)
    return UnpackedDualTensor(primal, tensor.detach().mul(0) if jv is None else jv)


class dual_level(_DecoratorContext):
    """Context manager (and decorator) for one forward-AD level, as torch's."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
