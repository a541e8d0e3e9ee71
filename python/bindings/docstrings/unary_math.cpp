// Hyperbolic and inverse trigonometric functions, log10 and exp2, and their in-place
// forms (python/bindings/scan_sort_special.cpp).
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kUnaryMath[] = {
    {"sinh", R"(The hyperbolic sine of each element.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.sinh(x), x.sinh()
(tensor([0.0000, 1.1752]), tensor([0.0000, 1.1752])))"},
    {"sinh_", R"(sinh written into input (a Tensor method too); returns input.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.sinh_(x)
tensor([0.0000, 1.1752])
>>> x
tensor([0.0000, 1.1752]))"},
    {"cosh", R"(The hyperbolic cosine of each element.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.cosh(x), x.cosh()
(tensor([1.0000, 1.5431]), tensor([1.0000, 1.5431])))"},
    {"cosh_", R"(cosh written into input (a Tensor method too); returns input.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.cosh_(x)
tensor([1.0000, 1.5431])
>>> x
tensor([1.0000, 1.5431]))"},
    {"asinh", R"(The inverse hyperbolic sine of each element.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.asinh(x), x.asinh()
(tensor([0.0000, 0.8814]), tensor([0.0000, 0.8814])))"},
    {"asinh_", R"(asinh written into input (a Tensor method too); returns input.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.asinh_(x)
tensor([0.0000, 0.8814])
>>> x
tensor([0.0000, 0.8814]))"},
    {"acosh", R"(The inverse hyperbolic cosine of each element (NaN below 1).

>>> x = ember.tensor([1.0, 2.0])
>>> ember.acosh(x), x.acosh()
(tensor([0.0000, 1.3170]), tensor([0.0000, 1.3170])))"},
    {"acosh_", R"(acosh written into input (a Tensor method too); returns input.

>>> x = ember.tensor([1.0, 2.0])
>>> ember.acosh_(x)
tensor([0.0000, 1.3170])
>>> x
tensor([0.0000, 1.3170]))"},
    {"atanh", R"(The inverse hyperbolic tangent of each element (NaN outside [-1, 1]).

>>> x = ember.tensor([0.0, 0.5])
>>> ember.atanh(x), x.atanh()
(tensor([0.0000, 0.5493]), tensor([0.0000, 0.5493])))"},
    {"atanh_", R"(atanh written into input (a Tensor method too); returns input.

>>> x = ember.tensor([0.0, 0.5])
>>> ember.atanh_(x)
tensor([0.0000, 0.5493])
>>> x
tensor([0.0000, 0.5493]))"},
    {"acos", R"(The arccosine of each element, in radians (NaN outside [-1, 1]).

>>> x = ember.tensor([1.0, 0.0])
>>> ember.acos(x), x.acos()
(tensor([0.0000, 1.5708]), tensor([0.0000, 1.5708])))"},
    {"acos_", R"(acos written into input (a Tensor method too); returns input.

>>> x = ember.tensor([1.0, 0.0])
>>> ember.acos_(x)
tensor([0.0000, 1.5708])
>>> x
tensor([0.0000, 1.5708]))"},
    {"asin", R"(The arcsine of each element, in radians (NaN outside [-1, 1]).

>>> x = ember.tensor([0.0, 1.0])
>>> ember.asin(x), x.asin()
(tensor([0.0000, 1.5708]), tensor([0.0000, 1.5708])))"},
    {"asin_", R"(asin written into input (a Tensor method too); returns input.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.asin_(x)
tensor([0.0000, 1.5708])
>>> x
tensor([0.0000, 1.5708]))"},
    {"atan", R"(The arctangent of each element, in radians.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.atan(x), x.atan()
(tensor([0.0000, 0.7854]), tensor([0.0000, 0.7854])))"},
    {"atan_", R"(atan written into input (a Tensor method too); returns input.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.atan_(x)
tensor([0.0000, 0.7854])
>>> x
tensor([0.0000, 0.7854]))"},
    {"log10", R"(The base-10 logarithm of each element.

>>> x = ember.tensor([1.0, 100.0])
>>> ember.log10(x), x.log10()
(tensor([0., 2.]), tensor([0., 2.])))"},
    {"log10_", R"(log10 written into input (a Tensor method too); returns input.

>>> x = ember.tensor([1.0, 100.0])
>>> ember.log10_(x)
tensor([0., 2.])
>>> x
tensor([0., 2.]))"},
    {"exp2", R"(2 raised to each element.

>>> x = ember.tensor([0.0, 3.0])
>>> ember.exp2(x), x.exp2()
(tensor([1., 8.]), tensor([1., 8.])))"},
    {"exp2_", R"(exp2 written into input (a Tensor method too); returns input.

>>> x = ember.tensor([0.0, 3.0])
>>> ember.exp2_(x)
tensor([1., 8.])
>>> x
tensor([1., 8.]))"},
};

}  // namespace

std::span<const Docstring> unary_math_docstrings() { return kUnaryMath; }

}  // namespace ember::py
