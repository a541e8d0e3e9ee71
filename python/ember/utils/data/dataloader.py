"""DataLoader: batches of a dataset, as torch.utils.data.DataLoader makes them.

Fast path: with ember's own samplers, a dataset that offers `_batch_fetcher()` (TensorDataset,
a Subset of one, ember.datasets.FashionMNIST) and the default collate_fn, each batch is one
index_select per tensor over a slice of the epoch's index array: no Python work per sample.
Any other combination takes torch's path: __getitems__ or __getitem__ per sample, then collate_fn.

num_workers > 0: worker processes (_worker.py) make the batches and hand them over in shared
memory. The main process runs the sampler, sends each batch's key to the workers in turn and
yields the results in sampler order, so the batches equal those of num_workers=0 for the same
seed (the random stream is drawn the same way in both cases).
"""
import itertools
import signal
import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ... import _C
from ..._generator import Generator, numpy_rng
from ._collate import default_collate, default_convert
from ._worker import (STATUS_CHECK_INTERVAL, Channel, ExceptionWrapper, _IterableDatasetStopIteration,
                      _ResumeIteration, _worker_loop, get_worker_info)
from . import graph_settings
from .dataset import Dataset, IterableDataset, T_co
from .datapipes.datapipe import IterDataPipe
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _is_array_sampler

__all__ = ["DataLoader", "get_worker_info"]

# The typing aliases torch's dataloader module defines and libraries import (opacus).
_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)
_worker_init_fn_t = Callable[[int], None]
_collate_fn_t = Callable[[list[_T]], Any]

_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


def _base_seed(generator):
    """One draw from the loader's stream per epoch, as torch draws its workers' base seed;
    num_workers=0 draws it too, so both leave the random stream in the same state."""
    if generator is None:
        return _C.randint(0, 1 << 62, (), None).item()
    return int(numpy_rng(generator).integers(0, 1 << 62))


def _mp_context(ctx, num_workers):
    if ctx is None:
        return None
    if num_workers == 0:
        raise ValueError("multiprocessing_context can only be used with multi-process loading "
                         f"(num_workers > 0), but got num_workers={num_workers}")
    import multiprocessing
    if isinstance(ctx, str):
        valid = multiprocessing.get_all_start_methods()
        if ctx not in valid:
            raise ValueError("multiprocessing_context option should specify a valid start method in "
                             f"{valid!r}, but got multiprocessing_context={ctx!r}")
        return multiprocessing.get_context(ctx)
    if not isinstance(ctx, multiprocessing.context.BaseContext):
        raise TypeError("multiprocessing_context option should be a valid context object or a string "
                        f"specifying the start method, but got multiprocessing_context={ctx}")
    return ctx


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


