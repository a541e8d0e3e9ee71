"""Datasets: Dataset, IterableDataset, TensorDataset, ConcatDataset, Subset, random_split
(torch.utils.data.dataset).

Fast path: a dataset may offer `_batch_fetcher()`, returning `fetch(key) -> batch` where key is
a slice or a NumPy int64 index array, and the batch equals default_collate([ds[i] for i in key]).
The DataLoader then makes a batch with one index_select per tensor instead of one __getitem__
per sample and a stack. It returns None when a subclass overrides __getitem__ (its samples
could then differ from the rows of the tensors).
"""
import bisect
import math
import warnings
from typing import Generic, TypeVar

import numpy as np

from ... import _C
from ..._generator import numpy_rng

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset",
           "Subset", "random_split"]


T_co = TypeVar("T_co", covariant=True)  # what a sample is (Dataset[T] as torch's)
T_stack = TypeVar("T_stack")


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses define __getitem__(index) and __len__().

    >>> class Squares(ember.utils.data.Dataset):
    ...     def __len__(self):
    ...         return 3
    ...     def __getitem__(self, i):
    ...         return i * i
    >>> [Squares()[i] for i in range(len(Squares()))]
    [0, 1, 4]
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A stream of samples: subclasses define __iter__. The DataLoader batches it in order
    (no sampler, no shuffle).

    >>> class Count(ember.utils.data.IterableDataset):
    ...     def __iter__(self):
    ...         return iter(range(5))
    >>> [b.tolist() for b in ember.utils.data.DataLoader(Count(), batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


def rows(t, key):
    """Rows `key` (a slice or an int64 index array) of t as a new contiguous tensor: what
    stacking t[i] for i in key gives, made by one C++ copy."""
    if isinstance(key, slice):
        v = t.narrow(0, key.start, key.stop - key.start)
        return v.clone() if v.is_contiguous() else v.contiguous()
    return t.index_select(0, _C._from_numpy(key))


class TensorDataset(Dataset):
    """Samples are the rows of tensors that share their first dimension:
    ds[i] == (t0[i], t1[i], ...).

    >>> x, y = ember.tensor([[1.0], [2.0]]), ember.tensor([0, 1])
    >>> d = ember.utils.data.TensorDataset(x, y)
    >>> len(d), d[1]
    (2, (tensor([2.]), tensor(1)))
    """

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset: expected at least one tensor")
        for t in tensors:
            if not isinstance(t, _C.Tensor) or t.dim() == 0:
                what = type(t).__name__ if not isinstance(t, _C.Tensor) else "a 0-d tensor"
                raise ValueError(f"TensorDataset: expected tensors with at least one dimension (got {what})")
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            shapes = ", ".join(str(tuple(t.shape)) for t in tensors)
            # AssertionError, as torch's assert
            raise AssertionError(f"Size mismatch between tensors: first dims differ in {shapes}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]

    def _batch_fetcher(self):
        if type(self).__getitem__ is not TensorDataset.__getitem__:
            return None
        tensors = self.tensors
        return lambda key: [rows(t, key) for t in tensors]


class ConcatDataset(Dataset[T_co]):
    """The samples of several datasets one after the other.

    >>> d = ember.utils.data.ConcatDataset([[1, 2], [3, 4, 5]])
    >>> len(d), d[3]
    (5, 4)
    """

    @staticmethod
    def cumsum(sequence):
        return np.cumsum([len(e) for e in sequence]).tolist()

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:  # AssertionErrors, as torch's asserts
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        d = bisect.bisect_right(self.cumulative_sizes, idx)
        return self.datasets[d][idx - (self.cumulative_sizes[d - 1] if d else 0)]


class ChainDataset(IterableDataset):
    """The streams of several iterable datasets one after the other.

    >>> class Count(ember.utils.data.IterableDataset):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter(range(self.n))
    >>> list(ember.utils.data.ChainDataset([Count(2), Count(3)]))
    [0, 1, 0, 1, 2]
    """

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            _check_iterable(d)
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            _check_iterable(d)
            total += len(d)
        return total


def _check_iterable(d):
    if not isinstance(d, IterableDataset):  # as torch's assert, checked as the chain reaches d
        raise AssertionError("ChainDataset only supports IterableDataset")


class StackDataset(Dataset[T_stack]):
    """Samples of several equal-length datasets side by side: StackDataset(a, b)[i] is
    (a[i], b[i]); StackDataset(x=a, y=b)[i] is {"x": a[i], "y": b[i]}.

    >>> d = ember.utils.data.StackDataset([1, 2], ["a", "b"])
    >>> d[1], ember.utils.data.StackDataset(x=[1, 2], y=["a", "b"])[0]
    ((2, 'b'), {'x': 1, 'y': 'a'})
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        if not (args or kwargs):
            raise ValueError("At least one dataset should be passed")
        datasets = list(args or kwargs.values())
        self._length = len(datasets[0])
        if any(self._length != len(d) for d in datasets):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args or kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        """One batch fetch per member dataset (its __getitems__ when it has one)."""
        named = self.datasets.items() if isinstance(self.datasets, dict) else \
            enumerate(self.datasets)
        columns = {}
        for k, dataset in named:
            if callable(getattr(dataset, "__getitems__", None)):
                items = dataset.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError("Nested dataset's output size mismatch. Expected "
                                     f"{len(indices)}, got {len(items)}")
            else:
                items = [dataset[i] for i in indices]
            columns[k] = items
        if isinstance(self.datasets, dict):
            return [dict(zip(columns, row)) for row in zip(*columns.values())]
        return [tuple(row) for row in zip(*columns.values())]

    def __len__(self):
        return self._length


class Subset(Dataset[T_co]):
    """The samples of `dataset` at `indices` (a sequence of ints, a NumPy array or a tensor).

    >>> ember.utils.data.Subset([10, 20, 30, 40], [3, 0])[0]
    40
    """

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices
        if type(self).__getitem__ is not Subset.__getitem__ and type(self).__getitems__ is Subset.__getitems__:
            raise NotImplementedError(f"{type(self).__name__} overrides __getitem__ but not __getitems__; "
                                      "override both (the DataLoader calls __getitems__)")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)

    def _batch_fetcher(self):
        cls = type(self)
        if cls.__getitem__ is not Subset.__getitem__ or cls.__getitems__ is not Subset.__getitems__:
            return None
        make_inner = getattr(self.dataset, "_batch_fetcher", None)
        inner = make_inner() if make_inner is not None else None
        if inner is None:
            return None
        # Once per epoch (the fetcher lives for one pass): the indices as an array, negative
        # ones counted from the end as Python indexing does.
        ind = self.indices
        arr = ind.numpy() if isinstance(ind, _C.Tensor) else np.asarray(ind)
        if arr.ndim != 1 or arr.dtype.kind not in "iu":
            return None  # not plain integer indices: leave them to __getitem__
        arr = arr.astype(np.int64, copy=False)
        arr = np.where(arr < 0, arr + len(self.dataset), arr)
        return lambda key: inner(arr[key])


def _split_lengths(n, lengths):
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:  # fractions
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(n * frac))
        for i in range(n - sum(sizes)):  # the remainder, one each, round-robin
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=3)
        return sizes
    for i, size in enumerate(lengths):
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
            raise ValueError(f"random_split: length at index {i} must be a non-negative int or a fraction "
                             f"(got {size!r}; lengths {list(lengths)})")
    if total != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset! "
                         f"(lengths {list(lengths)} sum to {total}, the dataset has {n})")
    return [int(s) for s in lengths]


def random_split(dataset, lengths, generator=None):
    """Splits `dataset` into non-overlapping Subsets of the given lengths, or of fractions
    summing to 1 (floor(n * frac) each, the remainder spread one by one from the first).
    The permutation comes from `generator` (an ember.Generator) or the global stream.

    >>> a, b = ember.utils.data.random_split(range(10), [0.7, 0.3])
    >>> len(a), len(b)
    (7, 3)
    """
    sizes = _split_lengths(len(dataset), list(lengths))
    perm = numpy_rng(generator).permutation(sum(sizes)).tolist()
    bounds = np.cumsum([0] + sizes).tolist()
    return [Subset(dataset, perm[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
