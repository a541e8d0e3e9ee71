// View and shape ops (python/bindings/views.cpp): reshaping, transposing, slicing views,
// their in-place forms, cat and stack.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kViews[] = {
    {"Tensor.view",
     R"(A view of self with another shape (one size may be -1); self must be viewable without a copy.

>>> x = ember.arange(6)
>>> x.view(2, 3)
tensor([[0, 1, 2],
        [3, 4, 5]]))"},
    {"reshape", R"(input with another shape (one size may be -1): a view when possible, else a copy.

>>> x = ember.arange(6)
>>> ember.reshape(x, (2, 3)), x.reshape(3, 2).shape
(tensor([[0, 1, 2],
        [3, 4, 5]]), ember.Size([3, 2])))"},
    {"Tensor.expand",
     R"(A view of self with size-1 dimensions repeated to the given sizes (-1 keeps a size); no copy.

>>> ember.tensor([[1], [2]]).expand(2, 3)
tensor([[1, 1, 1],
        [2, 2, 2]]))"},
    {"permute", R"(A view of input with its dimensions reordered.

>>> x = ember.zeros(2, 3, 4)
>>> ember.permute(x, (2, 0, 1)).shape, x.permute(1, 2, 0).shape
(ember.Size([4, 2, 3]), ember.Size([3, 4, 2])))"},
    {"Tensor.expand_as", R"(self.expand(other.size()).

>>> ember.tensor([1, 2]).expand_as(ember.zeros(2, 2))
tensor([[1, 2],
        [1, 2]]))"},
    {"Tensor.view_as", R"(self.view(other.size()).

>>> ember.arange(4).view_as(ember.zeros(2, 2))
tensor([[0, 1],
        [2, 3]]))"},
    {"Tensor.reshape_as", R"(self.reshape(other.size()).

>>> ember.arange(4).reshape_as(ember.zeros(2, 2))
tensor([[0, 1],
        [2, 3]]))"},
    {"flatten", R"(input with dimensions start_dim..end_dim merged into one (a view when possible).

>>> x = ember.zeros(2, 3, 4)
>>> ember.flatten(x).shape, x.flatten(1).shape
(ember.Size([24]), ember.Size([2, 12])))"},
    {"unflatten", R"(input with dimension dim split into the given sizes (one may be -1).

>>> x = ember.zeros(2, 12)
>>> ember.unflatten(x, 1, (3, 4)).shape, x.unflatten(1, (-1, 6)).shape
(ember.Size([2, 3, 4]), ember.Size([2, 2, 6])))"},
    {"squeeze", R"(A view of input without its size-1 dimensions (or only those in dim).

>>> x = ember.zeros(2, 1, 3, 1)
>>> ember.squeeze(x).shape, x.squeeze(1).shape
(ember.Size([2, 3]), ember.Size([2, 3, 1])))"},
    {"unsqueeze", R"(A view of input with a size-1 dimension inserted at dim.

>>> x = ember.tensor([1, 2])
>>> ember.unsqueeze(x, 0), x.unsqueeze(1).shape
(tensor([[1, 2]]), ember.Size([2, 1])))"},
    {"transpose", R"(A view of input with dimensions dim0 and dim1 swapped.

>>> x = ember.tensor([[1, 2, 3]])
>>> ember.transpose(x, 0, 1), x.transpose(1, 0).shape
(tensor([[1],
        [2],
        [3]]), ember.Size([3, 1])))"},
    {"swapaxes", R"(Alias of transpose.

>>> x = ember.zeros(2, 3)
>>> ember.swapaxes(x, 0, 1).shape, x.swapaxes(1, 0).shape
(ember.Size([3, 2]), ember.Size([3, 2])))"},
    {"t", R"(The transpose of a matrix (input of at most 2 dimensions), as a view.

>>> x = ember.tensor([[1, 2], [3, 4]])
>>> ember.t(x), x.t()[0]
(tensor([[1, 3],
        [2, 4]]), tensor([1, 3])))"},
    {"narrow", R"(A view of input keeping length entries of dimension dim from start.

>>> x = ember.arange(5)
>>> ember.narrow(x, 0, 1, 3), x.narrow(0, 3, 2)
(tensor([1, 2, 3]), tensor([3, 4])))"},
    {"select", R"(A view of input at index of dimension dim, which is removed.

>>> x = ember.tensor([[1, 2], [3, 4]])
>>> ember.select(x, 0, 1), x.select(1, 0)
(tensor([3, 4]), tensor([1, 3])))"},
    {"diagonal",
     R"(A view of the diagonal (offset above or below it) over dimensions dim1 and dim2, placed last.

>>> x = ember.tensor([[1, 2], [3, 4]])
>>> ember.diagonal(x), x.diagonal(1)
(tensor([1, 4]), tensor([2])))"},
    {"split",
     R"(Views of input cut along dim into pieces of split_size_or_sections (an int: equal pieces, the
last smaller; a list: those sizes).

