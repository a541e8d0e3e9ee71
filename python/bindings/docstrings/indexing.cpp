// Indexing by tensors of indices (python/bindings/indexing.cpp): select, gather, scatter,
// index_put, nonzero and masked_select.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kIndexing[] = {
    {"index_select",
     R"(The entries of input at the positions index (a 1-d integer tensor) along dim.

>>> x = ember.tensor([[1, 2], [3, 4], [5, 6]])
>>> ember.index_select(x, 0, ember.tensor([2, 0])), x.index_select(1, ember.tensor([1]))
(tensor([[5, 6],
        [1, 2]]), tensor([[2],
        [4],
        [6]])))"},
    {"gather",
     R"(Gathers values along dim: out[i][j] = input[index[i][j]][j] for dim=0, input[i][index[i][j]] for
dim=1.

>>> x = ember.tensor([[1, 2], [3, 4]])
>>> ember.gather(x, 1, ember.tensor([[0, 0], [1, 0]]))
tensor([[1, 1],
        [4, 3]])
>>> x.gather(0, ember.tensor([[1, 0]]))
tensor([[3, 2]]))"},
    {"take_along_dim",
     R"(Values of input at indices along dim (broadcast like numpy.take_along_axis); with dim=None input
is flattened first.

>>> x = ember.tensor([[10, 30, 20], [60, 40, 50]])
>>> ember.take_along_dim(x, x.argmax(1, keepdim=True), dim=1)
tensor([[30],
        [60]])
>>> x.take_along_dim(ember.tensor([0, 5]))
tensor([10, 50]))"},
    {"scatter",
     R"(A copy of input with src (a tensor) or value (a number) written at index along dim, the inverse
of gather; reduce='add' or 'multiply' combines instead of overwriting.

>>> x = ember.zeros(2, 3)
>>> ember.scatter(x, 1, ember.tensor([[2], [0]]), ember.tensor([[1.0], [2.0]]))
tensor([[0., 0., 1.],
        [2., 0., 0.]])
>>> x.scatter(0, ember.tensor([[1, 0, 1]]), value=5.0)
tensor([[0., 5., 0.],
        [5., 0., 5.]]))"},
    {"Tensor.scatter_",
     R"(In-place Tensor.scatter: src or value is written into self at index along dim; returns self.

>>> x = ember.zeros(3)
>>> x.scatter_(0, ember.tensor([2, 0]), ember.tensor([1.0, 2.0]))
tensor([2., 0., 1.])
>>> x
tensor([2., 0., 1.]))"},
    {"scatter_add",
     R"(A copy of input with src added at index along dim; repeated indices accumulate.

>>> ember.scatter_add(ember.zeros(3), 0, ember.tensor([0, 2, 0]), ember.tensor([1.0, 2.0, 3.0]))
tensor([4., 0., 2.]))"},
    {"Tensor.scatter_add_",
     R"(In-place Tensor.scatter_add: src is added into self at index along dim; returns self.

>>> x = ember.ones(3)
>>> x.scatter_add_(0, ember.tensor([1, 1]), ember.tensor([5.0, 5.0]))
tensor([ 1., 11.,  1.])
>>> x
tensor([ 1., 11.,  1.]))"},
    {"index_put",
     R"(A copy of input with values written at the positions given by a tuple of index tensors
(input[indices] = values); accumulate=True adds instead, repeated indices summing.

>>> x = ember.zeros(3)
>>> ember.index_put(x, (ember.tensor([0, 0, 2]),), ember.tensor([1.0, 2.0, 5.0]), accumulate=True)
tensor([3., 0., 5.])
>>> x.index_put((ember.tensor([1]),), ember.tensor(7.0))
tensor([0., 7., 0.]))"},
    {"Tensor.index_put_",
     R"(In-place Tensor.index_put: values are written (or with accumulate=True added) into self at
indices; returns self.

>>> x = ember.zeros(2, 2)
>>> x.index_put_((ember.tensor([0, 1]), ember.tensor([1, 0])), ember.tensor([3.0, 4.0]))
tensor([[0., 3.],
        [4., 0.]])
>>> x
tensor([[0., 3.],
        [4., 0.]]))"},
    {"nonzero",
     R"(The indices of the nonzero elements, one row per element (shape (n, input.dim())); as_tuple=True
gives one 1-d tensor per dimension instead.

>>> x = ember.tensor([[1, 0], [0, 2]])
>>> ember.nonzero(x)
tensor([[0, 0],
        [1, 1]])
>>> x.nonzero(as_tuple=True)
(tensor([0, 1]), tensor([0, 1])))"},
    {"argwhere", R"(The indices of the nonzero elements, one row per element: nonzero(input).

>>> x = ember.tensor([0, 3, 0, 4])
>>> ember.argwhere(x), x.argwhere().shape
(tensor([[1],
        [3]]), ember.Size([2, 1])))"},
    {"masked_select",
     R"(The elements of input where the bool mask (broadcast) is True, as a 1-d tensor.

>>> x = ember.tensor([[1.0, -2.0], [-3.0, 4.0]])
>>> ember.masked_select(x, x > 0), x.masked_select(ember.tensor([True, False]))
(tensor([1., 4.]), tensor([ 1., -3.])))"},
};

}  // namespace

std::span<const Docstring> indexing_docstrings() { return kIndexing; }

}  // namespace ember::py
