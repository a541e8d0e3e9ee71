// Matrix products (python/bindings/linalg.cpp): matmul, mm, bmm, mv, dot, outer, addmm.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kLinalg[] = {
    {"matmul", R"(The matrix product with PyTorch's rules: 1-d vectors, batched matrices broadcast.

>>> a = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> ember.matmul(a, ember.tensor([1.0, 1.0])), a.matmul(a)
(tensor([3., 7.]), tensor([[ 7., 10.],
        [15., 22.]])))"},
    {"mm", R"(The product of two matrices (no broadcasting).

>>> a = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> ember.mm(a, a), a.mm(a)[0]
(tensor([[ 7., 10.],
        [15., 22.]]), tensor([ 7., 10.])))"},
    {"bmm", R"(The product of each pair of matrices in two batches (b, n, m) @ (b, m, p).

>>> a = ember.ones(2, 1, 3)
>>> ember.bmm(a, ember.ones(2, 3, 1)).flatten(), a.bmm(ember.ones(2, 3, 2)).shape
(tensor([3., 3.]), ember.Size([2, 1, 2])))"},
    {"mv", R"(The product of a matrix and a vector.

>>> a = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> ember.mv(a, ember.tensor([1.0, 0.0])), a.mv(ember.tensor([0.0, 1.0]))
(tensor([1., 3.]), tensor([2., 4.])))"},
    {"dot", R"(The dot product of two 1-d tensors.

>>> x = ember.tensor([1.0, 2.0])
>>> ember.dot(x, x), x.dot(ember.tensor([3.0, 4.0]))
(tensor(5.), tensor(11.)))"},
    {"outer", R"(The outer product of two 1-d tensors.

>>> x = ember.tensor([1, 2])
>>> ember.outer(x, ember.tensor([1, 10])), x.outer(x).shape
(tensor([[ 1, 10],
        [ 2, 20]]), ember.Size([2, 2])))"},
    {"addmm", R"(beta * input + alpha * (mat1 @ mat2), input broadcast.

>>> a = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> ember.addmm(ember.ones(2), a, a, beta=2), a.addmm(a, a, alpha=0)
(tensor([[ 9., 12.],
        [17., 24.]]), tensor([[1., 2.],
        [3., 4.]])))"},
};

}  // namespace

std::span<const Docstring> linalg_docstrings() { return kLinalg; }

}  // namespace ember::py
