"""The legacy tensor types (ember.FloatTensor and friends): usable as
`t.type(ember.FloatTensor)`, in isinstance checks, and called to build a tensor of that dtype.
Above _creation, which builds them; _dtype knows only their names."""
from ._creation import empty, tensor
from ._dtype import (LEGACY_NAMES, LegacyTypeBase, bfloat16, bool, float16, float32, float64, int32,
                     int64, uint8)


class LegacyType(LegacyTypeBase):
    def __call__(self, *args):
        if not args:  # FloatTensor() is an empty 1-d tensor, as in PyTorch
            return empty(0, dtype=self.dtype)
        if len(args) == 1 and not isinstance(args[0], (type(1), type(1.0))):
            return tensor(args[0], dtype=self.dtype)
        return empty(*args, dtype=self.dtype)


FloatTensor = LegacyType(LEGACY_NAMES[float32], float32)
DoubleTensor = LegacyType(LEGACY_NAMES[float64], float64)
LongTensor = LegacyType(LEGACY_NAMES[int64], int64)
IntTensor = LegacyType(LEGACY_NAMES[int32], int32)
ByteTensor = LegacyType(LEGACY_NAMES[uint8], uint8)
BoolTensor = LegacyType(LEGACY_NAMES[bool], bool)
HalfTensor = LegacyType(LEGACY_NAMES[float16], float16)
BFloat16Tensor = LegacyType(LEGACY_NAMES[bfloat16], bfloat16)
