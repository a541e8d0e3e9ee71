// Reductions (python/bindings/reduce.cpp): sums, means, extrema, statistics, norms,
// softmax.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kReduction[] = {
    {"sum",
     R"(The sum of input's elements, over dim (an int or tuple) if given; keepdim keeps reduced
dimensions as size 1; dtype casts first. Integer and bool inputs sum to int64.

>>> x = ember.tensor([[1, 2], [3, 4]])
>>> ember.sum(x), x.sum(1), x.sum((0, 1), keepdim=True)
(tensor(10), tensor([3, 7]), tensor([[10]])))"},
    {"mean", R"(The mean of input's elements (floating or complex input), over dim if given.

>>> x = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> ember.mean(x), x.mean(0)
(tensor(2.5000), tensor([2., 3.])))"},
    {"prod", R"(The product of input's elements, or along one dim.

>>> x = ember.tensor([[1, 2], [3, 4]])
>>> ember.prod(x), x.prod(1)
(tensor(24), tensor([ 2, 12])))"},
    {"amax",
     R"(The maximum of input over dim (every dimension by default); no indices, the gradient shared
among ties.

>>> x = ember.tensor([[1, 5], [3, 4]])
>>> ember.amax(x), x.amax(0)
(tensor(5), tensor([3, 5])))"},
    {"amin", R"(The minimum of input over dim (every dimension by default); no indices.

>>> x = ember.tensor([[1, 5], [3, 4]])
>>> ember.amin(x), x.amin(1)
(tensor(1), tensor([1, 3])))"},
    {"max",
     R"(max(input): the largest element; max(input, other): the elementwise maximum; max(input, dim,
keepdim=False): (values, indices) along dim.

>>> x = ember.tensor([[1, 5], [3, 4]])
>>> ember.max(x), x.max(ember.tensor(4))
(tensor(5), tensor([[4, 5],
        [4, 4]]))
>>> x.max(1)
ember.return_types.max(
values=tensor([5, 4]),
indices=tensor([1, 1])))"},
    {"min",
     R"(min(input): the smallest element; min(input, other): the elementwise minimum; min(input, dim,
keepdim=False): (values, indices) along dim.

>>> x = ember.tensor([[1, 5], [3, 4]])
>>> ember.min(x), x.min(ember.tensor(4))
(tensor(1), tensor([[1, 4],
        [3, 4]]))
>>> x.min(0)
ember.return_types.min(
values=tensor([1, 4]),
indices=tensor([0, 1])))"},
    {"argmax",
     R"(The index of the largest element (of the flattened input, or along dim); the first one among
ties.

>>> x = ember.tensor([[1, 5], [3, 4]])
>>> ember.argmax(x), x.argmax(0)
(tensor(1), tensor([1, 0])))"},
    {"argmin",
     R"(The index of the smallest element (of the flattened input, or along dim); the first one among
ties.

>>> x = ember.tensor([[1, 5], [3, 4]])
>>> ember.argmin(x), x.argmin(1)
(tensor(0), tensor([0, 0])))"},
    {"var",
     R"(The variance over dim (every dimension by default) with Bessel's correction (correction=1;
unbiased=False or correction=0 divides by N).

>>> x = ember.tensor([1.0, 2.0, 3.0, 4.0])
>>> ember.var(x), x.var(correction=0)
(tensor(1.6667), tensor(1.2500)))"},
    {"std", R"(The standard deviation over dim with Bessel's correction (as var).

>>> x = ember.tensor([1.0, 2.0, 3.0, 4.0])
>>> ember.std(x), x.std(unbiased=False)
(tensor(1.2910), tensor(1.1180)))"},
    {"norm",
     R"(The p-norm of input over dim (every element by default); p a number, inf, or 'fro' (2). p='nuc'
is not supported.

>>> x = ember.tensor([[3.0, 4.0], [0.0, 1.0]])
>>> ember.norm(x), x.norm(1, dim=1)
(tensor(5.0990), tensor([7., 1.])))"},
    {"logsumexp", R"(log(sum(exp(input))) over dim, computed without overflow.

>>> x = ember.tensor([[0.0, 0.0], [1000.0, 1000.0]])
>>> ember.logsumexp(x, 1), x.logsumexp(0).shape
(tensor([6.9315e-01, 1.0007e+03]), ember.Size([2])))"},
    {"all", R"(Whether every element is nonzero (over dim if given), as a bool tensor.

>>> x = ember.tensor([[1, 0], [2, 3]])
>>> ember.all(x), x.all(1)
(tensor(False), tensor([False,  True])))"},
    {"any", R"(Whether some element is nonzero (over dim if given), as a bool tensor.

>>> x = ember.tensor([[1, 0], [0, 0]])
>>> ember.any(x), x.any(1)
(tensor(True), tensor([ True, False])))"},
    {"softmax",
     R"(exp(input) normalised to sum to 1 along dim; dtype casts first. Also ember.special.softmax.

>>> x = ember.tensor([[0.0, 0.0], [0.0, 1.0]])
>>> ember.softmax(x, 1), x.softmax(0)[0]
(tensor([[0.5000, 0.5000],
        [0.2689, 0.7311]]), tensor([0.5000, 0.2689])))"},
    {"log_softmax",
     R"(log(softmax(input, dim)) computed stably; dtype casts first. Also ember.special.log_softmax.

>>> x = ember.tensor([0.0, 0.0])
>>> ember.log_softmax(x, 0), x.log_softmax(-1)
(tensor([-0.6931, -0.6931]), tensor([-0.6931, -0.6931])))"},
};

}  // namespace

std::span<const Docstring> reduction_docstrings() { return kReduction; }

}  // namespace ember::py
