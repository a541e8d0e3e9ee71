"""The legacy tensor types (ember.FloatTensor and friends): usable as
`t.type(ember.FloatTensor)`, in isinstance checks, and called to build a tensor of that dtype.
Above _creation, which builds them; _dtype knows only their names."""
from ._C import Tensor
from ._creation import _legacy_tensor
from ._dtype import (LEGACY_NAMES, LegacyTypeBase, bfloat16, bool, float16, float32, float64, int8,
                     int16, int32, int64, uint8)


class LegacyType(LegacyTypeBase):
    def __call__(self, *args):
        """FloatTensor(), (2, 3), (Size), (data) as torch.Tensor(...) with this type's dtype;
        FloatTensor(t) of a float32 tensor aliases t (another dtype is refused, as in torch)."""
        if len(args) == 1 and isinstance(args[0], Tensor):
            if args[0].dtype != self.dtype:
                raise TypeError(f"{self.name}(): expected a tensor of dtype {self.dtype}, "
                                f"got {args[0].dtype}")
            return args[0].detach()
        return _legacy_tensor(*args, dtype=self.dtype, name=self.name)


FloatTensor = LegacyType(LEGACY_NAMES[float32], float32)
DoubleTensor = LegacyType(LEGACY_NAMES[float64], float64)
LongTensor = LegacyType(LEGACY_NAMES[int64], int64)
IntTensor = LegacyType(LEGACY_NAMES[int32], int32)
ShortTensor = LegacyType(LEGACY_NAMES[int16], int16)
CharTensor = LegacyType(LEGACY_NAMES[int8], int8)
ByteTensor = LegacyType(LEGACY_NAMES[uint8], uint8)
BoolTensor = LegacyType(LEGACY_NAMES[bool], bool)
HalfTensor = LegacyType(LEGACY_NAMES[float16], float16)
BFloat16Tensor = LegacyType(LEGACY_NAMES[bfloat16], bfloat16)


# name -> its docstring (an instance's own __doc__; the example is a doctest of
# tests/python/test_docstring_examples.py)
DOCS = {
    "FloatTensor": """\
>>> ember.FloatTensor([1, 2]), isinstance(ember.ones(1), ember.FloatTensor)
(tensor([1., 2.]), True)""",
    "DoubleTensor": """\
>>> ember.DoubleTensor([1, 2])
tensor([1., 2.], dtype=ember.float64)""",
    "LongTensor": """\
>>> ember.LongTensor([1, 2])
tensor([1, 2])""",
    "IntTensor": """\
>>> ember.IntTensor([1, 2])
tensor([1, 2], dtype=ember.int32)""",
    "ShortTensor": """\
>>> ember.ShortTensor([-32768, 32767])
tensor([-32768,  32767], dtype=ember.int16)""",
    "CharTensor": """\
>>> ember.CharTensor([-128, 127])
tensor([-128,  127], dtype=ember.int8)""",
    "ByteTensor": """\
>>> ember.ByteTensor([1, 2])
tensor([1, 2], dtype=ember.uint8)""",
    "BoolTensor": """\
>>> ember.BoolTensor([1, 0])
tensor([ True, False])""",
    "HalfTensor": """\
>>> ember.HalfTensor(2, 3).shape, ember.ones(2).type(ember.HalfTensor).dtype
(ember.Size([2, 3]), ember.float16)""",
    "BFloat16Tensor": """\
>>> ember.BFloat16Tensor([1.5])
tensor([1.5000], dtype=ember.bfloat16)""",
}
for _t in (FloatTensor, DoubleTensor, LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor,
           BoolTensor, HalfTensor, BFloat16Tensor):
    _t.__doc__ = (f"ember.{_t.name}(data) / ember.{_t.name}(*sizes) / ember.{_t.name}(size): "
                  f"a tensor of dtype {_t.dtype}, uninitialized for sizes; {_t.name}(t) of a "
                  f"{_t.dtype} tensor aliases t (torch's legacy type; also for isinstance and "
                  "Tensor.type).\n\n"
                  + DOCS[_t.name])
del _t
