"""ember.backends.cuda: CUDA matmul and scaled-dot-product-attention flags (stored, unused:
ember has no CUDA). The sdp flags start True as in torch; ember's attention always runs the
math path whatever they say."""
import contextlib
import enum
import warnings


class _Matmul:
    """torch.backends.cuda.matmul: a fixed set of flags; other names raise AttributeError."""
    _DEFAULTS = {"allow_tf32": False, "allow_fp16_reduced_precision_reduction": True,
                 "allow_bf16_reduced_precision_reduction": True,
                 "allow_fp16_accumulation": False, "fp32_precision": "none"}

    def __init__(self):
        object.__setattr__(self, "_flags", dict(self._DEFAULTS))

    def __getattr__(self, name):
        flags = object.__getattribute__(self, "_flags")
        if name in flags:
            return flags[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name not in self._flags:
            raise AttributeError(f"Unknown attribute {name}")
        self._flags[name] = value


matmul = _Matmul()


class SDPBackend(enum.IntEnum):
    """The attention kernels torch can pick (ember computes attention one way: MATH). The
    backends of scaled_dot_product_attention (torch's values); ember.nn.attention.SDPBackend
    is this same enum, as in torch."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}
_fp16_bf16_reduction_math_sdp = [False]


def is_built():
    """Whether ember was built with CUDA: False."""
    return False


def is_flash_attention_available():
    return False


def flash_sdp_enabled():
    return _sdp["flash"]


def enable_flash_sdp(enabled):
    _sdp["flash"] = bool(enabled)


def mem_efficient_sdp_enabled():
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled):
    _sdp["mem_efficient"] = bool(enabled)


def math_sdp_enabled():
    return _sdp["math"]


def enable_math_sdp(enabled):
    _sdp["math"] = bool(enabled)


def cudnn_sdp_enabled():
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled):
    _sdp["cudnn"] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed():
    return _fp16_bf16_reduction_math_sdp[0]


def allow_fp16_bf16_reduction_math_sdp(enabled):
    _fp16_bf16_reduction_math_sdp[0] = bool(enabled)


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    """Deprecated (FutureWarning, as torch): sets the sdp flags for a region."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context "
                  "manager will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the "
                  "new context manager, with updated signature.", FutureWarning, stacklevel=3)
    previous = dict(_sdp)
    _sdp.update(flash=bool(enable_flash), math=bool(enable_math),
                mem_efficient=bool(enable_mem_efficient), cudnn=bool(enable_cudnn))
    try:
        yield {}
    finally:
        _sdp.update(previous)
