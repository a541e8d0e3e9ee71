// A tensor's own facts and basic methods (python/bindings/tensor.cpp): sizes, strides,
// contiguity, item/tolist, fill_/zero_/copy_, clone and detach.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kTensor[] = {
    {"Tensor.dim", R"(The number of dimensions of self.

>>> ember.zeros(2, 3).dim()
2)"},
    {"Tensor.ndimension", R"(Alias of Tensor.dim.

>>> ember.zeros(2, 3).ndimension()
2)"},
    {"Tensor.numel", R"(The number of elements of self.

>>> ember.zeros(2, 3).numel()
6)"},
    {"Tensor.nelement", R"(Alias of Tensor.numel.

>>> ember.zeros(2, 3).nelement()
6)"},
    {"Tensor.element_size", R"(The size of one element of self in bytes.

>>> ember.zeros(2).element_size(), ember.zeros(2, dtype=ember.int64).element_size()
(4, 8))"},
    {"Tensor.is_contiguous", R"(is_contiguous(memory_format=ember.contiguous_format) -> bool

Whether self's elements lie in row-major order without gaps (or in the order memory_format
names: ember.channels_last is NHWC).

>>> x = ember.zeros(2, 3)
>>> x.is_contiguous(), x.t().is_contiguous()
(True, False)
>>> nhwc = ember.zeros(1, 2, 2, 3).permute(0, 3, 1, 2)  # an NHWC buffer seen as (N, C, H, W)
>>> nhwc.is_contiguous(), nhwc.is_contiguous(memory_format=ember.channels_last)
(False, True))"},
    {"Tensor.storage_offset", R"(The index in self's storage of self's first element (in elements).

>>> ember.arange(4)[2:].storage_offset()
2)"},
    {"Tensor.stride",
     R"(The step in elements between neighbours of each dimension (of dim if given).

>>> x = ember.zeros(2, 3)
>>> x.stride(), x.stride(0)
((3, 1), 3))"},
    {"Tensor",
     R"(Tensor: an n-dimensional array of one dtype on the CPU, with autograd; torch.Tensor.
Made by ember.tensor, the factories (zeros, randn, ...) and every op.

>>> x = ember.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> isinstance(x, ember.Tensor), x.shape, x.dtype
(True, ember.Size([2, 2]), ember.float32))"},
    {"dtype", R"(dtype: the element type of a tensor (ember.float32, ember.int64, ...), torch.dtype.

>>> ember.float32, ember.float32.is_floating_point, ember.tensor([1, 2]).dtype
(ember.float32, True, ember.int64))"},
    {"distributed.ReduceOp", R"(ReduceOp: how all_reduce/reduce/reduce_scatter combine the ranks'
values (SUM, AVG, MAX, MIN, PRODUCT), torch.distributed.ReduceOp.

>>> import ember.distributed as dist
>>> dist.ReduceOp.SUM, dist.ReduceOp.MAX
(ReduceOp.SUM, ReduceOp.MAX))"},
    {"distributed.Work", R"(Work: the handle a collective called with async_op=True returns:
wait(), is_completed(), result(), get_future(), torch.distributed.Work.

>>> import tempfile, ember.distributed as dist
>>> tmp = tempfile.TemporaryDirectory()
>>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
>>> t = ember.ones(2)
>>> work = dist.all_reduce(t, async_op=True)
>>> work.wait(), work.result()
(True, [tensor([1., 1.])])
>>> dist.destroy_process_group())"},
    {"distributed.ProcessGroup", R"(ProcessGroup: a group of ranks with its own Gloo context (the
default one, or new_group's); rank() and size() give this process's place in it.

>>> import tempfile, ember.distributed as dist
>>> tmp = tempfile.TemporaryDirectory()
>>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
>>> g = dist.new_group([0])
>>> isinstance(g, dist.ProcessGroup), g.rank(), g.size()
(True, 0, 1)
>>> dist.destroy_process_group())"},
    {"Tensor.dtype", R"(The tensor's dtype.

>>> ember.zeros(2).dtype, ember.tensor([1, 2]).dtype
(ember.float32, ember.int64))"},
    {"Tensor.ndim", R"(The number of dimensions; same as dim().

>>> ember.zeros(2, 3).ndim
2)"},
    {"Tensor.T", R"(self with its dimensions in reverse order (a view); torch deprecates it for
tensors of other than 2 dimensions.

>>> ember.arange(6).reshape(2, 3).T.shape
ember.Size([3, 2]))"},
    {"Tensor.mT", R"(The transpose of the last two dimensions (a view), for matrices and batches.

>>> ember.zeros(4, 2, 3).mT.shape
ember.Size([4, 3, 2]))"},
    {"Tensor.shape",
     R"(The size of each dimension, as an ember.Size (a tuple of ints); same as size().

>>> ember.zeros(2, 3).shape
ember.Size([2, 3]))"},
    {"Tensor.data_ptr",
     R"(The address of self's first element, an int; 0 when self has no elements, as torch.

>>> x = ember.arange(4)
>>> x[1:].data_ptr() - x.data_ptr(), ember.empty(0).data_ptr()
(8, 0))"},
    {"Tensor.item", R"(The value of a one-element tensor as a Python number.

>>> ember.tensor([2.5]).item(), ember.tensor(3).item()
(2.5, 3))"},
    {"Tensor.tolist", R"(self's values as (nested lists of) Python numbers.

>>> ember.tensor([[1, 2], [3, 4]]).tolist()
[[1, 2], [3, 4]])"},
    {"Tensor.contiguous", R"(contiguous(memory_format=ember.contiguous_format) -> Tensor

self if contiguous (in memory_format's order, e.g. ember.channels_last), else a copy that is.

>>> x = ember.tensor([[1, 2], [3, 4]]).t()
>>> x.contiguous().is_contiguous(), x.contiguous()
(True, tensor([[1, 3],
        [2, 4]])))"},
    {"Tensor.copy_", R"(Copies src (broadcast, cast to self's dtype) into self; returns self.

>>> x = ember.zeros(2, 2)
>>> x.copy_(ember.tensor([1, 2]))
tensor([[1., 2.],
        [1., 2.]]))"},
    {"Tensor.fill_",
     R"(Sets every element of self to value (a number or a 0-d tensor); returns self.

>>> ember.zeros(3).fill_(2)
tensor([2., 2., 2.]))"},
    {"Tensor.zero_", R"(Sets every element of self to 0; returns self.

>>> ember.ones(2).zero_()
tensor([0., 0.]))"},
    {"clone", R"(clone(input, *, memory_format=ember.preserve_format) -> Tensor

A copy of input with its own storage (the copy stays in the autograd graph), row-major or laid
out as memory_format asks.

>>> x = ember.tensor([1, 2])
>>> y = ember.clone(x)
>>> y[0] = 5
>>> x, y, x.clone()
(tensor([1, 2]), tensor([5, 2]), tensor([1, 2])))"},
    {"detach", R"(A view of input's data outside the autograd graph (requires_grad False).

>>> x = ember.tensor([1.0], requires_grad=True)
>>> ember.detach(x * 2), x.detach().requires_grad
(tensor([2.]), False))"},
};

}  // namespace

std::span<const Docstring> tensor_docstrings() { return kTensor; }

}  // namespace ember::py
