"""Samplers: which dataset indices an epoch visits, and in what order (torch.utils.data.sampler).

ember's own samplers make an epoch as NumPy int64 arrays (`_index_chunks`: usually the whole
epoch in one array; draws with replacement come in chunks, so that `num_samples=int(1e10)`, as
makemore asks for an endless stream, never exists whole); iterating one yields their items, and
the DataLoader's fast path slices them into batches instead (BatchSampler._batch_keys). Both
read the same arrays, so the order is the same either way. Random orders come
from an ember.Generator when one is given, else from one seed drawn from the global stream
(ember.manual_seed(s) makes them reproducible; they differ from PyTorch's orders).
"""
from typing import Generic, TypeVar

import numpy as np

from ..._generator import numpy_rng

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


T_co = TypeVar("T_co", covariant=True)  # what an item is (Sampler[int] as torch's)


class Sampler(Generic[T_co]):
    """Base class: subclasses define __iter__ (indices) and usually __len__.

    >>> class Reverse(ember.utils.data.Sampler):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter(range(self.n - 1, -1, -1))
    ...     def __len__(self):
    ...         return self.n
    >>> list(ember.utils.data.DataLoader([10, 20, 30], sampler=Reverse(3)))
    [tensor([30]), tensor([20]), tensor([10])]
    """

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class _ArraySampler(Sampler[T_co]):
    """A sampler whose epoch is one index array. The DataLoader's fast path applies only
    when a subclass keeps this __iter__ (so the array is what iteration would give)."""

    def _index_array(self):
        raise NotImplementedError

    def _index_chunks(self):
        """The epoch's indices as consecutive int64 arrays (one, unless a subclass streams)."""
        yield self._index_array()

    def __iter__(self):
        for chunk in self._index_chunks():
            yield from chunk.tolist()


def _is_array_sampler(sampler):
    return isinstance(sampler, _ArraySampler) and type(sampler).__iter__ in _OWN_ITERS


class SequentialSampler(_ArraySampler):
    """0, 1, ..., len(data_source) - 1.

    >>> list(ember.utils.data.SequentialSampler("abc"))
    [0, 1, 2]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def _index_array(self):
        return np.arange(len(self.data_source), dtype=np.int64)

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


_OWN_ITERS = (_ArraySampler.__iter__, SequentialSampler.__iter__)


def _check_num_samples(n):
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise ValueError(f"num_samples should be a positive integer value, but got num_samples={n}")


class RandomSampler(_ArraySampler):
    """A random permutation of the indices (or `num_samples` draws with replacement).

    >>> sorted(ember.utils.data.RandomSampler(range(4)))
    [0, 1, 2, 3]
    >>> len(ember.utils.data.RandomSampler(range(4), replacement=True, num_samples=10))
    10
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        _check_num_samples(self.num_samples)

    @property
    def num_samples(self):
        # The dataset may grow or shrink after the sampler is made, as in torch.
        return len(self.data_source) if self._num_samples is None else self._num_samples

    _CHUNK = 1 << 16  # draws with replacement per array

    def _index_chunks(self):
        n, k = len(self.data_source), self.num_samples
        rng = numpy_rng(self.generator)
        if self.replacement:
            for start in range(0, k, self._CHUNK):
                yield rng.integers(0, n, size=min(self._CHUNK, k - start), dtype=np.int64)
            return
        # Without replacement, num_samples > n repeats whole permutations (the last one cut).
        if n == 0:
            yield np.empty(0, np.int64)
            return
        for start in range(0, k, n):
            yield rng.permutation(n)[:k - start].astype(np.int64, copy=False)

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(_ArraySampler):
    """The given indices in a random order.

    >>> sorted(ember.utils.data.SubsetRandomSampler([4, 7, 9]))
    [4, 7, 9]
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def _index_array(self):
        idx = np.asarray(self.indices, dtype=np.int64).reshape(-1)
        return idx[numpy_rng(self.generator).permutation(len(idx))]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(_ArraySampler):
    """`num_samples` indices drawn with probabilities proportional to `weights`.

    >>> list(ember.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0], num_samples=3))
    [1, 1, 1]
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        _check_num_samples(num_samples)
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        w = np.asarray(weights.numpy() if hasattr(weights, "numpy") else weights, dtype=np.float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        self.weights, self.num_samples = w, num_samples
        self.replacement, self.generator = replacement, generator

    def _index_array(self):
        w = self.weights
        if not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
            raise RuntimeError("WeightedRandomSampler: weights must be finite, non-negative and "
                               "have a positive sum")
        if not self.replacement and self.num_samples > np.count_nonzero(w):
            raise RuntimeError(f"WeightedRandomSampler: cannot draw {self.num_samples} samples without "
                               f"replacement from {np.count_nonzero(w)} non-zero weights")
        return numpy_rng(self.generator).choice(len(w), size=self.num_samples, replace=self.replacement,
                                                p=w / w.sum()).astype(np.int64)

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of `batch_size` (the last one shorter unless
    drop_last).

    >>> list(ember.utils.data.BatchSampler(range(5), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def _batch_keys(self):
        """The epoch's batches, one key each, made as they are asked for: a slice of 0..n-1
        (SequentialSampler) or an int64 index array cut from the sampler's chunks. Only for
        ember's own samplers (see _is_array_sampler)."""
        bs = self.batch_size
        if type(self.sampler).__iter__ is SequentialSampler.__iter__:
            n = len(self.sampler)
            stop = n - n % bs if self.drop_last else n
            for s in range(0, stop, bs):
                yield slice(s, min(s + bs, n))
            return
        carry = np.empty(0, np.int64)
        for chunk in self.sampler._index_chunks():
            if len(carry):
                chunk = np.concatenate([carry, chunk])
            full = len(chunk) - len(chunk) % bs
            for s in range(0, full, bs):
                yield chunk[s:s + bs]
            carry = chunk[full:]
        if len(carry) and not self.drop_last:
            yield carry

    def __iter__(self):
        if _is_array_sampler(self.sampler):
            return (list(range(k.start, k.stop)) if isinstance(k, slice) else k.tolist()
                    for k in self._batch_keys())
        return self._iter_any()

    def _iter_any(self):
        batch = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
