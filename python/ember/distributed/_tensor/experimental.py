"""torch.distributed._tensor.experimental: torch.distributed.tensor.experimental's names."""
from ..tensor.experimental import *  # noqa: F401,F403
from ..tensor.experimental import __all__  # noqa: F401
