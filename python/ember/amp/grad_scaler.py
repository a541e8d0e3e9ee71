"""ember.amp.GradScaler: loss scaling for mixed-precision training, as torch.amp.GradScaler.

On torch's CPU build GradScaler() (device 'cuda', the default) warns that CUDA is not available
and disables itself; a disabled scaler passes everything through (scale returns its input, step
calls optimizer.step(), update/unscale_ do nothing, state_dict is {}). GradScaler('cpu') is
enabled and does the real work, as torch's does: it multiplies the loss by the scale, unscales
the gradients in place before the step, skips the step when a gradient is inf or NaN, and grows
the scale by growth_factor after growth_interval clean steps or backs it off after a bad one.
ember keeps the scale as a Python float (one CPU device: nothing to keep asynchronous).
"""
import warnings
from enum import Enum

from .._dtype import float16

__all__ = ["OptState", "GradScaler"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """GradScaler(device='cuda', init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True).

    Loss scaling for float16 training: scale(loss) multiplies the loss by the scale, step()
    unscales the gradients and skips the step when any is inf/NaN, update() grows the scale
    after growth_interval clean steps and backs it off after a bad one. 'cuda' warns and
    disables itself (no CUDA), as torch's CPU build.

    >>> scaler = ember.GradScaler("cpu", init_scale=1024.0)
    >>> w = ember.ones(2, requires_grad=True)
    >>> opt = ember.optim.SGD([w], lr=0.1)
    >>> scaler.scale((w * 3).sum()).backward()
    >>> scaler.step(opt); scaler.update()
    >>> w, scaler.get_scale()
    (tensor([0.7000, 0.7000], requires_grad=True), 1024.0)
    """

    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None  # set by the first scale()
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = {}

    def is_enabled(self):
        return self._enabled

    def _state(self, optimizer):
        return self._per_optimizer_states.setdefault(id(optimizer), _fresh_state())

    def _check_started(self, funcname):
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  This may indicate "
                                 "your script did not use scaler.scale(loss or outputs) earlier "
                                 "in the iteration.")

    def scale(self, outputs):
        """outputs * scale (a tensor, or a list/tuple/iterable of them)."""
        if not self._enabled:
            return outputs
        from .._C import Tensor
        if self._scale is None:
            self._scale, self._growth_tracker = float(self._init_scale), self._init_growth_tracker

        from .._C import full
        from .._dtype import float32
        scale = full((1,), self._scale, float32)  # as torch's: a float16 loss * 2**16 stays finite

        def apply(val):
            if isinstance(val, Tensor):
                return val * scale
            if isinstance(val, (list, tuple)):
                return type(val)(apply(v) for v in val)
            if hasattr(val, "__iter__"):
                return map(apply, val)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply(outputs)

    def unscale_(self, optimizer):
        """Divides the gradients of optimizer's parameters by the scale, in place, and records
        whether any of them is inf or NaN (step() then skips the update)."""
        if not self._enabled:
            return
        self._check_started("unscale_")
        state = self._state(optimizer)
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = 1.0 / self._scale
        found_inf = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad
                if g.dtype == float16:  # torch's allow_fp16=False
                    raise ValueError("Attempting to unscale FP16 gradients.")
                g.mul_(inv_scale)
                if not found_inf and not bool(g.isfinite().all()):
                    found_inf = True
        state["found_inf_per_device"] = {"cpu": 1.0 if found_inf else 0.0}
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """unscale_(optimizer) unless done, then optimizer.step() unless a gradient was inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_started("step")
        state = self._state(optimizer)
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        retval = None
        if not sum(state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Backs the scale off after a skipped step, grows it after growth_interval clean ones;
        or sets it to new_scale (a float or a 1-element tensor)."""
        if not self._enabled:
            return
        self._check_started("update")
        if new_scale is not None:
            from .._C import Tensor
            if isinstance(new_scale, float):
                self._scale = new_scale
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if not isinstance(new_scale, Tensor) or new_scale.numel() != 1 \
                        or new_scale.requires_grad:
                    raise AssertionError(reason)
                self._scale = float(new_scale.item())
        else:
            found = [v for s in self._per_optimizer_states.values()
                     for v in s["found_inf_per_device"].values()]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if sum(found):
                self._scale *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale *= self._growth_factor
                    self._growth_tracker = 0
        self._per_optimizer_states = {}

    def get_scale(self):
        """The current scale (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return float(self._init_scale if self._scale is None else self._scale)

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker

    def state_dict(self):
        """{'scale', 'growth_factor', 'backoff_factor', 'growth_interval', '_growth_tracker'};
        {} when disabled."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale = float(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker = state_dict["_growth_tracker"]
