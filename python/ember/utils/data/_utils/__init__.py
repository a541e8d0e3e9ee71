"""torch.utils.data._utils: the DataLoader's helper modules that libraries reach into (monai,
Lightning): `collate` (the extensible collate function and its per-type map) and `worker`
(ember's worker module itself, so setting `worker._worker_info` reaches the loader)."""
import sys

from .. import _worker as worker
from . import collate  # noqa: F401
from .._worker import ExceptionWrapper, STATUS_CHECK_INTERVAL as MP_STATUS_CHECK_INTERVAL  # noqa: F401

sys.modules[__name__ + ".worker"] = worker  # `import torch.utils.data._utils.worker` finds it
