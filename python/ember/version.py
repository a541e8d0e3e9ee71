"""ember.version: torch.version's fields for ember (a CPU-only build: no CUDA, ROCm or XPU)."""
__version__ = "0.1.0"
cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = "Unknown"  # ember is built from a source tree, not stamped with its commit
