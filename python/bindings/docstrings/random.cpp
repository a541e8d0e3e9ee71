// Random sampling (python/bindings/random.cpp): in-place fills and sampling functions.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kRandom[] = {
    {"Tensor.uniform_", R"(Fills self with samples uniform on [from, to); returns self.

>>> ember.manual_seed(0)
<ember.Generator initial_seed=0>
>>> x = ember.empty(1000).uniform_(2, 3)
>>> bool((x >= 2).all() and (x < 3).all())
True)"},
    {"Tensor.normal_",
     R"(Fills self with samples of the normal distribution N(mean, std**2); returns self.

>>> x = ember.empty(2, 3).normal_(0, 0.1)
>>> x.shape
ember.Size([2, 3]))"},
    {"Tensor.bernoulli_",
     R"(Fills self with 1 with probability p (a number or a tensor of probabilities), else 0; returns
self.

>>> ember.zeros(3).bernoulli_(1.0)
tensor([1., 1., 1.])
>>> ember.ones(2).bernoulli_(ember.tensor([0.0, 1.0]))
tensor([0., 1.]))"},
    {"Tensor.exponential_",
     R"(Fills self with samples of the exponential distribution of rate lambd; returns self.

>>> x = ember.empty(1000).exponential_(2.0)
>>> bool((x >= 0).all())
True)"},
    {"Tensor.geometric_",
     R"(Fills self with samples of the geometric distribution (trials to the first success, >= 1) of
probability p; returns self.

>>> x = ember.empty(1000).geometric_(0.5)
>>> bool((x >= 1).all())
True)"},
    {"Tensor.cauchy_",
     R"(Fills self with samples of the Cauchy distribution (median, sigma); returns self.

>>> ember.empty(2, 2).cauchy_().shape
ember.Size([2, 2]))"},
    {"Tensor.log_normal_", R"(Fills self with exp of samples of N(mean, std**2); returns self.

>>> x = ember.empty(100).log_normal_()
>>> bool((x > 0).all())
True)"},
    {"Tensor.random_",
     R"(Fills self with integers uniform on [from, to) (random_(to): [0, to); random_(): the dtype's
range); returns self.

>>> x = ember.zeros(100, dtype=ember.int64).random_(3, 5)
>>> sorted(set(x.tolist()))
[3, 4])"},
    {"bernoulli",
     R"(Samples 0 or 1 with the probability in each element of input (or p); same shape and dtype.

>>> ember.bernoulli(ember.tensor([0.0, 1.0, 1.0]))
tensor([0., 1., 1.])
>>> ember.zeros(2).bernoulli(1.0)
tensor([1., 1.]))"},
    {"multinomial",
     R"(num_samples indices drawn from each row of weights input (without replacement unless
replacement=True).

>>> w = ember.tensor([0.0, 1.0, 0.0])
>>> ember.multinomial(w, 1), w.multinomial(4, replacement=True)
(tensor([1]), tensor([1, 1, 1, 1])))"},
    {"normal",
     R"(Samples of N(mean, std**2), mean and std tensors (broadcast) or numbers (then size gives the
shape).

>>> ember.normal(2.0, 0.0, (2,))
tensor([2., 2.])
>>> ember.normal(ember.tensor([1.0, 5.0]), 0.0)
tensor([1., 5.]))"},
    {"poisson", R"(A sample of the Poisson distribution of each rate in input.

>>> ember.poisson(ember.tensor([0.0, 0.0]))
tensor([0., 0.])
>>> ember.poisson(ember.full((3,), 4.0)).shape
ember.Size([3]))"},
    {"binomial", R"(A sample of the binomial distribution of each count and prob.

>>> ember.binomial(ember.tensor([5.0, 3.0]), ember.tensor([1.0, 0.0]))
tensor([5., 0.]))"},
};

}  // namespace

std::span<const Docstring> random_docstrings() { return kRandom; }

}  // namespace ember::py
