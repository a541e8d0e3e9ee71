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
    {"Tensor.requires_grad",
     R"(Whether autograd records ops on this tensor (settable on leaves); results of ops on such tensors
require grad too.

>>> x = ember.tensor([1.0])
>>> x.requires_grad, (x * 2).requires_grad
(False, False)
>>> x.requires_grad = True
>>> (x * 2).requires_grad
True)"},
    {"Tensor.grad",
     R"(The gradient backward accumulated into this leaf (None until then); settable, None clears it.

>>> x = ember.tensor([1.0, 2.0], requires_grad=True)
>>> x.grad is None
True
>>> (x * x).sum().backward()
>>> x.grad
tensor([2., 4.])
>>> x.grad = None)"},
    {"Tensor.grad_fn",
     R"(The autograd node that made this tensor (None for leaves and tensors that do not require grad).

>>> x = ember.tensor([1.0], requires_grad=True)
>>> x.grad_fn is None, (x * 2).grad_fn is not None
(True, True))"},
    {"Tensor.is_leaf",
     R"(True for tensors autograd did not make: created by the user, or not requiring grad.

>>> x = ember.tensor([1.0], requires_grad=True)
>>> x.is_leaf, (x * 2).is_leaf, ember.tensor([1.0]).is_leaf
(True, False, True))"},
    {"Tensor.output_nr",
     R"(Which output of its grad_fn this tensor is (0 for leaves). Differs from torch: ember's split,
chunk, unbind and var_mean make one node per output, so each of their outputs has 0 where torch
numbers them 0, 1, ...

>>> x = ember.tensor([1.0, 2.0], requires_grad=True)
>>> x.output_nr, (x * 2).output_nr
(0, 0))"},
    {"Tensor.grad_dtype",
     R"(The dtype backward gives this leaf's .grad (its own dtype unless set; None allows any); settable
on leaves only.

>>> x = ember.tensor([1.0], requires_grad=True)
>>> x.grad_dtype
ember.float32
>>> x.grad_dtype = ember.float64
>>> (x * 2).sum().backward()
>>> x.grad
tensor([2.], dtype=ember.float64))"},
    {"Tensor.retains_grad",
     R"(True when this non-leaf tensor keeps its .grad after backward (after retain_grad()).

>>> x = ember.tensor([1.0], requires_grad=True)
>>> y = x * 2
>>> y.retains_grad
False
>>> y.retain_grad()
>>> y.retains_grad
True)"},
    {"Tensor.data",
     R"(The tensor's values as a tensor outside autograd (sharing storage, requires_grad False);
assigning replaces self's storage without autograd seeing it.

>>> x = ember.tensor([1.0, 2.0], requires_grad=True)
>>> x.data
tensor([1., 2.])
>>> x.data = ember.tensor([5.0])
>>> x
tensor([5.], requires_grad=True))"},
};

}  // namespace

std::span<const Docstring> autograd_docstrings() { return kAutograd; }

}  // namespace ember::py
