// Elementwise functions of two tensors (python/bindings/elementwise.cpp, ember/ops.def's binary
// and comparison ops, clamp, where, masked_fill): their texts, and those of the in-place methods.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kArithmetic[] = {
    {"add", R"(input + alpha * other, broadcast; other may be a number.

>>> x = ember.tensor([1.0, 2.0])
>>> ember.add(x, ember.tensor([10.0, 20.0]), alpha=2), x.add(1)
(tensor([21., 42.]), tensor([2., 3.])))"},
    {"Tensor.add_", R"(In-place Tensor.add: the result is written into self, which is returned.

>>> x = ember.tensor([1.0, 2.0])
>>> x.add_(10)
tensor([11., 12.])
>>> x
tensor([11., 12.]))"},
    {"sub", R"(input - alpha * other, broadcast; other may be a number.

>>> x = ember.tensor([5.0, 7.0])
>>> ember.sub(x, ember.tensor([1.0, 2.0]), alpha=2), x.sub(1)
(tensor([3., 3.]), tensor([4., 6.])))"},
    {"Tensor.sub_", R"(In-place Tensor.sub: the result is written into self, which is returned.

>>> x = ember.tensor([5.0, 7.0])
>>> x.sub_(1)
tensor([4., 6.])
>>> x
tensor([4., 6.]))"},
    {"mul", R"(input * other, elementwise with broadcasting; other may be a number.

>>> x = ember.tensor([1.0, 2.0])
>>> ember.mul(x, ember.tensor([[1.0], [3.0]])), x.mul(2)
(tensor([[1., 2.],
        [3., 6.]]), tensor([2., 4.])))"},
    {"Tensor.mul_", R"(In-place Tensor.mul: the result is written into self, which is returned.

>>> x = ember.tensor([1.0, 2.0])
>>> x.mul_(3)
tensor([3., 6.])
>>> x
tensor([3., 6.]))"},
    {"div",
     R"(input / other with broadcasting: true division, or with rounding_mode='trunc' or 'floor' rounded
(integer input then stays integer).

>>> x = ember.tensor([7, -7])
>>> ember.div(x, 2), x.div(2, rounding_mode='floor'), ember.div(x, 2, rounding_mode='trunc')
(tensor([ 3.5000, -3.5000]), tensor([ 3, -4]), tensor([ 3, -3])))"},
    {"Tensor.div_", R"(In-place Tensor.div: the result is written into self, which is returned.

>>> x = ember.tensor([7.0, -7.0])
>>> x.div_(2)
tensor([ 3.5000, -3.5000])
>>> x
tensor([ 3.5000, -3.5000]))"},
    {"pow",
     R"(input raised to the power exponent, elementwise with broadcasting; either side may be a number
(ember.pow(2, x)).

>>> x = ember.tensor([1.0, 2.0, 3.0])
>>> ember.pow(x, 2), x.pow(0.5), ember.pow(2, x)
(tensor([1., 4., 9.]), tensor([1.0000, 1.4142, 1.7321]), tensor([2., 4., 8.])))"},
    {"Tensor.pow_", R"(In-place Tensor.pow: the result is written into self, which is returned.

>>> x = ember.tensor([1.0, 2.0, 3.0])
>>> x.pow_(2)
tensor([1., 4., 9.])
>>> x
tensor([1., 4., 9.]))"},
    {"maximum", R"(The larger of input and other at each position (broadcast); NaN propagates.

>>> x = ember.tensor([1.0, 5.0])
>>> ember.maximum(x, ember.tensor([3.0, 2.0])), x.maximum(ember.tensor(4.0))
(tensor([3., 5.]), tensor([4., 5.])))"},
    {"Tensor.maximum_",
     R"(In-place Tensor.maximum: the result is written into self, which is returned. An ember extra:
torch has no Tensor.maximum_.

>>> x = ember.tensor([1.0, 5.0])
>>> x.maximum_(ember.tensor([3.0, 2.0]))
tensor([3., 5.])
>>> x
tensor([3., 5.]))"},
    {"minimum", R"(The smaller of input and other at each position (broadcast); NaN propagates.

>>> x = ember.tensor([1.0, 5.0])
>>> ember.minimum(x, ember.tensor([3.0, 2.0])), x.minimum(ember.tensor(4.0))
(tensor([1., 2.]), tensor([1., 4.])))"},
    {"Tensor.minimum_",
     R"(In-place Tensor.minimum: the result is written into self, which is returned. An ember extra:
torch has no Tensor.minimum_.

>>> x = ember.tensor([1.0, 5.0])
>>> x.minimum_(ember.tensor([3.0, 2.0]))
tensor([1., 2.])
>>> x
tensor([1., 2.]))"},
    {"remainder",
     R"(The remainder of input / other with the sign of the divisor (Python's %), elementwise.

>>> x = ember.tensor([-3, 3, 5])
>>> ember.remainder(x, 2), x.remainder(-2)
(tensor([1, 1, 1]), tensor([-1, -1, -1])))"},
    {"Tensor.remainder_",
     R"(In-place Tensor.remainder: the result is written into self, which is returned.

>>> x = ember.tensor([-3, 3, 5])
>>> x.remainder_(2)
tensor([1, 1, 1])
>>> x
tensor([1, 1, 1]))"},
    {"floor_divide", R"(input / other rounded down (Python's //), elementwise with broadcasting.

>>> x = ember.tensor([7, -7])
>>> ember.floor_divide(x, 2), x.floor_divide(ember.tensor([3, 3]))
(tensor([ 3, -4]), tensor([ 2, -3])))"},
    {"Tensor.floor_divide_",
     R"(In-place Tensor.floor_divide: the result is written into self, which is returned.

>>> x = ember.tensor([7, -7])
>>> x.floor_divide_(2)
tensor([ 3, -4])
>>> x
tensor([ 3, -4]))"},
    {"atan2",
     R"(The angle (radians) of the point (other, input): the arctangent of input / other in the right
quadrant.

>>> y = ember.tensor([1.0, 1.0])
>>> ember.atan2(y, ember.tensor([1.0, -1.0])), y.atan2(ember.tensor([0.0, 1.0]))
(tensor([0.7854, 2.3562]), tensor([1.5708, 0.7854])))"},
    {"Tensor.atan2_", R"(In-place Tensor.atan2: the result is written into self, which is returned.

>>> x = ember.tensor([1.0, 1.0])
>>> x.atan2_(ember.tensor([1.0, -1.0]))
tensor([0.7854, 2.3562])
>>> x
tensor([0.7854, 2.3562]))"},
    {"bitwise_and", R"(The bitwise AND of integer or bool tensors (input & other).

>>> x = ember.tensor([12, 10])
>>> ember.bitwise_and(x, 6), x.bitwise_and(ember.tensor([1, 2]))
(tensor([4, 2]), tensor([0, 2])))"},
    {"Tensor.bitwise_and_",
     R"(In-place Tensor.bitwise_and: the result is written into self, which is returned.

>>> x = ember.tensor([12, 10])
>>> x.bitwise_and_(6)
tensor([4, 2])
>>> x
tensor([4, 2]))"},
    {"bitwise_or", R"(The bitwise OR of integer or bool tensors (input | other).

>>> x = ember.tensor([12, 10])
>>> ember.bitwise_or(x, 1), x.bitwise_or(ember.tensor([1, 4]))
(tensor([13, 11]), tensor([13, 14])))"},
    {"Tensor.bitwise_or_",
     R"(In-place Tensor.bitwise_or: the result is written into self, which is returned.

>>> x = ember.tensor([12, 10])
>>> x.bitwise_or_(1)
tensor([13, 11])
>>> x
tensor([13, 11]))"},
    {"bitwise_xor", R"(The bitwise XOR of integer or bool tensors (input ^ other).

>>> x = ember.tensor([12, 10])
>>> ember.bitwise_xor(x, 6), x.bitwise_xor(ember.tensor([1, 2]))
(tensor([10, 12]), tensor([13,  8])))"},
    {"Tensor.bitwise_xor_",
     R"(In-place Tensor.bitwise_xor: the result is written into self, which is returned.

>>> x = ember.tensor([12, 10])
>>> x.bitwise_xor_(6)
tensor([10, 12])
>>> x
tensor([10, 12]))"},
    {"gcd", R"(The greatest common divisor of integer tensors, elementwise (always non-negative).

>>> x = ember.tensor([12, -18, 0])
>>> ember.gcd(x, ember.tensor([8, 12, 5])), x.gcd(ember.tensor(6))
(tensor([4, 6, 5]), tensor([6, 6, 6])))"},
    {"Tensor.gcd_", R"(In-place Tensor.gcd: the result is written into self, which is returned.

>>> x = ember.tensor([12, -18, 0])
>>> x.gcd_(ember.tensor(6))
tensor([6, 6, 6])
>>> x
tensor([6, 6, 6]))"},
    {"lcm", R"(The least common multiple of integer tensors, elementwise (always non-negative).

>>> x = ember.tensor([4, -6, 0])
>>> ember.lcm(x, ember.tensor([6, 4, 5])), x.lcm(ember.tensor(3))
(tensor([12, 12,  0]), tensor([12,  6,  0])))"},
    {"Tensor.lcm_", R"(In-place Tensor.lcm: the result is written into self, which is returned.

>>> x = ember.tensor([4, -6, 0])
>>> x.lcm_(ember.tensor(3))
tensor([12,  6,  0])
>>> x
tensor([12,  6,  0]))"},
    {"lt", R"(input < other elementwise (broadcast; other may be a number); the result is bool.

>>> x = ember.tensor([1, 2, 3])
>>> ember.lt(x, 2), x.lt(ember.tensor([3, 2, 1]))
(tensor([ True, False, False]), tensor([ True, False, False])))"},
    {"le", R"(input <= other elementwise (broadcast; other may be a number); the result is bool.

>>> x = ember.tensor([1, 2, 3])
>>> ember.le(x, 2), x.le(ember.tensor([3, 2, 1]))
(tensor([ True,  True, False]), tensor([ True,  True, False])))"},
    {"gt", R"(input > other elementwise (broadcast; other may be a number); the result is bool.

>>> x = ember.tensor([1, 2, 3])
>>> ember.gt(x, 2), x.gt(ember.tensor([3, 2, 1]))
(tensor([False, False,  True]), tensor([False, False,  True])))"},
    {"ge", R"(input >= other elementwise (broadcast; other may be a number); the result is bool.

>>> x = ember.tensor([1, 2, 3])
>>> ember.ge(x, 2), x.ge(ember.tensor([3, 2, 1]))
(tensor([False,  True,  True]), tensor([False,  True,  True])))"},
    {"eq", R"(input == other elementwise (broadcast; other may be a number); the result is bool.

>>> x = ember.tensor([1, 2, 3])
>>> ember.eq(x, 2), x.eq(ember.tensor([3, 2, 1]))
(tensor([False,  True, False]), tensor([False,  True, False])))"},
    {"ne", R"(input != other elementwise (broadcast; other may be a number); the result is bool.

>>> x = ember.tensor([1, 2, 3])
>>> ember.ne(x, 2), x.ne(ember.tensor([3, 2, 1]))
(tensor([ True, False,  True]), tensor([ True, False,  True])))"},
    {"logical_and",
     R"(The logical AND of input and other (zero is False, anything else True), elementwise with
broadcasting; the result is bool.

>>> x = ember.tensor([0, 1, 2])
>>> ember.logical_and(x, ember.tensor([1, 1, 0])), x.logical_and(ember.tensor(True))
(tensor([False,  True, False]), tensor([False,  True,  True])))"},
    {"logical_or",
     R"(The logical OR of input and other (zero is False, anything else True), elementwise with
broadcasting; the result is bool.

>>> x = ember.tensor([0, 1, 2])
>>> ember.logical_or(x, ember.tensor([1, 1, 0])), x.logical_or(ember.tensor(True))
(tensor([True, True, True]), tensor([True, True, True])))"},
    {"logical_xor",
     R"(The logical XOR of input and other (zero is False, anything else True), elementwise with
broadcasting; the result is bool.

>>> x = ember.tensor([0, 1, 2])
>>> ember.logical_xor(x, ember.tensor([1, 1, 0])), x.logical_xor(ember.tensor(True))
(tensor([ True, False,  True]), tensor([ True, False, False])))"},
    {"clamp",
     R"(Each element limited to [min, max] (either bound may be None, a number or a tensor that
broadcasts); torch.clamp.

