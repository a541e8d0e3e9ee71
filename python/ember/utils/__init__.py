"""ember.utils: helpers around the core (ember.utils.data: datasets and the DataLoader)."""
from . import data

__all__ = ["data"]