class DataLoader(Generic[T_co]):
    """Iterates over `dataset` in batches.

    Arguments are torch's: batch_size (None: no batching, each sample goes through collate_fn,
    default_convert by default), shuffle (a RandomSampler using `generator`, an ember.Generator,
    or else the global stream: ember.manual_seed(s) makes the order reproducible; ember's orders
    differ from PyTorch's), sampler, batch_sampler, collate_fn (default_collate), drop_last.

    num_workers > 0 loads batches in that many worker processes (multiprocessing_context: a start
    method name or context, else the platform's default) and hands them over in shared memory;
    the batches and their order are those of num_workers=0. Each worker seeds ember, `random`
    and NumPy with base_seed + worker id, runs with one thread, then calls worker_init_fn(id);
    get_worker_info() describes the worker inside it. prefetch_factor (default 2) batches per
    worker are in flight; persistent_workers keeps the workers across epochs; timeout > 0 bounds
    the wait for one batch. A worker's exception is re-raised in the main process with the
    worker's traceback, and a worker that dies raises RuntimeError instead of hanging.
    pin_memory=True warns on each pass, as torch's CPU build does, and has no other effect
    (there is no accelerator to pin memory for).

    >>> x = ember.arange(5.0)
    >>> loader = ember.utils.data.DataLoader(ember.utils.data.TensorDataset(x), batch_size=2)
    >>> [batch for batch, in loader]
    [tensor([0., 1.]), tensor([2., 3.]), tensor([4.])]
    """

    def __init__(self, dataset: "Dataset[T_co]", batch_size=1, shuffle=None, sampler=None,
                 batch_sampler=None, num_workers=0, collate_fn=None, pin_memory=False,
                 drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="", in_order=True):
        _check_options(num_workers, timeout, prefetch_factor, persistent_workers)
        iterable = isinstance(dataset, IterableDataset)
        if isinstance(dataset, IterDataPipe):
            # a DataPipe shuffles itself: shuffle=True/False turns its Shufflers on/off
            dataset = graph_settings.apply_shuffle_settings(dataset, shuffle=shuffle)
            shuffle = None
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
        self.multiprocessing_context = _mp_context(multiprocessing_context, num_workers)
        self.persistent_workers = persistent_workers
        self.pin_memory_device, self.in_order = pin_memory_device, in_order
        self._iterable = iterable
        self._iterator = None  # the persistent workers' iterator
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
        if isinstance(self.dataset, IterDataPipe):
            # one seed per epoch for every Shuffler, drawn from the loader's generator; the
            # workers get the seeded pipe, so they shuffle alike before sharding
            rng = Generator().manual_seed(_base_seed(self.generator))
            graph_settings.apply_random_seed(self.dataset, rng)
        if self.pin_memory:
            import warnings
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then "
                          "device pinned memory won't be used.", UserWarning, stacklevel=2)
        if self.num_workers == 0:
            return _LoaderIter(self)
        if not self.persistent_workers:
            return _WorkersIter(self)
        if self._iterator is None or self._iterator._shut_down:
            self._iterator = _WorkersIter(self)
        else:
            self._iterator._reset(self)
        return self._iterator

    def _fast_fetcher(self):
        """fetch(key) -> batch when the fast path applies (see the module docstring), else None."""
        bs = self.batch_sampler
        if self.collate_fn is not default_collate or type(bs) is not BatchSampler \
                or not _is_array_sampler(bs.sampler):
            return None
        make = getattr(self.dataset, "_batch_fetcher", None)
        return make() if make is not None else None

    def _has_fast_path(self):
        return self._fast_fetcher() is not None

    def _worker_keys(self, fast):
        """What the workers are sent, one item per batch, in sampler order (see _worker._Fetcher)."""
        if self._iterable:
            return itertools.repeat(self.batch_size)
        if self.batch_sampler is None:
            return iter(self.sampler)
        if fast:
            return self._fast_keys()
        return iter(self.batch_sampler)

    def _fast_keys(self):
        return self.batch_sampler._batch_keys()

    def _batches(self):
        if self._iterable:
            yield from self._iterable_batches()
        elif self.batch_sampler is None:  # no auto-collation: one sample at a time
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])
        else:
            fetch = self._fast_fetcher()
            if fetch is not None:
                for key in self.batch_sampler._batch_keys():
                    yield fetch(key)
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


class _BaseDataLoaderIter:
    """What iter(loader) returns: one of the two below (torch's names, which programs test
    iterators against: Lightning's CombinedLoader)."""


class _LoaderIter(_BaseDataLoaderIter):
    """One pass over a DataLoader (what iter(loader) returns): next() and len()."""

    def __init__(self, loader):
        self._loader = loader
        _base_seed(loader.generator)  # (unused here: keeps the stream as num_workers > 0 leaves it)
        self._gen = loader._batches()

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._gen)

    def __len__(self):
        return len(self._loader)


