"""ember.distributed.algorithms: Join (uneven inputs) and DDP's communication hooks, as
torch.distributed.algorithms."""
from .join import Join, Joinable, JoinHook

__all__ = ["Join", "Joinable", "JoinHook"]
