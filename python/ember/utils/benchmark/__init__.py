"""ember.utils.benchmark: torch.utils.benchmark's Timer, Measurement, Compare and Fuzzer for
ember statements (docs/runtime.md). Imported on demand, as torch's: `import ember.utils.benchmark`
(or `import torch.utils.benchmark` under the drop-in runner)."""
from .utils.common import *  # noqa: F401,F403
from .utils.timer import *  # noqa: F401,F403
from .utils.compare import *  # noqa: F401,F403
from .utils.fuzzer import *  # noqa: F401,F403
from .utils import common as _common, compare as _compare, fuzzer as _fuzzer, timer as _timer

__all__ = [*_common.__all__, *_timer.__all__, *_compare.__all__, *_fuzzer.__all__]
