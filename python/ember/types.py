"""ember.types: torch.types' annotation aliases for ember's objects (Number, Device, FileLike,
...). ember has no symbolic sizes, so the *LikeType aliases are the plain Python types."""
import os
from typing import IO, TypeAlias, Union

from ._tensor import Size, Tensor, device as _device  # noqa: F401  (torch.types re-exports them)

__all__ = ["Number", "Device", "FileLike", "IntLikeType", "FloatLikeType", "BoolLikeType",
           "Tensor", "Size"]

Number: TypeAlias = Union[int, float, bool]
Device: TypeAlias = Union[_device, str, int, None]
FileLike: TypeAlias = Union[str, os.PathLike, IO[bytes]]
IntLikeType: TypeAlias = int
FloatLikeType: TypeAlias = float
BoolLikeType: TypeAlias = bool