class _WorkersIter(_BaseDataLoaderIter):
    """One pass over a DataLoader with num_workers > 0 (several with persistent_workers).

    Task k (the k-th key of the sampler) goes to the next worker in turn (skipping workers whose
    IterableDataset copy is exhausted); prefetch_factor * N tasks are in flight. A worker answers
    its tasks in order on its own channel, so the next batch in sampler order is always the next
    message from the worker that got it: no reordering is needed. It holds no reference to the
    loader, so dropping the loader (or this iterator) shuts the workers down.
    """

    def __init__(self, loader):
        n = loader.num_workers
        self._n, self._timeout, self._persistent = n, loader.timeout, loader.persistent_workers
        self._prefetch = 2 if loader.prefetch_factor is None else max(1, loader.prefetch_factor)
        try:
            self._len = len(loader)
        except TypeError:  # an IterableDataset without __len__
            self._len = None
        self._fast = not loader._iterable and loader._has_fast_path()
        self._shut_down, self._workers, self._channels = False, [], []
        ctx = loader.multiprocessing_context
        if ctx is None:
            import multiprocessing
            ctx = multiprocessing.get_context()
        base_seed = _base_seed(loader.generator)
        kind = "iterable" if loader._iterable else "map"
        try:
            for i in range(n):
                mine, theirs = ctx.Pipe(duplex=True)  # (a socket pair: it can carry fds)
                self._channels.append(Channel(mine))
                w = ctx.Process(target=_worker_loop, daemon=True, args=(
                    kind, loader.dataset, theirs, loader._auto_collation, loader.collate_fn,
                    loader.drop_last, self._fast, base_seed, loader.worker_init_fn, i, n))
                w.start()
                theirs.close()
                self._workers.append(w)
            self._sentinels = [w.sentinel for w in self._workers]
            self._reset(loader, first=True)
        except BaseException:
            self._shutdown_workers()
            raise

    def _reset(self, loader, first=False):
        self._keys = loader._worker_keys(self._fast)
        self._send_idx = self._rcvd_idx = self._outstanding = 0
        self._task_worker = {}  # task -> worker, while in flight
        self._active = [True] * self._n
        self._cycle = itertools.cycle(range(self._n))
        if not first:  # persistent workers, new epoch
            _base_seed(loader.generator)  # (as a new iterator would draw: same stream as num_workers=0)
            for w, ch in enumerate(self._channels):
                ch.conn.send(_ResumeIteration())
                while not isinstance(self._get(w)[0], _ResumeIteration):
                    pass  # a batch of the last epoch's unfinished tasks: dropped
        for _ in range(self._prefetch * self._n):
            self._put_next()

    def __iter__(self):
        return self

    def __len__(self):
        if self._len is None:
            raise TypeError("this DataLoader's dataset has no len()")
        return self._len

    def _put_next(self):
        if self._outstanding >= self._prefetch * self._n:
            return
        for _ in range(self._n):
            w = next(self._cycle)
            if self._active[w]:
                break
        else:
            return  # every IterableDataset copy is exhausted
        try:
            key = next(self._keys)
        except StopIteration:
            return
        self._channels[w].conn.send((self._send_idx, key))
        self._task_worker[self._send_idx] = w
        self._outstanding += 1
        self._send_idx += 1

    def __next__(self):
        while True:
            if self._rcvd_idx == self._send_idx:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            w = self._task_worker.pop(self._rcvd_idx)
            self._rcvd_idx += 1
            self._outstanding -= 1
            if not self._active[w]:
                continue  # sent to a worker whose IterableDataset ended: no answer comes
            _, data = self._get(w)
            if isinstance(data, _IterableDatasetStopIteration):
                self._active[w] = False
                self._put_next()
                continue
            self._put_next()
            if isinstance(data, ExceptionWrapper):
                data.reraise()
            return data

    def _get(self, w):
        """Worker w's next message; raises instead of waiting for a dead worker or past timeout."""
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        conn = self._channels[w].conn
        while True:
            wait = STATUS_CHECK_INTERVAL if deadline is None else max(0.0, deadline - time.monotonic())
            ready = _wait([conn] + self._sentinels, wait)
            if conn in ready:
                try:  # (maps the batch's shared memory)
                    return self._channels[w].recv()
                except Exception as e:
                    self._workers[w].join(STATUS_CHECK_INTERVAL)  # died while sending?
                    self._check_workers()
                    raise RuntimeError(f"DataLoader: could not receive a batch from worker {w}: {e!r}") from e
            self._check_workers()
            if deadline is not None and time.monotonic() >= deadline:
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _check_workers(self):
        for i, w in enumerate(self._workers):
            if not w.is_alive():
                code = w.exitcode
                how = f"exit code {code}"
                if code is not None and code < 0:
                    try:
                        how += f" (killed by signal {signal.Signals(-code).name})"
                    except ValueError:
                        pass
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader worker {i} (pid {w.pid}) exited unexpectedly with {how}")

    def _shutdown_workers(self):
        if self._shut_down:
            return
        self._shut_down = True
        try:
            for ch in self._channels:
                try:
                    ch.conn.send(None)
                except OSError:  # (that worker is gone)
                    pass
            deadline = time.monotonic() + STATUS_CHECK_INTERVAL
            for w in self._workers:
                w.join(timeout=max(0.0, deadline - time.monotonic()))
        finally:
            for w in self._workers:
                if w.is_alive():  # busy with a batch nobody will read: it holds nothing to clean up
                    w.terminate()
                    w.join(timeout=STATUS_CHECK_INTERVAL)
            for ch in self._channels:
                ch.close()

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:  # (interpreter shutdown: modules may be gone)
            pass


def _wait(objects, timeout):
    from multiprocessing.connection import wait
    return wait(objects, timeout)


# torch's names for the two iterators
_SingleProcessDataLoaderIter = _LoaderIter
_MultiProcessingDataLoaderIter = _WorkersIter
