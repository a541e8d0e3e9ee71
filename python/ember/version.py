"""ember.version: torch.version's fields for ember (a CPU-only build: no CUDA, ROCm or XPU)."""
# ember's own release (its wheel, its C++ package and libember's SONAME carry it) and the torch
# API it implements; __version__ names both the way torch names its builds ("2.13.0+cpu"), so
# that programs gating on `torch.__version__ >= "2.0"` under the drop-in runner see torch 2.13.
ember_version = "0.1.0"
torch_api_version = "2.13.0"
__version__ = f"{torch_api_version}+ember.{ember_version}"
cuda = None
hip = None
rocm = None
xpu = None
debug = False
from . import _C

# The commit the C++ core was configured from ("unknown" outside a git checkout).
git_version = _C.build_info()["git_revision"]
