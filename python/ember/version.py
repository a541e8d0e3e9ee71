"""ember.version: torch.version's fields for ember (a CPU-only build: no CUDA, ROCm or XPU)."""
__version__ = "0.1.0"
cuda = None
hip = None
rocm = None
xpu = None
debug = False
from . import _C

# The commit the C++ core was configured from ("unknown" outside a git checkout).
git_version = _C.build_info()["git_revision"]
