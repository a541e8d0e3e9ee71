// Autograd state and the Tensor autograd methods bound in python/bindings/autograd.cpp.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kAutograd[] = {
    {"is_grad_enabled",
     R"(True unless gradient recording is off (inside ember.no_grad() or after set_grad_enabled(False)).

>>> ember.is_grad_enabled()
True
>>> with ember.no_grad():
...     ember.is_grad_enabled()
False)"},
    {"Tensor.requires_grad_",
     R"(Sets requires_grad in place (default True) and returns self; autograd then records ops on it.

>>> x = ember.tensor([1.0, 2.0])
>>> x.requires_grad_()
tensor([1., 2.], requires_grad=True)
>>> x.requires_grad_(False).requires_grad
False)"},
    {"Tensor.retain_grad",
     R"(Makes a non-leaf tensor keep its .grad after backward (leaves always do); returns None.

>>> x = ember.tensor([1.0, 2.0], requires_grad=True)
>>> y = x * 3
>>> y.retain_grad()
>>> y.sum().backward()
>>> y.grad, y.retains_grad
(tensor([1., 1.]), True))"},
    {"Tensor.detach_",
     R"(Detaches self from the graph in place: no grad_fn, requires_grad False; returns self.

>>> x = ember.tensor([1.0], requires_grad=True) * 2
>>> x.detach_()
tensor([2.])
>>> x.requires_grad, x.grad_fn
(False, None))"},
};

}  // namespace

std::span<const Docstring> autograd_docstrings() { return kAutograd; }

}  // namespace ember::py
