"""ember.utils: helpers around the core (ember.utils.data: datasets and the DataLoader;
ember.utils.checkpoint: activation checkpointing; ember.utils.tensorboard, imported on
demand as in torch: SummaryWriter)."""
from . import checkpoint, data

__all__ = ["checkpoint", "data"]
