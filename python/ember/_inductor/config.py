"""torch._inductor.config's settings, kept so that programs which tune torch's code generator
(`config.coordinate_descent_tuning = True`, `config.triton.unique_kernel_names = True`, ...)
run unchanged: the values are stored and read back with torch's defaults, and ember.compile,
which records and replays C++ ops instead of generating kernels, reads none of them. A name
torch does not have raises AttributeError, as torch's does; `patch` sets some for a block.
"""
import contextlib
import sys
import types

_DEFAULTS = {
    "coordinate_descent_tuning": False, "coordinate_descent_check_all_directions": False,
    "max_autotune": False, "max_autotune_gemm": False, "max_autotune_pointwise": False,
    "freezing": False, "freezing_discard_parameters": False, "fx_graph_cache": True,
    "fx_graph_remote_cache": None, "epilogue_fusion": True, "aggressive_fusion": False,
    "force_fuse_int_mm_with_mul": False, "use_mixed_mm": True, "conv_1x1_as_mm": False,
    "shape_padding": True, "compile_threads": 2, "fallback_random": False, "debug": False,
    "benchmark_kernel": False, "cpp_wrapper": False, "split_reductions": True,
    "permute_fusion": False, "pattern_matcher": True, "reorder_for_compute_comm_overlap": False,
    "autotune_in_subproc": False, "layout_optimization": True, "keep_output_stride": True,
    "size_asserts": True, "implicit_fallbacks": True, "emulate_precision_casts": False,
    "force_disable_caches": False, "unroll_reductions_threshold": 8,
    "triton.unique_kernel_names": True, "triton.cudagraphs": False,
    "triton.cudagraph_trees": True, "triton.autotune_pointwise": True, "triton.max_tiles": None,
    "triton.descriptive_names": "original_aten", "cpp.threads": -1, "cpp.simdlen": None,
    "cpp.enable_kernel_profile": False, "cpp.vec_isa_ok": None,
    "cpp.max_horizontal_fusion_size": 16,
}


class _Section:
    """A group of settings (`config.triton`, `config.cpp`): only its known names."""

    def __init__(self, prefix, values):
        object.__setattr__(self, "_prefix", prefix)
        object.__setattr__(self, "_values", values)

    def _key(self, name):
        key = self._prefix + name
        if key not in self._values:
            raise AttributeError(f"torch._inductor.config.{key} does not exist")
        return key

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._values[self._key(name)]

    def __setattr__(self, name, value):
        self._values[self._key(name)] = value


class _ConfigModule(types.ModuleType):
    """The module itself: top-level settings are attributes, sections are _Sections."""

    def __getattr__(self, name):
        values = self.__dict__["_values"]
        if name in ("triton", "cpp"):
            return _Section(name + ".", values)
        if name in values:
            return values[name]
        raise AttributeError(f"torch._inductor.config.{name} does not exist")

    def __setattr__(self, name, value):
        if name.startswith("_") or name in self.__dict__:
            return super().__setattr__(name, value)
        if name not in self.__dict__["_values"]:
            raise AttributeError(f"torch._inductor.config.{name} does not exist")
        self.__dict__["_values"][name] = value


def patch(arg1=None, arg2=None, **changes):
    """`with config.patch(max_autotune=True):` (or patch("max_autotune", True), or a dict):
    the settings changed for the block, then restored."""
    if isinstance(arg1, str):
        changes[arg1] = arg2
    elif isinstance(arg1, dict):
        changes.update(arg1)
    values = sys.modules[__name__].__dict__["_values"]
    for k in changes:
        if k not in values:
            raise AttributeError(f"torch._inductor.config.{k} does not exist")

    @contextlib.contextmanager
    def block():
        saved = {k: values[k] for k in changes}
        values.update(changes)
        try:
            yield
        finally:
            values.update(saved)
    return block()


def get_config_copy():
    """The settings as a dict (dotted names for the sections)."""
    return dict(sys.modules[__name__].__dict__["_values"])


_values = dict(_DEFAULTS)
sys.modules[__name__].__class__ = _ConfigModule
