"""ember.cuda.amp: torch.cuda.amp's deprecated aliases of ember.amp, each warning with torch's
FutureWarning; without CUDA they disable themselves as torch's CPU build does."""
import warnings

from ...amp import autocast_mode as _autocast_mode, grad_scaler as _grad_scaler
from ...amp.autocast_mode import float16 as _float16


def amp_definitely_not_available():
    return True


class autocast(_autocast_mode.autocast):
    """Deprecated: ember.amp.autocast('cuda', ...)."""

    def __init__(self, enabled=True, dtype=_float16, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        with warnings.catch_warnings():  # re-issued below so that it points at the caller
            warnings.simplefilter("ignore")
            super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
        if enabled:
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          stacklevel=2)


class GradScaler(_grad_scaler.GradScaler):
    """Deprecated: ember.amp.GradScaler('cuda', ...)."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                             enabled)
        if enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Deprecated: ember.amp.custom_fwd(device_type='cuda')."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return _autocast_mode.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """Deprecated: ember.amp.custom_bwd(device_type='cuda')."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return _autocast_mode.custom_bwd(bwd, device_type="cuda")


__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]
