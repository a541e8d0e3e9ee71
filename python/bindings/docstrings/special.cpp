// Special functions (python/bindings/special.cpp, and erfinv of scan_sort_special.cpp):
// gamma family, erfc/erfinv, i0, sinc, logit, xlogy.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kSpecial[] = {
    {"erfinv",
     R"(The inverse error function of each element (inf at 1, -inf at -1, NaN outside [-1, 1]).

>>> x = ember.tensor([0.0, 0.5])
>>> ember.erfinv(x), x.erfinv()
(tensor([0.0000, 0.4769]), tensor([0.0000, 0.4769])))"},
    {"erfinv_", R"(erfinv written into input (a Tensor method too); returns input.

>>> x = ember.tensor([0.0, 0.5])
>>> ember.erfinv_(x)
tensor([0.0000, 0.4769])
>>> x
tensor([0.0000, 0.4769]))"},
    {"lgamma", R"(The log of the absolute value of the gamma function of each element.

>>> x = ember.tensor([1.0, 3.0, 0.5])
>>> ember.lgamma(x), x.lgamma()
(tensor([0.0000, 0.6931, 0.5724]), tensor([0.0000, 0.6931, 0.5724])))"},
    {"Tensor.lgamma_", R"(Tensor.lgamma written into self; returns self.

>>> x = ember.tensor([1.0, 3.0, 0.5])
>>> x.lgamma_()
tensor([0.0000, 0.6931, 0.5724])
>>> x
tensor([0.0000, 0.6931, 0.5724]))"},
    {"digamma", R"(The digamma function (the derivative of lgamma) of each element.

>>> x = ember.tensor([1.0, 2.0])
>>> ember.digamma(x), x.digamma()
(tensor([-0.5772,  0.4228]), tensor([-0.5772,  0.4228])))"},
    {"Tensor.digamma_", R"(Tensor.digamma written into self; returns self.

>>> x = ember.tensor([1.0, 2.0])
>>> x.digamma_()
tensor([-0.5772,  0.4228])
>>> x
tensor([-0.5772,  0.4228]))"},
    {"erfc", R"(The complementary error function 1 - erf(x) of each element, accurate for large x.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.erfc(x), x.erfc()
(tensor([1.0000, 0.1573]), tensor([1.0000, 0.1573])))"},
    {"erfc_", R"(erfc written into input (a Tensor method too); returns input.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.erfc_(x)
tensor([1.0000, 0.1573])
>>> x
tensor([1.0000, 0.1573]))"},
    {"i0", R"(The modified Bessel function of the first kind, order 0, of each element.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.i0(x), x.i0()
(tensor([1.0000, 1.2661]), tensor([1.0000, 1.2661])))"},
    {"i0_", R"(i0 written into input (a Tensor method too); returns input.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.i0_(x)
tensor([1.0000, 1.2661])
>>> x
tensor([1.0000, 1.2661]))"},
    {"sinc", R"(The normalised sinc function sin(pi x) / (pi x) of each element (1 at 0).

>>> x = ember.tensor([0.0, 0.5])
>>> ember.sinc(x), x.sinc()
(tensor([1.0000, 0.6366]), tensor([1.0000, 0.6366])))"},
    {"sinc_", R"(sinc written into input (a Tensor method too); returns input.

>>> x = ember.tensor([0.0, 0.5])
>>> ember.sinc_(x)
tensor([1.0000, 0.6366])
>>> x
tensor([1.0000, 0.6366]))"},
    {"igamma", R"(The regularised lower incomplete gamma function P(input, other), elementwise.

>>> a = ember.tensor([1.0, 2.0])
>>> ember.igamma(a, ember.tensor([1.0, 1.0])), a.igamma(ember.zeros(2))
(tensor([0.6321, 0.2642]), tensor([0., 0.])))"},
    {"igammac",
     R"(The regularised upper incomplete gamma function Q(input, other) = 1 - P, elementwise.

>>> a = ember.tensor([1.0, 2.0])
>>> ember.igammac(a, ember.tensor([1.0, 1.0])), a.igammac(ember.zeros(2))
(tensor([0.3679, 0.7358]), tensor([1., 1.])))"},
    {"Tensor.igamma_", R"(Tensor.igamma written into self; returns self.

>>> x = ember.tensor([1.0, 2.0])
>>> x.igamma_(ember.tensor([1.0, 1.0]))
tensor([0.6321, 0.2642])
>>> x
tensor([0.6321, 0.2642]))"},
    {"Tensor.igammac_", R"(Tensor.igammac written into self; returns self.

>>> x = ember.tensor([1.0, 2.0])
>>> x.igammac_(ember.tensor([1.0, 1.0]))
tensor([0.3679, 0.7358])
>>> x
tensor([0.3679, 0.7358]))"},
    {"polygamma",
     R"(The n-th derivative of digamma at each element: ember.polygamma(n, input), input.polygamma(n).

>>> x = ember.tensor([1.0, 2.0])
>>> ember.polygamma(1, x), x.polygamma(0)
(tensor([1.6449, 0.6449]), tensor([-0.5772,  0.4228])))"},
    {"Tensor.polygamma_", R"(Tensor.polygamma written into self; returns self.

>>> x = ember.tensor([1.0, 2.0])
>>> x.polygamma_(1)
tensor([1.6449, 0.6449])
>>> x
tensor([1.6449, 0.6449]))"},
    {"mvlgamma",
     R"(The log of the multivariate gamma function of dimension p, elementwise (every element > (p - 1)
/ 2).

>>> x = ember.tensor([1.0, 2.5])
>>> ember.mvlgamma(x, 1), x.mvlgamma(2)
(tensor([0.0000, 0.2847]), tensor([1.1447, 0.8570])))"},
    {"Tensor.mvlgamma_", R"(Tensor.mvlgamma written into self; returns self.

>>> x = ember.tensor([1.0, 2.5])
>>> x.mvlgamma_(2)
tensor([1.1447, 0.8570])
>>> x
tensor([1.1447, 0.8570]))"},
    {"logit", R"(log(p / (1 - p)) of each element; eps clamps p into [eps, 1 - eps] first.

>>> p = ember.tensor([0.5, 0.75, 1.0])
>>> ember.logit(p), p.logit(eps=1e-6)
(tensor([0.0000, 1.0986,    inf]), tensor([ 0.0000,  1.0986, 13.8023])))"},
    {"logit_", R"(logit written into input (a Tensor method too); returns input.

>>> x = ember.tensor([0.5, 0.75])
>>> ember.logit_(x)
tensor([0.0000, 1.0986])
>>> x.logit_(eps=0.4)
tensor([-0.4055,  0.4055]))"},
    {"xlogy",
     R"(input * log(other), 0 where input is 0 (even if other is 0); either may be a number.

>>> x = ember.tensor([0.0, 2.0])
>>> ember.xlogy(x, ember.tensor([0.0, 4.0])), x.xlogy(2), ember.xlogy(2, x)
(tensor([0.0000, 2.7726]), tensor([0.0000, 1.3863]), tensor([  -inf, 1.3863])))"},
    {"xlogy_", R"(xlogy written into input (a Tensor method too); returns input.

>>> x = ember.tensor([0.0, 2.0])
>>> ember.xlogy_(x, 4)
tensor([0.0000, 2.7726])
>>> x.xlogy_(ember.tensor([1.0, 1.0]))
tensor([0., 0.]))"},
};

}  // namespace

std::span<const Docstring> special_docstrings() { return kSpecial; }

}  // namespace ember::py
