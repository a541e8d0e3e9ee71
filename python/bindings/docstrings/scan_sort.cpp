// Scans, flips, triangles, sorting, classification and lerp/addcmul/addcdiv
// (python/bindings/scan_sort_special.cpp).
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kScanSort[] = {
    {"cumsum",
     R"(The running sums of input along dim; dtype casts first (integers accumulate in int64).

>>> x = ember.tensor([1, 2, 3])
>>> ember.cumsum(x, 0), x.cumsum(dim=0, dtype=ember.float32)
(tensor([1, 3, 6]), tensor([1., 3., 6.])))"},
    {"cumprod", R"(The running products of input along dim; dtype casts first.

>>> x = ember.tensor([1, 2, 3])
>>> ember.cumprod(x, 0), x.cumprod(0)
(tensor([1, 2, 6]), tensor([1, 2, 6])))"},
    {"Tensor.cumsum_", R"(Tensor.cumsum written into self; returns self.

>>> x = ember.tensor([1.0, 2.0, 3.0])
>>> x.cumsum_(0)
tensor([1., 3., 6.])
>>> x
tensor([1., 3., 6.]))"},
    {"Tensor.cumprod_", R"(Tensor.cumprod written into self; returns self.

>>> x = ember.tensor([1.0, 2.0, 3.0])
>>> x.cumprod_(0)
tensor([1., 2., 6.])
>>> x
tensor([1., 2., 6.]))"},
    {"tril",
     R"(input with the elements above the diagonal-th diagonal set to 0 (over the last two dimensions).

>>> x = ember.ones(2, 3)
>>> ember.tril(x), x.tril(1)
(tensor([[1., 0., 0.],
        [1., 1., 0.]]), tensor([[1., 1., 0.],
        [1., 1., 1.]])))"},
    {"triu",
     R"(input with the elements below the diagonal-th diagonal set to 0 (over the last two dimensions).

>>> x = ember.ones(2, 3)
>>> ember.triu(x), x.triu(-1)
(tensor([[1., 1., 1.],
        [0., 1., 1.]]), tensor([[1., 1., 1.],
        [1., 1., 1.]])))"},
    {"Tensor.tril_", R"(Tensor.tril written into self; returns self.

>>> x = ember.ones(2, 2)
>>> x.tril_()
tensor([[1., 0.],
        [1., 1.]])
>>> x
tensor([[1., 0.],
        [1., 1.]]))"},
    {"Tensor.triu_", R"(Tensor.triu written into self; returns self.

>>> x = ember.ones(2, 2)
>>> x.triu_()
tensor([[1., 1.],
        [0., 1.]])
>>> x
tensor([[1., 1.],
        [0., 1.]]))"},
    {"flip", R"(A copy of input with the order of the given dimensions reversed.

>>> x = ember.tensor([[1, 2], [3, 4]])
>>> ember.flip(x, [0]), x.flip(0, 1)
(tensor([[3, 4],
        [1, 2]]), tensor([[4, 3],
        [2, 1]])))"},
    {"fliplr", R"(input with dimension 1 reversed (input at least 2-d).

>>> x = ember.tensor([[1, 2], [3, 4]])
>>> ember.fliplr(x), x.fliplr()[0]
(tensor([[2, 1],
        [4, 3]]), tensor([2, 1])))"},
    {"flipud", R"(input with dimension 0 reversed (input at least 1-d).

>>> x = ember.tensor([[1, 2], [3, 4]])
>>> ember.flipud(x), x.flipud()[0]
(tensor([[3, 4],
        [1, 2]]), tensor([3, 4])))"},
    {"roll", R"(input shifted circularly by shifts along dims (flattened when dims is None).

>>> x = ember.tensor([[1, 2], [3, 4]])
>>> ember.roll(x, 1), x.roll(1, 1)
(tensor([[4, 1],
        [2, 3]]), tensor([[2, 1],
        [4, 3]])))"},
    {"sort",
     R"((values, indices) of input sorted along dim (ascending unless descending=True; stable=True keeps
ties in order).

>>> x = ember.tensor([3, 1, 2])
>>> ember.sort(x)
ember.return_types.sort(
values=tensor([1, 2, 3]),
indices=tensor([1, 2, 0]))
>>> x.sort(descending=True).indices
tensor([0, 2, 1]))"},
    {"argsort", R"(The indices that sort input along dim.

>>> x = ember.tensor([3, 1, 2])
>>> ember.argsort(x), x.argsort(descending=True)
(tensor([1, 2, 0]), tensor([0, 2, 1])))"},
    {"topk", R"((values, indices) of the k largest (or smallest, largest=False) elements along dim.

>>> x = ember.tensor([3, 1, 2, 5])
>>> ember.topk(x, 2)
ember.return_types.topk(
values=tensor([5, 3]),
indices=tensor([3, 0]))
>>> x.topk(1, largest=False).values
tensor([1]))"},
    {"isnan", R"(Whether each element is NaN.

>>> x = ember.tensor([1.0, float('nan')])
>>> ember.isnan(x), x.isnan()
(tensor([False,  True]), tensor([False,  True])))"},
    {"isinf", R"(Whether each element is +inf or -inf.

>>> x = ember.tensor([1.0, float('inf'), -float('inf')])
>>> ember.isinf(x), x.isinf()
(tensor([False,  True,  True]), tensor([False,  True,  True])))"},
    {"isposinf", R"(Whether each element is +inf.

>>> x = ember.tensor([1.0, float('inf'), -float('inf')])
>>> ember.isposinf(x), x.isposinf()
(tensor([False,  True, False]), tensor([False,  True, False])))"},
    {"isneginf", R"(Whether each element is -inf.

>>> x = ember.tensor([1.0, float('inf'), -float('inf')])
>>> ember.isneginf(x), x.isneginf()
(tensor([False, False,  True]), tensor([False, False,  True])))"},
    {"isfinite", R"(Whether each element is neither inf nor NaN.

>>> x = ember.tensor([1.0, float('inf'), float('nan')])
>>> ember.isfinite(x), x.isfinite()
(tensor([ True, False, False]), tensor([ True, False, False])))"},
    {"lerp", R"(input + weight * (end - input); weight a number or a tensor, broadcast.

>>> x = ember.tensor([0.0, 10.0])
>>> ember.lerp(x, ember.tensor([10.0, 20.0]), 0.5), x.lerp(ember.ones(2), ember.tensor([0.0, 1.0]))
(tensor([ 5., 15.]), tensor([0., 1.])))"},
    {"addcmul", R"(input + value * tensor1 * tensor2, broadcast.

>>> x = ember.tensor([1.0, 1.0])
>>> ember.addcmul(x, ember.tensor([2.0, 3.0]), ember.tensor([4.0, 5.0])), x.addcmul(x, x, value=0.5)
(tensor([ 9., 16.]), tensor([1.5000, 1.5000])))"},
    {"addcdiv", R"(input + value * tensor1 / tensor2, broadcast.

>>> x = ember.tensor([1.0, 1.0])
>>> ember.addcdiv(x, ember.tensor([2.0, 3.0]), ember.tensor([4.0, 6.0])), x.addcdiv(x, x, value=2)
(tensor([1.5000, 1.5000]), tensor([3., 3.])))"},
    {"Tensor.lerp_", R"(Tensor.lerp written into self; returns self.

>>> x = ember.tensor([0.0, 10.0])
>>> x.lerp_(ember.tensor([10.0, 20.0]), 0.5)
tensor([ 5., 15.])
>>> x
tensor([ 5., 15.]))"},
    {"Tensor.addcmul_", R"(Tensor.addcmul written into self; returns self.

>>> x = ember.tensor([1.0, 1.0])
>>> x.addcmul_(ember.tensor([2.0, 3.0]), ember.tensor([4.0, 5.0]))
tensor([ 9., 16.])
>>> x
tensor([ 9., 16.]))"},
    {"Tensor.addcdiv_", R"(Tensor.addcdiv written into self; returns self.

>>> x = ember.tensor([1.0, 1.0])
>>> x.addcdiv_(ember.tensor([2.0, 3.0]), ember.tensor([4.0, 6.0]))
tensor([1.5000, 1.5000])
>>> x
tensor([1.5000, 1.5000]))"},
};

}  // namespace

std::span<const Docstring> scan_sort_docstrings() { return kScanSort; }

}  // namespace ember::py
