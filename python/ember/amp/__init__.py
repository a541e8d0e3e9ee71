"""ember.amp: torch.amp (autocast, GradScaler) as PyTorch's CPU build answers it: CPU autocast to
bfloat16 or float16 (autocast_mode.py, docs/half.md) and loss scaling (grad_scaler.py)."""
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "GradScaler", "is_autocast_available"]
