"""ember.amp: torch.amp (autocast, GradScaler) as PyTorch's CPU build answers it; ember has no
bfloat16/float16 tensors yet, so an enabled CPU autocast region refuses to start
(autocast_mode.py)."""
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "GradScaler", "is_autocast_available"]
