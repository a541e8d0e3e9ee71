"""torch.nn.LinearCrossEntropyOptions: the settings of linear_cross_entropy's chunked path
(batch chunk size or its heuristic, accumulation policy and dtype, retain_graph), validated
as torch validates them. ember computes the reference path whatever the options say (the
values and gradients are the same; only torch's peak memory differs): docs/nn.md."""
import dataclasses

from ..._dtype import bfloat16, float16, float32, float64

__all__ = ["LinearCrossEntropyOptions"]

_POLICIES = ("auto", "accurate", "balanced", "compact")


def _valid_chunking(method):
    if method is None or method == "auto":
        return True
    name, sep, factor = method.partition(":")
    factor = factor if sep else "1"
    return name == "aspect_ratio" and factor.isdigit() and int(factor) > 0


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Chunking options of F.linear_cross_entropy (see torch's documentation for each field).

    >>> ember.nn.LinearCrossEntropyOptions(batch_chunk_size=64).batch_chunk_size
    64
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in _POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if not _valid_chunking(self.chunking_method):
            raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if not (size is None or (isinstance(size, int) and not isinstance(size, bool)
                                 and size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in (float16, bfloat16, float32,
                                                                  float64):
            raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                             f"torch.float32, torch.float64}}, got {self.acc_dtype!r}. Pass "
                             "acc_dtype=None to let the op pick automatically.")