>>> x = ember.arange(5)
>>> ember.split(x, 2)
(tensor([0, 1]), tensor([2, 3]), tensor([4]))
>>> x.split([1, 4])
(tensor([0]), tensor([1, 2, 3, 4])))"},
    {"chunk",
     R"(Views of input cut along dim into at most chunks pieces of equal size (the last smaller).

>>> x = ember.arange(5)
>>> ember.chunk(x, 2), x.chunk(3)[0]
((tensor([0, 1, 2]), tensor([3, 4])), tensor([0, 1])))"},
    {"unbind", R"(The slices of input along dim, as a tuple of views.

>>> x = ember.tensor([[1, 2], [3, 4]])
>>> ember.unbind(x), x.unbind(1)[0]
((tensor([1, 2]), tensor([3, 4])), tensor([1, 3])))"},
    {"as_strided", R"(A view of input's storage with the given size, stride and storage_offset.

>>> x = ember.arange(6)
>>> ember.as_strided(x, (2, 2), (3, 1)), x.as_strided((2,), (2,), 1)
(tensor([[0, 1],
        [3, 4]]), tensor([1, 3])))"},
    {"Tensor.as_strided_",
     R"(Tensor.as_strided written into self's metadata (self becomes that view); returns self.

>>> x = ember.arange(6)
>>> x.as_strided_((2, 2), (1, 2))
tensor([[0, 2],
        [1, 3]]))"},
    {"Tensor.unfold",
     R"(A view of every window of size entries along dimension (windows step apart), in a new last
dimension.

>>> ember.arange(5).unfold(0, 2, 2)
tensor([[0, 1],
        [2, 3]]))"},
    {"Tensor.t_", R"(Tensor.t in place: self becomes its transpose; returns self.

>>> x = ember.tensor([[1, 2], [3, 4]])
>>> x.t_()
tensor([[1, 3],
        [2, 4]]))"},
    {"Tensor.transpose_",
     R"(Tensor.transpose in place: self becomes the view with dim0 and dim1 swapped; returns self.

>>> x = ember.zeros(2, 3)
>>> x.transpose_(0, 1).shape
ember.Size([3, 2]))"},
    {"Tensor.swapaxes_",
     R"(Tensor.swapaxes in place: self becomes the view with dim0 and dim1 swapped; returns self.

>>> x = ember.zeros(2, 3)
>>> x.swapaxes_(0, 1).shape
ember.Size([3, 2]))"},
    {"Tensor.swapdims_",
     R"(Tensor.swapdims in place: self becomes the view with dim0 and dim1 swapped; returns self.

>>> x = ember.zeros(2, 3)
>>> x.swapdims_(0, 1).shape
ember.Size([3, 2]))"},
    {"Tensor.squeeze_", R"(Tensor.squeeze in place; returns self.

>>> x = ember.zeros(2, 1)
>>> x.squeeze_().shape
ember.Size([2]))"},
    {"Tensor.unsqueeze_", R"(Tensor.unsqueeze in place; returns self.

>>> x = ember.zeros(2)
>>> x.unsqueeze_(0).shape
ember.Size([1, 2]))"},
    {"cat", R"(The tensors joined along an existing dimension dim (all other sizes equal).

>>> a = ember.tensor([[1, 2]])
>>> ember.cat([a, a]), ember.cat((a, a), dim=1)
(tensor([[1, 2],
        [1, 2]]), tensor([[1, 2, 1, 2]])))"},
    {"stack", R"(The tensors (all one shape) joined along a new dimension dim.

>>> a = ember.tensor([1, 2])
>>> ember.stack([a, a]), ember.stack([a, a], dim=1).shape
(tensor([[1, 2],
        [1, 2]]), ember.Size([2, 2])))"},
};

}  // namespace

std::span<const Docstring> views_docstrings() { return kViews; }

}  // namespace ember::py