>>> x = ember.tensor([-2.0, 0.5, 3.0])
>>> ember.clamp(x, min=0.0, max=1.0), x.clamp(max=ember.tensor([0.0, 0.0, 2.0]))
(tensor([0.0000, 0.5000, 1.0000]), tensor([-2.,  0.,  2.])))"},
    {"Tensor.clamp_", R"(In-place Tensor.clamp: the result is written into self, which is returned.

>>> x = ember.tensor([-2.0, 0.5, 3.0])
>>> x.clamp_(min=0.0, max=1.0)
tensor([0.0000, 0.5000, 1.0000])
>>> x
tensor([0.0000, 0.5000, 1.0000]))"},
    {"where",
     R"(Elements of input where condition is True, of other elsewhere (broadcast; input and other may be
numbers). where(condition) alone is nonzero(condition, as_tuple=True).

>>> x = ember.tensor([1.0, -2.0, 3.0])
>>> ember.where(x > 0, x, 0.0)
tensor([1., 0., 3.])
>>> ember.where(x > 0)
(tensor([0, 2]),))"},
    {"masked_fill",
     R"(A copy of input with value (a number or a 0-d tensor) wherever the bool mask (broadcast) is
True.

>>> x = ember.tensor([1.0, 2.0, 3.0])
>>> ember.masked_fill(x, x > 1, 0.0), x.masked_fill(ember.tensor([True, False, False]), -1.0)
(tensor([1., 0., 0.]), tensor([-1.,  2.,  3.])))"},
    {"Tensor.masked_fill_",
     R"(In-place Tensor.masked_fill: value is written into self where mask is True; returns self.

>>> x = ember.tensor([1.0, 2.0, 3.0])
>>> x.masked_fill_(x > 1, 0.0)
tensor([1., 0., 0.])
>>> x
tensor([1., 0., 0.]))"},
    {"result_type",
     R"(The dtype PyTorch's type promotion gives an op on tensor and other (a tensor or a number).

>>> ember.result_type(ember.tensor([1, 2]), 1.0), ember.result_type(ember.tensor([1, 2]), ember.tensor([1], dtype=ember.int32))
(ember.float32, ember.int64))"},
};

}  // namespace

std::span<const Docstring> arithmetic_docstrings() { return kArithmetic; }

}  // namespace ember::py
