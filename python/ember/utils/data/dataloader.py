"""DataLoader: batches of a dataset, as torch.utils.data.DataLoader makes them.

Fast path: with ember's own samplers, a dataset that offers `_batch_fetcher()` (TensorDataset,
a Subset of one, ember.datasets.FashionMNIST) and the default collate_fn, each batch is one
index_select per tensor over a slice of the epoch's index array: no Python work per sample.
Any other combination takes torch's path: __getitems__ or __getitem__ per sample, then collate_fn.
"""
import itertools

from ._collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _is_array_sampler

__all__ = ["DataLoader", "get_worker_info"]

_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


def get_worker_info():
    """Always None: ember loads data in the calling process (see DataLoader's num_workers)."""
    return None


def _check_options(num_workers, timeout, prefetch_factor, persistent_workers):
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing. Let num_workers > 0 "
                         "to enable multiprocessing, otherwise set prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")


class DataLoader:
    """Iterates over `dataset` in batches.

    Arguments are torch's: batch_size (None: no batching, each sample goes through collate_fn,
    default_convert by default), shuffle (a RandomSampler using `generator`, an ember.Generator,
    or else the global stream: ember.manual_seed(s) makes the order reproducible; ember's orders
    differ from PyTorch's), sampler, batch_sampler, collate_fn (default_collate), drop_last.

    num_workers > 0 is accepted but for now ember loads in the calling process (worker processes
    come with a later release): batches are the same, worker_init_fn is not called, and
    get_worker_info() returns None. pin_memory, timeout and prefetch_factor are accepted and
    have no effect (ember runs on the CPU).
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="", in_order=True):
        _check_options(num_workers, timeout, prefetch_factor, persistent_workers)
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            if shuffle not in (False, None):
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, "
                                 f"but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, "
                                 f"but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler "
                                 f"option, but got batch_sampler={batch_sampler}")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive "
                             "with drop_last")
        if sampler is None and not iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if collate_fn is None:
            collate_fn = default_collate if (batch_size is not None or batch_sampler is not None) \
                else default_convert

        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers, self.collate_fn, self.pin_memory = num_workers, collate_fn, pin_memory
        self.timeout, self.worker_init_fn, self.prefetch_factor = timeout, worker_init_fn, prefetch_factor
        self.multiprocessing_context, self.persistent_workers = multiprocessing_context, persistent_workers
        self.pin_memory_device, self.in_order = pin_memory_device, in_order
        self._iterable = iterable
        self._initialized = True

    def __setattr__(self, attr, val):
        if self.__dict__.get("_initialized") and attr in _FROZEN:
            raise ValueError(f"{attr} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    @property
    def _index_sampler(self):
        return self.batch_sampler if self.batch_sampler is not None else self.sampler

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)

    def __iter__(self):
        return _LoaderIter(self)

    def _fast_fetcher(self):
        """fetch(key) -> batch when the fast path applies (see the module docstring), else None."""
        bs = self.batch_sampler
        if self.collate_fn is not default_collate or type(bs) is not BatchSampler \
                or not _is_array_sampler(bs.sampler):
            return None
        make = getattr(self.dataset, "_batch_fetcher", None)
        return make() if make is not None else None

    def _batches(self):
        if self._iterable:
            yield from self._iterable_batches()
        elif self.batch_sampler is None:  # no auto-collation: one sample at a time
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])
        else:
            fetch = self._fast_fetcher()
            if fetch is not None:
                idx, bounds = self.batch_sampler._index_batches()
                for a, b in bounds:
                    yield fetch(slice(a, b) if idx is None else idx[a:b])
            else:
                yield from self._sample_batches()

    def _sample_batches(self):
        getitems = getattr(self.dataset, "__getitems__", None)
        for batch in self.batch_sampler:
            data = getitems(batch) if callable(getitems) else [self.dataset[i] for i in batch]
            yield self.collate_fn(data)

    def _iterable_batches(self):
        it = iter(self.dataset)
        if self.batch_size is None:
            for x in it:
                yield self.collate_fn(x)
            return
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield self.collate_fn(batch)


class _LoaderIter:
    """One pass over a DataLoader (what iter(loader) returns): next() and len()."""

    def __init__(self, loader):
        self._loader = loader
        self._gen = loader._batches()

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._gen)

    def __len__(self):
        return len(self._loader)
