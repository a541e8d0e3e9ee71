// Elementwise functions of one tensor (python/bindings/elementwise.cpp, ember/ops.def's unary
// ops): their texts, and those of the in-place methods.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kPointwise[] = {
    {"exp", R"(e raised to each element.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.exp(x), x.exp()
(tensor([1.0000, 2.7183]), tensor([1.0000, 2.7183])))"},
    {"sin", R"(The sine of each element (radians).

>>> x = ember.tensor([0.0, 1.5707964])
>>> ember.sin(x), x.sin()
(tensor([0., 1.]), tensor([0., 1.])))"},
    {"neg", R"(-input, elementwise.

>>> x = ember.tensor([1.0, -2.0])
>>> ember.neg(x), x.neg()
(tensor([-1.,  2.]), tensor([-1.,  2.])))"},
    {"Tensor.neg_", R"(In-place Tensor.neg: the result is written into self, which is returned.

>>> x = ember.tensor([1.0, -2.0])
>>> x.neg_()
tensor([-1.,  2.])
>>> x
tensor([-1.,  2.]))"},
    {"abs", R"(The absolute value of each element.

>>> x = ember.tensor([-1.5, 2.0])
>>> ember.abs(x), x.abs()
(tensor([1.5000, 2.0000]), tensor([1.5000, 2.0000])))"},
    {"Tensor.abs_", R"(In-place Tensor.abs: the result is written into self, which is returned.

>>> x = ember.tensor([-1.5, 2.0])
>>> x.abs_()
tensor([1.5000, 2.0000])
>>> x
tensor([1.5000, 2.0000]))"},
    {"sign", R"(-1, 0 or 1 by the sign of each element.

>>> x = ember.tensor([-2.0, 0.0, 3.0])
>>> ember.sign(x), x.sign()
(tensor([-1.,  0.,  1.]), tensor([-1.,  0.,  1.])))"},
    {"Tensor.sign_", R"(In-place Tensor.sign: the result is written into self, which is returned.

>>> x = ember.tensor([-2.0, 0.0, 3.0])
>>> x.sign_()
tensor([-1.,  0.,  1.])
>>> x
tensor([-1.,  0.,  1.]))"},
    {"floor",
     R"(The largest integer not greater than each element; integer tensors are returned unchanged.

>>> x = ember.tensor([-1.5, 1.5])
>>> ember.floor(x), x.floor()
(tensor([-2.,  1.]), tensor([-2.,  1.])))"},
    {"Tensor.floor_", R"(In-place Tensor.floor: the result is written into self, which is returned.

>>> x = ember.tensor([-1.5, 1.5])
>>> x.floor_()
tensor([-2.,  1.])
>>> x
tensor([-2.,  1.]))"},
    {"ceil",
     R"(The smallest integer not less than each element; integer tensors are returned unchanged.

>>> x = ember.tensor([-1.5, 1.5])
>>> ember.ceil(x), x.ceil()
(tensor([-1.,  2.]), tensor([-1.,  2.])))"},
    {"Tensor.ceil_", R"(In-place Tensor.ceil: the result is written into self, which is returned.

>>> x = ember.tensor([-1.5, 1.5])
>>> x.ceil_()
tensor([-1.,  2.])
>>> x
tensor([-1.,  2.]))"},
    {"round",
     R"(round(input, *, decimals=0, out=None): each element rounded to the nearest integer,
halves to even; with decimals=d, to the nearest multiple of 10^-d (d < 0: of 10^|d|),
computed as torch does: nearbyint(x * 10^d) / 10^d. decimals needs a floating dtype.

>>> x = ember.tensor([0.5, 1.5, -2.7])
>>> ember.round(x), x.round()
(tensor([ 0.,  2., -3.]), tensor([ 0.,  2., -3.]))
>>> ember.round(ember.tensor([1.2345, 1250.0]), decimals=2)
tensor([1.2300e+00, 1.2500e+03])
>>> ember.tensor([1234.5]).round(decimals=-2)
tensor([1200.]))"},
    {"Tensor.round_", R"(In-place Tensor.round: the result is written into self, which is returned.

>>> x = ember.tensor([0.5, 1.5, -2.7])
>>> x.round_()
tensor([ 0.,  2., -3.])
>>> x
tensor([ 0.,  2., -3.]))"},
    {"trunc", R"(Each element rounded toward zero.

>>> x = ember.tensor([-1.7, 1.7])
>>> ember.trunc(x), x.trunc()
(tensor([-1.,  1.]), tensor([-1.,  1.])))"},
    {"Tensor.trunc_", R"(In-place Tensor.trunc: the result is written into self, which is returned.

>>> x = ember.tensor([-1.7, 1.7])
>>> x.trunc_()
tensor([-1.,  1.])
>>> x
tensor([-1.,  1.]))"},
    {"relu", R"(max(input, 0), elementwise (torch.relu).

>>> x = ember.tensor([-1.0, 2.0])
>>> ember.relu(x), x.relu()
(tensor([0., 2.]), tensor([0., 2.])))"},
    {"Tensor.relu_", R"(In-place Tensor.relu: the result is written into self, which is returned.

>>> x = ember.tensor([-1.0, 2.0])
>>> x.relu_()
tensor([0., 2.])
>>> x
tensor([0., 2.]))"},
    {"square", R"(input * input, elementwise.

>>> x = ember.tensor([-2.0, 3.0])
>>> ember.square(x), x.square()
(tensor([4., 9.]), tensor([4., 9.])))"},
    {"Tensor.square_",
     R"(In-place Tensor.square: the result is written into self, which is returned.

>>> x = ember.tensor([-2.0, 3.0])
>>> x.square_()
tensor([4., 9.])
>>> x
tensor([4., 9.]))"},
    {"expm1", R"(exp(input) - 1, accurate near zero.

>>> x = ember.tensor([0.0, 1e-10])
>>> ember.expm1(x), x.expm1()
(tensor([0.0000e+00, 1.0000e-10]), tensor([0.0000e+00, 1.0000e-10])))"},
    {"Tensor.expm1_", R"(In-place Tensor.expm1: the result is written into self, which is returned.

>>> x = ember.tensor([0.0, 1e-10])
>>> x.expm1_()
tensor([0.0000e+00, 1.0000e-10])
>>> x
tensor([0.0000e+00, 1.0000e-10]))"},
    {"log", R"(The natural logarithm of each element (nan below 0, -inf at 0).

>>> x = ember.tensor([1.0, 4.0])
>>> ember.log(x), x.log()
(tensor([0.0000, 1.3863]), tensor([0.0000, 1.3863])))"},
    {"Tensor.log_", R"(In-place Tensor.log: the result is written into self, which is returned.

>>> x = ember.tensor([1.0, 4.0])
>>> x.log_()
tensor([0.0000, 1.3863])
>>> x
tensor([0.0000, 1.3863]))"},
    {"log1p", R"(log(1 + input), accurate near zero.

>>> x = ember.tensor([0.0, 1e-10])
>>> ember.log1p(x), x.log1p()
(tensor([0.0000e+00, 1.0000e-10]), tensor([0.0000e+00, 1.0000e-10])))"},
    {"Tensor.log1p_", R"(In-place Tensor.log1p: the result is written into self, which is returned.

>>> x = ember.tensor([0.0, 1e-10])
>>> x.log1p_()
tensor([0.0000e+00, 1.0000e-10])
>>> x
tensor([0.0000e+00, 1.0000e-10]))"},
    {"log2", R"(The base-2 logarithm of each element.

>>> x = ember.tensor([1.0, 8.0])
>>> ember.log2(x), x.log2()
(tensor([0., 3.]), tensor([0., 3.])))"},
    {"Tensor.log2_", R"(In-place Tensor.log2: the result is written into self, which is returned.

>>> x = ember.tensor([1.0, 8.0])
>>> x.log2_()
tensor([0., 3.])
>>> x
tensor([0., 3.]))"},
    {"sqrt", R"(The square root of each element (nan below 0).

>>> x = ember.tensor([4.0, 2.0])
>>> ember.sqrt(x), x.sqrt()
(tensor([2.0000, 1.4142]), tensor([2.0000, 1.4142])))"},
    {"Tensor.sqrt_", R"(In-place Tensor.sqrt: the result is written into self, which is returned.

>>> x = ember.tensor([4.0, 2.0])
>>> x.sqrt_()
tensor([2.0000, 1.4142])
>>> x
tensor([2.0000, 1.4142]))"},
    {"rsqrt", R"(1 / sqrt(input), elementwise.

>>> x = ember.tensor([4.0, 0.25])
>>> ember.rsqrt(x), x.rsqrt()
(tensor([0.5000, 2.0000]), tensor([0.5000, 2.0000])))"},
    {"Tensor.rsqrt_", R"(In-place Tensor.rsqrt: the result is written into self, which is returned.

>>> x = ember.tensor([4.0, 0.25])
>>> x.rsqrt_()
tensor([0.5000, 2.0000])
>>> x
tensor([0.5000, 2.0000]))"},
    {"reciprocal", R"(1 / input, elementwise; integer input gives the default float dtype.

>>> x = ember.tensor([2.0, -0.5])
>>> ember.reciprocal(x), x.reciprocal()
(tensor([ 0.5000, -2.0000]), tensor([ 0.5000, -2.0000])))"},
    {"Tensor.reciprocal_",
     R"(In-place Tensor.reciprocal: the result is written into self, which is returned.

>>> x = ember.tensor([2.0, -0.5])
>>> x.reciprocal_()
tensor([ 0.5000, -2.0000])
>>> x
tensor([ 0.5000, -2.0000]))"},
    {"cos", R"(The cosine of each element (radians).

>>> x = ember.tensor([0.0, 3.1415927])
>>> ember.cos(x), x.cos()
(tensor([ 1., -1.]), tensor([ 1., -1.])))"},
    {"Tensor.cos_", R"(In-place Tensor.cos: the result is written into self, which is returned.

>>> x = ember.tensor([0.0, 3.1415927])
>>> x.cos_()
tensor([ 1., -1.])
>>> x
tensor([ 1., -1.]))"},
    {"tan", R"(The tangent of each element (radians).

>>> x = ember.tensor([0.0, 0.7853982])
>>> ember.tan(x), x.tan()
(tensor([0., 1.]), tensor([0., 1.])))"},
    {"Tensor.tan_", R"(In-place Tensor.tan: the result is written into self, which is returned.

>>> x = ember.tensor([0.0, 0.7853982])
>>> x.tan_()
tensor([0., 1.])
>>> x
tensor([0., 1.]))"},
    {"tanh", R"(The hyperbolic tangent of each element.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.tanh(x), x.tanh()
(tensor([0.0000, 0.7616]), tensor([0.0000, 0.7616])))"},
    {"Tensor.tanh_", R"(In-place Tensor.tanh: the result is written into self, which is returned.

>>> x = ember.tensor([0.0, 1.0])
>>> x.tanh_()
tensor([0.0000, 0.7616])
>>> x
tensor([0.0000, 0.7616]))"},
    {"sigmoid", R"(The logistic function 1 / (1 + exp(-input)), elementwise.

>>> x = ember.tensor([0.0, 2.0])
>>> ember.sigmoid(x), x.sigmoid()
(tensor([0.5000, 0.8808]), tensor([0.5000, 0.8808])))"},
    {"Tensor.sigmoid_",
     R"(In-place Tensor.sigmoid: the result is written into self, which is returned.

>>> x = ember.tensor([0.0, 2.0])
>>> x.sigmoid_()
tensor([0.5000, 0.8808])
>>> x
tensor([0.5000, 0.8808]))"},
    {"erf", R"(The Gauss error function of each element.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.erf(x), x.erf()
(tensor([0.0000, 0.8427]), tensor([0.0000, 0.8427])))"},
    {"Tensor.erf_", R"(In-place Tensor.erf: the result is written into self, which is returned.

>>> x = ember.tensor([0.0, 1.0])
>>> x.erf_()
tensor([0.0000, 0.8427])
>>> x
tensor([0.0000, 0.8427]))"},
    {"Tensor.exp_", R"(In-place Tensor.exp: the result is written into self, which is returned.

>>> x = ember.tensor([0.0, 1.0])
>>> x.exp_()
tensor([1.0000, 2.7183])
>>> x
tensor([1.0000, 2.7183]))"},
    {"Tensor.sin_", R"(In-place Tensor.sin: the result is written into self, which is returned.

>>> x = ember.tensor([0.0, 1.5707964])
>>> x.sin_()
tensor([0., 1.])
>>> x
tensor([0., 1.]))"},
    {"logical_not", R"(True where input is zero (False), elementwise; the result is bool.

>>> x = ember.tensor([0, 1, 2])
>>> ember.logical_not(x), x.logical_not()
(tensor([ True, False, False]), tensor([ True, False, False])))"},
    {"bitwise_not", R"(The bitwise NOT of each element of an integer or bool tensor (~input).

>>> x = ember.tensor([0, 5, -1])
>>> ember.bitwise_not(x), x.bitwise_not()
(tensor([-1, -6,  0]), tensor([-1, -6,  0])))"},
};

}  // namespace

std::span<const Docstring> pointwise_docstrings() { return kPointwise; }

}  // namespace ember::py
