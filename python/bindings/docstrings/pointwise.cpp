// Elementwise functions (python/bindings/elementwise.cpp): math of one tensor, arithmetic and
// comparison of two, and their in-place methods.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kPointwise[] = {
    {"add", R"(input + alpha * other, broadcast; other may be a number.

>>> x = ember.tensor([1.0, 2.0])
>>> ember.add(x, ember.tensor([10.0, 20.0]), alpha=2), x.add(1)
(tensor([21., 42.]), tensor([2., 3.])))"},
    {"exp", R"(e raised to each element.

>>> x = ember.tensor([0.0, 1.0])
>>> ember.exp(x), x.exp()
(tensor([1.0000, 2.7183]), tensor([1.0000, 2.7183])))"},
    {"sin", R"(The sine of each element (radians).

>>> x = ember.tensor([0.0, 1.5707964])
>>> ember.sin(x), x.sin()
(tensor([0., 1.]), tensor([0., 1.])))"},
    {"Tensor.sin_", R"(Tensor.sin written into self; returns self.

>>> x = ember.tensor([0.0, 1.5707964])
>>> x.sin_()
tensor([0., 1.])
>>> x
tensor([0., 1.]))"},
};

}  // namespace

std::span<const Docstring> pointwise_docstrings() { return kPointwise; }

}  // namespace ember::py
