"""torch.scatter_reduce, index_reduce and segment_reduce with torch's signatures: the work is
C++ (src/ops/scatter_reduce.cpp); this module adds keyword names, out= and the Tensor methods."""
from . import _C
from ._comparison import _into


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None) -> Tensor

    A copy of input with src's values reduced ('sum', 'prod', 'mean', 'amax', 'amin') into the
    positions `index` gives along `dim`.

    >>> ember.scatter_reduce(ember.zeros(2), 0, ember.tensor([0, 0, 1]), ember.tensor([1.0, 2.0, 5.0]), 'amax')
    tensor([2., 5.])
    """
    return _into(_C._scatter_reduce(input, dim, index, src, reduce, include_self), out,
                 "scatter_reduce")


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """scatter_reduce_(dim, index, src, reduce, *, include_self=True) -> Tensor

    Reduces src's values into self at index along dim, in place; reduce is 'sum', 'prod',
    'mean', 'amax' or 'amin' (include_self=False leaves self's own values out).

    >>> x = ember.tensor([1.0, 1.0, 1.0])
    >>> x.scatter_reduce_(0, ember.tensor([0, 0, 2]), ember.tensor([5.0, 3.0, 2.0]), 'amax')
    tensor([5., 1., 2.])
    """
    _C._scatter_reduce_(self, dim, index, src, reduce, include_self)
    return self


def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None) -> Tensor

    A copy of input with source's slices reduced ('prod', 'mean', 'amax', 'amin') into the slices
    at `index` along `dim`.

    >>> ember.index_reduce(ember.ones(2), 0, ember.tensor([0, 0, 1]), ember.tensor([2.0, 3.0, 4.0]), 'prod')
    tensor([6., 4.])
    """
    return _into(_C._index_reduce(input, dim, index, source, reduce, include_self), out,
                 "index_reduce")


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """index_reduce_(dim, index, source, reduce, *, include_self=True) -> Tensor

    Reduces the slices of source into the slices of self that index names along dim, in
    place; reduce is 'prod', 'mean', 'amax' or 'amin'.

    >>> x = ember.tensor([1.0, 2.0, 3.0])
    >>> x.index_reduce_(0, ember.tensor([0, 0, 2]), ember.tensor([4.0, 5.0, 6.0]), 'prod',
    ...                 include_self=False)
    tensor([20.,  2.,  6.])
    """
    _C._index_reduce_(self, dim, index, source, reduce, include_self)
    return self


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    """Reduces consecutive runs of `data` along `axis` (given by lengths or offsets).

    >>> ember.segment_reduce(ember.tensor([1.0, 2.0, 3.0, 4.0]), 'sum', lengths=ember.tensor([1, 3]))
    tensor([1., 9.])
    """
    if indices is not None:  # torch accepts the argument and implements nothing for it
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    return _C._segment_reduce(data, reduce, lengths, offsets, axis, unsafe, initial)


FUNCTIONS = {"scatter_reduce": scatter_reduce, "index_reduce": index_reduce,
             "segment_reduce": segment_reduce, "_segment_reduce": segment_reduce}
METHODS = {"scatter_reduce": scatter_reduce, "scatter_reduce_": scatter_reduce_,
           "index_reduce": index_reduce, "index_reduce_": index_reduce_}
