"""ember.signal: torch.signal's names (its windows namespace)."""
from . import windows  # noqa: F401

__all__ = ["windows"]
