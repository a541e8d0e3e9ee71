"""torch.distributed._tensor, the old name of torch.distributed.tensor that libraries still
import (opacus): the same objects."""
from ..tensor import *  # noqa: F401,F403
from ..tensor import __all__  # noqa: F401
from ..tensor import experimental  # noqa: F401
