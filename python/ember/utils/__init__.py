"""ember.utils: helpers around the core (ember.utils.data: datasets and the DataLoader;
ember.utils.checkpoint: activation checkpointing; ember.utils.tensorboard, imported on
demand as in torch: SummaryWriter; ember.utils.cpp_extension: C++ ops built from Python;
ember.utils.hooks, model_zoo and dlpack: torch's small modules of those names; ember.utils._pytree:
torch's nested-container utilities; ember.utils.benchmark, imported on demand as in torch: Timer,
Measurement, Compare).

cmake_prefix_path: as torch.utils.cmake_prefix_path, the directory to put in CMake's
CMAKE_PREFIX_PATH so `find_package(ember)` finds the C++ library installed with this package
(ember/share/cmake/ember beside the extension module _C; docs/cpp.md)."""
import os as _os

from .. import _C as _core
from . import _pytree  # pure Python and light: ember.func builds on it, programs reach it by name

# The installed package directory is a prefix (lib/, include/, share/cmake/): _C's directory,
# also under an editable install, where the Python sources live elsewhere.
cmake_prefix_path = _os.path.join(_os.path.dirname(_os.path.abspath(_core.__file__)), "share", "cmake")

__all__ = ["checkpoint", "data", "dlpack", "hooks", "model_zoo"]
_LAZY = frozenset(__all__)


def __getattr__(name):
    # data (the DataLoader's multiprocessing) and model_zoo (urllib) cost ~45 ms to import:
    # they load on first use, so that `import ember` (whose func imports _pytree) stays light.
    if name in _LAZY:
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _LAZY)
