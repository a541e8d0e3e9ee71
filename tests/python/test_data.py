"""ember.utils.data and ember.datasets against torch.utils.data (the oracle)."""
import collections
import gzip
import os
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as TD

import ember
import ember.utils.data as ED
from ember.datasets import FashionMNIST

FMNIST = "/usr/share/datasets/fashion-mnist"


def to_np(x):
    return x.numpy() if isinstance(x, (ember.Tensor, torch.Tensor)) else np.asarray(x)


def assert_same(e, t):
    """An ember batch equals a torch batch: same structure, dtypes, shapes and values."""
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), type(e)
        assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_array_equal(e.numpy(), t.numpy())
    elif isinstance(t, dict):
        assert type(e) is type(t) and e.keys() == t.keys()
        for k in t:
            assert_same(e[k], t[k])
    elif isinstance(t, (list, tuple)):
        assert type(e) is type(t) and len(e) == len(t), (type(e), type(t))
        for a, b in zip(e, t):
            assert_same(a, b)
    else:
        assert e == t and type(e) is type(t)


def tensor_pair(n=23, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 3, 2)).astype(np.float32)
    y = rng.integers(0, 10, n)
    return (ember.from_numpy(x), ember.from_numpy(y)), (torch.from_numpy(x), torch.from_numpy(y))


class PairDataset:  # map-style, per-sample (x, label); built for both libraries
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __getitem__(self, i):
        return self.x[i], int(self.y[i])

    def __len__(self):
        return len(self.x)


class EmberPairs(PairDataset, ED.Dataset):
    pass


class TorchPairs(PairDataset, TD.Dataset):
    pass


class DictDataset:
    def __init__(self, n=9):
        rng = np.random.default_rng(1)
        self.a = rng.standard_normal((n, 4))
        self.n = n

    def __getitem__(self, i):
        return {"x": self.a[i], "y": i % 3, "w": float(i) / 2, "name": f"s{i}", "pair": (i, [i, -i])}

    def __len__(self):
        return self.n


def batches(loader):
    return [b for b in loader]


def flat_first(loader):
    """The first-tensor values of every batch of a loader, concatenated (the epoch's order)."""
    return np.concatenate([to_np(b[0]).reshape(len(to_np(b[0])), -1)[:, 0] for b in loader])


# ---------------------------------------------------------------- DataLoader vs torch

@pytest.mark.parametrize("bs", [1, 4, 23, 50])
@pytest.mark.parametrize("drop_last", [False, True])
def test_tensor_dataset_sequential_matches_torch(bs, drop_last):
    (xe, ye), (xt, yt) = tensor_pair()
    le = ED.DataLoader(ED.TensorDataset(xe, ye), batch_size=bs, drop_last=drop_last)
    lt = TD.DataLoader(TD.TensorDataset(xt, yt), batch_size=bs, drop_last=drop_last)
    be, bt = batches(le), batches(lt)
    assert len(le) == len(lt) == len(be) == len(bt)
    for e, t in zip(be, bt):
        assert_same(e, t)


@pytest.mark.parametrize("bs", [1, 5])
def test_map_dataset_matches_torch(bs):
    (xe, ye), (xt, yt) = tensor_pair(11)
    le = ED.DataLoader(EmberPairs(xe, ye), batch_size=bs)
    lt = TD.DataLoader(TorchPairs(xt, yt), batch_size=bs)
    for e, t in zip(batches(le), batches(lt)):
        assert_same(e, t)
    # The same data through a NumPy-backed dataset: arrays are stacked into tensors.
    xn = xt.numpy()
    le = ED.DataLoader(EmberPairs(xn, ye.numpy()), batch_size=bs)
    lt = TD.DataLoader(TorchPairs(xn, yt.numpy()), batch_size=bs)
    for e, t in zip(batches(le), batches(lt)):
        assert_same(e, t)


def test_dict_samples_match_torch():
    ds = DictDataset()
    for e, t in zip(ED.DataLoader(ds, batch_size=4), TD.DataLoader(ds, batch_size=4)):
        assert_same(e, t)


def test_custom_collate_fn():
    (xe, ye), (xt, yt) = tensor_pair(10)
    fn = lambda batch: (len(batch), sum(int(s[1]) for s in batch))  # noqa: E731
    e = batches(ED.DataLoader(ED.TensorDataset(xe, ye), batch_size=3, collate_fn=fn))
    t = batches(TD.DataLoader(TD.TensorDataset(xt, yt), batch_size=3, collate_fn=fn))
    assert e == t


def test_batch_size_none_and_default_convert():
    ds = DictDataset(3)
    for e, t in zip(ED.DataLoader(ds, batch_size=None), TD.DataLoader(ds, batch_size=None)):
        assert_same(e, t)
    assert len(ED.DataLoader(ds, batch_size=None)) == 3


@pytest.mark.parametrize("n", [0, 1, 127, 128, 129, 1000])
@pytest.mark.parametrize("bs", [1, 7, 128])
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("shuffle", [False, True])
def test_len_and_drop_last(n, bs, drop_last, shuffle):
    if n == 0 and shuffle:
        pytest.skip("torch refuses a RandomSampler over an empty dataset")
    xe, xt = ember.arange(n), torch.arange(n)
    le = ED.DataLoader(ED.TensorDataset(xe), batch_size=bs, drop_last=drop_last, shuffle=shuffle)
    lt = TD.DataLoader(TD.TensorDataset(xt), batch_size=bs, drop_last=drop_last, shuffle=shuffle)
    be = batches(le)
    assert len(le) == len(lt) == len(be) == len(iter(le))
    sizes = [len(b[0]) for b in be]
    assert sizes == [len(b[0]) for b in lt]
    assert all(s == bs for s in sizes[:-1])


def test_num_workers_gives_the_in_process_batches():
    (xe, ye), _ = tensor_pair()
    a = batches(ED.DataLoader(ED.TensorDataset(xe, ye), batch_size=4, num_workers=2, prefetch_factor=2,
                              persistent_workers=True, pin_memory=True))
    b = batches(ED.DataLoader(ED.TensorDataset(xe, ye), batch_size=4))
    for x, y in zip(a, b):
        assert_same(x, [torch.from_numpy(y[0].numpy()), torch.from_numpy(y[1].numpy())])
    assert ED.get_worker_info() is None


def test_iterable_dataset_matches_torch():
    class Stream:
        def __iter__(self):
            return iter([np.full(2, i) for i in range(10)])

        def __len__(self):
            return 10

    class E(Stream, ED.IterableDataset):
        pass

    class T(Stream, TD.IterableDataset):
        pass

    for bs, dl in [(3, False), (3, True), (None, False)]:
        le, lt = ED.DataLoader(E(), batch_size=bs, drop_last=dl), TD.DataLoader(T(), batch_size=bs, drop_last=dl)
        be, bt = batches(le), batches(lt)
        assert len(be) == len(bt) == len(le) == len(lt)
        for e, t in zip(be, bt):
            assert_same(e, t)
    with pytest.raises(ValueError, match="IterableDataset"):
        ED.DataLoader(E(), shuffle=True)
    with pytest.raises(ValueError, match="IterableDataset"):
        ED.DataLoader(E(), sampler=[0, 1])


# ---------------------------------------------------------------- shuffling and seeds

def epoch_order(loader):
    return np.concatenate([to_np(b[0]) for b in loader]).tolist()


def test_shuffle_is_a_reproducible_permutation():
    n = 1000
    loader = ED.DataLoader(ED.TensorDataset(ember.arange(n), ember.arange(n) * 2), batch_size=64, shuffle=True)
    ember.manual_seed(7)
    first, second = epoch_order(loader), epoch_order(loader)
    assert sorted(first) == list(range(n)) and sorted(second) == list(range(n))
    assert first != list(range(n)) and first != second  # shuffled, and a new order each epoch
    ember.manual_seed(7)
    assert epoch_order(loader) == first and epoch_order(loader) == second
    for xb, yb in loader:  # the tensors of a sample stay together
        np.testing.assert_array_equal(yb.numpy(), 2 * xb.numpy())


def test_shuffle_with_explicit_generator():
    ds = ED.TensorDataset(ember.arange(300))
    g = ember.Generator().manual_seed(3)
    loader = ED.DataLoader(ds, batch_size=32, shuffle=True, generator=g)
    first = epoch_order(loader)
    ember.manual_seed(123)  # the global stream does not matter when a generator is given
    g.manual_seed(3)
    assert epoch_order(loader) == first
    assert epoch_order(ED.DataLoader(ds, batch_size=32, shuffle=True,
                                     generator=ember.Generator().manual_seed(4))) != first


def test_fast_path_order_equals_per_sample_path():
    """TensorDataset (one index_select per batch) and a per-sample dataset visit the same order."""
    (xe, ye), _ = tensor_pair(100)
    slow_ds = EmberPairs(xe, ye)
    for kw in [{}, {"shuffle": True}, {"shuffle": True, "drop_last": True}]:
        fast = ED.DataLoader(ED.TensorDataset(xe, ye), batch_size=8,
                             generator=ember.Generator().manual_seed(5), **kw)
        slow = ED.DataLoader(slow_ds, batch_size=8, generator=ember.Generator().manual_seed(5), **kw)
        for f, s in zip(fast, slow):
            np.testing.assert_array_equal(f[0].numpy(), s[0].numpy())
            np.testing.assert_array_equal(f[1].numpy(), s[1].numpy())
            assert f[0].is_contiguous()


def test_overridden_getitem_is_honoured():
    class Doubled(ED.TensorDataset):
        def __getitem__(self, i):
            return tuple(t[i] * 2 for t in self.tensors)

    b = next(iter(ED.DataLoader(Doubled(ember.arange(6)), batch_size=3)))
    assert b[0].tolist() == [0, 2, 4]


def test_batches_are_copies():
    x = ember.arange(8)
    b = next(iter(ED.DataLoader(ED.TensorDataset(x), batch_size=4)))
    b[0].add_(100)
    assert x.tolist() == list(range(8))


def test_generator_api():
    g = ember.Generator()
    assert g.initial_seed() == torch.Generator().initial_seed()
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    state = g.get_state()
    a = ember.rand(3, generator=g).tolist()
    g.set_state(state)
    assert ember.rand(3, generator=g).tolist() == a  # the C++ stream (tests in test_random.py)
    with pytest.raises(RuntimeError):
        g.set_state(ember.zeros(3))
    with pytest.raises(TypeError, match="ember.Generator"):
        list(ED.RandomSampler(range(3), generator=torch.Generator()))
    assert ember.Generator().manual_seed(-1).initial_seed() == 2**64 - 1


# ---------------------------------------------------------------- samplers

def test_samplers():
    assert list(ED.SequentialSampler(range(5))) == [0, 1, 2, 3, 4]
    g = ember.Generator().manual_seed(0)
    r = list(ED.RandomSampler(range(50), generator=g))
    assert sorted(r) == list(range(50)) and len(ED.RandomSampler(range(50))) == 50
    r = list(ED.RandomSampler(range(5), num_samples=12))
    assert len(r) == 12 and sorted(r[:10]) == sorted(list(range(5)) * 2)
    r = list(ED.RandomSampler(range(5), replacement=True, num_samples=40))
    assert len(r) == 40 and set(r) <= set(range(5))
    s = list(ED.SubsetRandomSampler([3, 9, 4]))
    assert sorted(s) == [3, 4, 9]
    w = list(ED.WeightedRandomSampler([0.0, 1.0, 0.0, 2.0], 50))
    assert len(w) == 50 and set(w) <= {1, 3}
    assert sorted(ED.WeightedRandomSampler([1, 1, 1, 1], 4, replacement=False)) == [0, 1, 2, 3]


@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler_matches_torch(drop_last):
    for src in (range(10), [5, 3, 8, 1, 0, 2, 9]):
        e = list(ED.BatchSampler(ED.SequentialSampler(src), 3, drop_last))
        t = list(TD.BatchSampler(TD.SequentialSampler(src), 3, drop_last))
        assert e == t and len(ED.BatchSampler(src, 3, drop_last)) == len(t)
        assert list(ED.BatchSampler(src, 3, drop_last)) == list(TD.BatchSampler(src, 3, drop_last))


def test_endless_random_sampler_streams():
    """makemore's RandomSampler(replacement=True, num_samples=int(1e10)): indices come in
    chunks as asked for (one array of 1e10 would need 75 GiB)."""
    import itertools
    for m in (ED, TD):
        s = m.RandomSampler(range(7), replacement=True, num_samples=int(1e10))
        first = list(itertools.islice(iter(s), 100_000))
        assert len(s) == int(1e10) and len(first) == 100_000 and set(first) == set(range(7))
    ds = ED.TensorDataset(ember.arange(7) * 10)
    sampler = ED.RandomSampler(ds, replacement=True, num_samples=int(1e10),
                               generator=ember.Generator().manual_seed(3))
    loader = ED.DataLoader(ds, batch_size=32, sampler=sampler)
    got = [b[0] for b in itertools.islice(iter(loader), 3000)]  # crosses chunk boundaries
    assert all(b.shape == (32,) for b in got) and set(ember.cat(got).tolist()) <= set(range(0, 70, 10))
    # the DataLoader's batches and plain iteration of the sampler give the same order
    again = ED.RandomSampler(ds, replacement=True, num_samples=int(1e10),
                             generator=ember.Generator().manual_seed(3))
    order = list(itertools.islice(iter(again), 3000 * 32))
    assert (ember.cat(got) // 10).tolist() == order


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("n,k,bs", [(5, 12, 4), (6, 70_000, 1000), (3, 131_073, 4096)])
def test_chunked_samplers_batch_as_iteration(n, k, bs, drop_last):
    for replacement in (False, True):
        def make():
            return ED.RandomSampler(range(n), replacement=replacement, num_samples=k,
                                    generator=ember.Generator().manual_seed(1))
        flat = list(make())
        batches = list(ED.BatchSampler(make(), bs, drop_last))
        assert len(batches) == len(ED.BatchSampler(make(), bs, drop_last))
        assert [i for b in batches for i in b] == flat[:len(flat) - (len(flat) % bs if drop_last else 0)]
        assert all(len(b) == bs for b in batches[:-1])


def test_custom_sampler_and_batch_sampler():
    ds = ED.TensorDataset(ember.arange(10) * 10)
    e = epoch_order(ED.DataLoader(ds, batch_size=3, sampler=[9, 0, 4, 4]))
    assert e == [90, 0, 40, 40]
    b = batches(ED.DataLoader(ds, batch_sampler=[[1, 2], [7]]))
    assert [x[0].tolist() for x in b] == [[10, 20], [70]]

    class Reversed(ED.SequentialSampler):
        def __iter__(self):
            return iter(range(len(self.data_source) - 1, -1, -1))

    assert epoch_order(ED.DataLoader(ds, batch_size=4, sampler=Reversed(ds)))[:2] == [90, 80]


def test_sampler_errors_match_torch():
    for e_call, t_call in [
        (lambda m: m.RandomSampler(range(3), replacement=1), TypeError),
        (lambda m: m.RandomSampler(range(3), num_samples=0), ValueError),
        (lambda m: m.RandomSampler([], ), ValueError),
        (lambda m: m.BatchSampler(range(3), 0, False), ValueError),
        (lambda m: m.BatchSampler(range(3), True, False), ValueError),
        (lambda m: m.BatchSampler(range(3), 2, 1), ValueError),
        (lambda m: m.WeightedRandomSampler([1.0], 0), ValueError),
        (lambda m: m.WeightedRandomSampler([[1.0]], 2), ValueError),
    ]:
        with pytest.raises(t_call):
            e_call(TD)
        with pytest.raises(t_call):
            e_call(ED)


@pytest.mark.parametrize("kwargs,match", [
    ({"shuffle": True, "sampler": [0]}, "mutually exclusive with shuffle"),
    ({"batch_sampler": [[0]], "batch_size": 2}, "batch_sampler option is mutually exclusive"),
    ({"batch_sampler": [[0]], "drop_last": True}, "batch_sampler option is mutually exclusive"),
    ({"batch_size": None, "drop_last": True}, "batch_size=None"),
    ({"num_workers": -1}, "num_workers"),
    ({"timeout": -1}, "timeout"),
    ({"prefetch_factor": 2}, "prefetch_factor"),
    ({"persistent_workers": True}, "persistent_workers"),
])
def test_loader_argument_errors_match_torch(kwargs, match):
    with pytest.raises(ValueError):
        TD.DataLoader(TD.TensorDataset(torch.arange(3)), **kwargs)
    with pytest.raises(ValueError, match=match):
        ED.DataLoader(ED.TensorDataset(ember.arange(3)), **kwargs)


def test_loader_attributes_frozen():
    loader = ED.DataLoader(ED.TensorDataset(ember.arange(3)), batch_size=2)
    assert loader.batch_size == 2 and loader.collate_fn is ED.default_collate
    with pytest.raises(ValueError, match="batch_size attribute should not be set"):
        loader.batch_size = 4
    loader.num_workers = 1  # not frozen in torch either


# ---------------------------------------------------------------- collate

def test_default_collate_matches_torch():
    Point = collections.namedtuple("Point", "x y")
    cases = [
        [1, 2, 3], [1.5, 2.0], [True, False], [np.float32(1.5), np.float32(2)], [np.int32(4), np.int32(5)],
        ["a", "b"], [np.arange(3), np.arange(3)], [(1, "a"), (2, "b")], [[1, 2], [3, 4]],
        [{"a": 1, "b": [1.0, 2.0]}, {"a": 2, "b": [3.0, 4.0]}], [Point(1, 2.0), Point(3, 4.0)],
        [collections.OrderedDict(k=np.ones(2))] * 2,
    ]
    for batch in cases:
        assert_same(ED.default_collate(batch), TD.default_collate(batch))
    tb = [torch.arange(4).reshape(2, 2) + i for i in range(3)]
    eb = [ember.from_numpy(t.numpy()) for t in tb]
    assert_same(ED.default_collate(eb), TD.default_collate(tb))
    assert_same(ED.default_collate([(e, 1) for e in eb]), TD.default_collate([(t, 1) for t in tb]))


def test_default_collate_errors_match_torch():
    for batch, err in [([object()], TypeError), ([[1, 2], [3]], RuntimeError), ([np.array(["a"])], TypeError)]:
        with pytest.raises(err) as te:
            TD.default_collate(batch)
        with pytest.raises(err) as ee:
            ED.default_collate(batch)
        assert str(ee.value) == str(te.value)


def test_default_convert_matches_torch():
    for data in [np.zeros(2), (np.zeros(1), 1), {"a": np.ones(2, np.float32), "s": "x"}, [np.int64(3)], 5, "s"]:
        assert_same(ED.default_convert(data), TD.default_convert(data))


# ---------------------------------------------------------------- datasets

def test_tensor_dataset():
    (xe, ye), _ = tensor_pair(7)
    ds = ED.TensorDataset(xe, ye)
    assert len(ds) == 7
    x, y = ds[3]
    np.testing.assert_array_equal(x.numpy(), xe.numpy()[3])
    assert int(y) == int(ye.numpy()[3])
    with pytest.raises(AssertionError, match=r"Size mismatch.*\(7, 3, 2\), \(6,\)"):
        ED.TensorDataset(xe, ember.arange(6))  # AssertionError, as torch
    with pytest.raises(ValueError, match="TensorDataset"):
        ED.TensorDataset()


def test_subset_and_fast_path_through_subset():
    (xe, ye), (xt, yt) = tensor_pair(20)
    idx = [5, -1, 0, 7, 7, 3, 19]
    se, st = ED.Subset(ED.TensorDataset(xe, ye), idx), TD.Subset(TD.TensorDataset(xt, yt), idx)
    assert len(se) == len(st) == 7
    for bs in (1, 3):
        for e, t in zip(ED.DataLoader(se, batch_size=bs), TD.DataLoader(st, batch_size=bs)):
            assert_same(e, t)
    nested = ED.Subset(se, np.array([6, 0]))
    b = next(iter(ED.DataLoader(nested, batch_size=2)))
    np.testing.assert_array_equal(b[0].numpy(), xe.numpy()[[19, 5]])
    b = next(iter(ED.DataLoader(ED.Subset(ED.TensorDataset(xe), ember.tensor([2, 4])), batch_size=2)))
    np.testing.assert_array_equal(b[0].numpy(), xe.numpy()[[2, 4]])


def test_concat_dataset():
    a, b = ED.TensorDataset(ember.arange(3)), ED.TensorDataset(ember.arange(10, 14))
    c = a + b
    assert len(c) == 7 and int(c[3][0]) == 10 and int(c[-1][0]) == 13
    assert epoch_order(ED.DataLoader(c, batch_size=3)) == [0, 1, 2, 10, 11, 12, 13]


@pytest.mark.parametrize("n,lengths", [(10, [3, 7]), (10, [0.3, 0.7]), (11, [0.5, 0.5]), (30, [0.3, 0.3, 0.4]),
                                      (7, [0.1, 0.1, 0.8]), (5, [5, 0])])
def test_random_split_matches_torch_sizes(n, lengths):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parts = ED.random_split(range(n), lengths, generator=ember.Generator().manual_seed(1))
        tparts = TD.random_split(range(n), lengths, generator=torch.Generator().manual_seed(1))
    assert [len(p) for p in parts] == [len(p) for p in tparts]
    items = sorted(x for p in parts for x in (p[i] for i in range(len(p))))
    assert items == list(range(n))
    again = ED.random_split(range(n), lengths, generator=ember.Generator().manual_seed(1))
    assert [p.indices for p in again] == [p.indices for p in parts]
    ember.manual_seed(0)
    a = [p.indices for p in ED.random_split(range(n), lengths)]
    ember.manual_seed(0)
    assert a == [p.indices for p in ED.random_split(range(n), lengths)]


@pytest.mark.parametrize("lengths,match", [([3, 6], "Sum of input lengths"), ([4, 7], "Sum of input lengths"),
                                           ([0.5, 0.6], "length at index 0 must be"), ([1.2, -0.2], "Fraction at index 0"),
                                           ([12, -2], "non-negative"), ([2.5, 7.5], "non-negative int")])
def test_random_split_errors(lengths, match):
    with pytest.raises(ValueError, match=match):
        ED.random_split(range(10), lengths)


def test_random_split_zero_length_warns():
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        ED.random_split(range(2), [1.0, 0.0])


def test_lazy_imports():
    import subprocess
    import sys
    # ember.utils itself loads with ember (ember.func's trees are its _pytree); data does not
    code = ("import sys, ember; assert 'ember.utils.data' not in sys.modules; "
            "assert 'ember.hub' not in sys.modules; "
            "assert ember.utils.data.DataLoader is not None; assert ember.datasets.FashionMNIST; "
            "import ember.utils.data as d; from ember.utils.data import DataLoader")
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))


def test_dataloader_module_at_torchs_path():
    """torch.utils.data.dataloader: the module holding DataLoader, default_collate,
    default_convert and get_worker_info, the same objects as torch.utils.data's; a loader
    built through it batches as torch's."""
    import torch
    import torch.utils.data.dataloader as tdl
    import ember.utils.data.dataloader as edl
    assert ember.utils.data.dataloader is edl
    for name in ("DataLoader", "default_collate", "default_convert", "get_worker_info"):
        assert getattr(tdl, name) is getattr(torch.utils.data, name)
        assert getattr(edl, name) is getattr(ember.utils.data, name), name
    x = np.arange(20.0, dtype=np.float32).reshape(10, 2)
    e_batches = list(edl.DataLoader(ember.utils.data.TensorDataset(ember.tensor(x)), batch_size=4))
    t_batches = list(tdl.DataLoader(torch.utils.data.TensorDataset(torch.tensor(x)), batch_size=4))
    assert [b[0].tolist() for b in e_batches] == [b[0].tolist() for b in t_batches]
    assert edl.get_worker_info() is None  # in the main process
    with pytest.raises(ValueError, match="batch_size"):
        edl.DataLoader([1, 2], batch_size=0)
    with pytest.raises(ValueError):
        tdl.DataLoader([1, 2], batch_size=0)


# ---------------------------------------------------------------- FashionMNIST

needs_fmnist = pytest.mark.skipif(not os.path.isdir(FMNIST), reason="dataset-fashion-mnist is not installed")


def read_gz_idx(name):
    raw = gzip.open(os.path.join(FMNIST, name + ".gz")).read()
    ndim = raw[3]
    dims = np.frombuffer(raw, ">u4", ndim, 4)
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).reshape(dims)


@pytest.fixture(scope="module")
def fmnist_train():
    return FashionMNIST(train=True)


@needs_fmnist
def test_fashion_mnist_train(fmnist_train):
    ds = fmnist_train
    assert len(ds) == 60000 and tuple(ds.data.shape) == (60000, 28, 28) and tuple(ds.targets.shape) == (60000,)
    assert ds.data.dtype == ember.uint8 and ds.targets.dtype == ember.int64
    t = ds.targets.numpy()
    assert t.min() == 0 and t.max() == 9 and np.bincount(t).tolist() == [6000] * 10
    ref = read_gz_idx("train-images-idx3-ubyte")
    np.testing.assert_array_equal(ds.data.numpy()[0], ref[0])
    assert int(ds.data.numpy()[0].astype(np.int64).sum()) == int(ref[0].astype(np.int64).sum())
    np.testing.assert_array_equal(t, read_gz_idx("train-labels-idx1-ubyte"))
    img, label = ds[0]
    assert tuple(img.shape) == (1, 28, 28) and img.dtype == ember.float32 and isinstance(label, int)
    np.testing.assert_allclose(img.numpy()[0], ref[0] / np.float32(255), rtol=0, atol=0)
    assert label == int(t[0]) and ds[-1][1] == int(t[-1])
    assert "Split: Train" in repr(ds) and ds.classes[label] in ds.class_to_idx


@needs_fmnist
def test_fashion_mnist_test_split():
    ds = FashionMNIST(train=False)
    assert len(ds) == 10000 and tuple(ds.data.shape) == (10000, 28, 28)
    np.testing.assert_array_equal(ds.targets.numpy(), read_gz_idx("t10k-labels-idx1-ubyte"))


@needs_fmnist
def test_fashion_mnist_tensors_and_loader(fmnist_train):
    ds = fmnist_train
    x, y = ds.tensors()
    assert tuple(x.shape) == (60000, 1, 28, 28) and x.dtype == ember.float32 and y.dtype == ember.int64
    xs = torch.from_numpy(ds.data.numpy()[:100]).float().div(255).unsqueeze(1)
    np.testing.assert_array_equal(x.numpy()[:100], xs.numpy())
    xn, _ = ds.tensors(normalize=True)
    np.testing.assert_allclose(xn.numpy()[:100], ((xs - 0.2860) / 0.3530).numpy(), rtol=1e-6, atol=1e-6)
    xm, _ = ds.tensors(normalize=(0.5, 0.5))
    np.testing.assert_allclose(xm.numpy()[:10], ((xs[:10] - 0.5) / 0.5).numpy(), rtol=1e-6, atol=1e-6)
    # Loader over the dataset itself (uint8 rows, converted per batch) equals a TensorDataset loader
    # and the per-sample path (a transform turns the fast path off).
    sub = ED.Subset(ds, range(0, 60000, 97))
    sub_t = ED.Subset(ED.TensorDataset(x, y), range(0, 60000, 97))
    ds_tf = FashionMNIST(train=False, transform=lambda im: im)
    kw = dict(batch_size=64, shuffle=True)
    a = ED.DataLoader(sub, generator=ember.Generator().manual_seed(9), **kw)
    b = ED.DataLoader(sub_t, generator=ember.Generator().manual_seed(9), **kw)
    for (xa, ya), (xb, yb) in zip(a, b):
        np.testing.assert_array_equal(xa.numpy(), xb.numpy())
        np.testing.assert_array_equal(ya.numpy(), yb.numpy())
    xb, yb = next(iter(ED.DataLoader(ds_tf, batch_size=5)))
    assert tuple(xb.shape) == (5, 1, 28, 28) and yb.dtype == ember.int64


def write_idx(path, magic, dims, data=None, gz=False, extra=b""):
    body = magic.to_bytes(4, "big") + b"".join(int(d).to_bytes(4, "big") for d in dims)
    if data is None:
        data = (np.arange(int(np.prod(dims))) % 10).astype(np.uint8).tobytes()
    raw = body + data + extra
    with open(path, "wb") as f:
        f.write(gzip.compress(raw) if gz else raw)


def fake_root(tmp_path, n=5, labels_n=None, gz=False, images_dims=None):
    ext = ".gz" if gz else ""
    write_idx(tmp_path / f"train-images-idx3-ubyte{ext}", 0x803, images_dims or (n, 28, 28), gz=gz)
    write_idx(tmp_path / f"train-labels-idx1-ubyte{ext}", 0x801, (labels_n or n,), gz=gz)
    return tmp_path


@pytest.mark.parametrize("gz", [False, True])
def test_fashion_mnist_small_files(tmp_path, gz):
    ds = FashionMNIST(root=fake_root(tmp_path, gz=gz))
    assert len(ds) == 5 and ds.targets.tolist() == [0, 1, 2, 3, 4]
    raw = tmp_path / "FashionMNIST" / "raw"  # torchvision's layout
    raw.mkdir(parents=True)
    for f in os.listdir(tmp_path):
        if f.endswith("ubyte" + (".gz" if gz else "")):
            os.rename(tmp_path / f, raw / f)
    assert len(FashionMNIST(root=str(tmp_path))) == 5


def test_fashion_mnist_hostile_files(tmp_path):
    def case(name, make, match):
        d = tmp_path / name
        d.mkdir()
        make(d)
        with pytest.raises(ValueError, match=match):
            FashionMNIST(root=d)

    img, lab = "train-images-idx3-ubyte", "train-labels-idx1-ubyte"
    case("truncated", lambda d: (fake_root(d), write_idx(d / img, 0x803, (5, 28, 28), b"\0" * 100)),
         r"train-images-idx3-ubyte: truncated.*3920 bytes.*100")
    case("short_header", lambda d: (fake_root(d), (d / img).write_bytes(b"\0\0\x08\x03\0\0")),
         "truncated.*header")
    case("empty", lambda d: (fake_root(d), (d / lab).write_bytes(b"")), "labels-idx1-ubyte: truncated")
    case("bad_magic", lambda d: (fake_root(d), write_idx(d / img, 0x801, (5,))), "bad magic number 0x00000801")
    case("swapped", lambda d: (fake_root(d), write_idx(d / lab, 0x803, (5, 28, 28))), "labels-idx1-ubyte: bad magic")
    case("count", lambda d: fake_root(d, labels_n=4), "4 labels for the 5 images")
    case("dims", lambda d: fake_root(d, images_dims=(5, 32, 32)), "32x32 pixels")
    case("trailing", lambda d: (fake_root(d), write_idx(d / lab, 0x801, (5,), extra=b"xx")), "2 bytes after")
    case("label_range", lambda d: (fake_root(d), write_idx(d / lab, 0x801, (5,), bytes([0, 1, 2, 3, 12]))),
         "label 12 out of range")
    case("garbage_gz", lambda d: (fake_root(d), (d / (img + ".gz")).write_bytes(b"\x1f\x8b" + os.urandom(200)),
                                  os.remove(d / img)), "images-idx3-ubyte.gz: not a valid gzip")
    case("cut_gz", lambda d: (fake_root(d, gz=True),
                              (d / (img + ".gz")).write_bytes((d / (img + ".gz")).read_bytes()[:60])),
         "not a valid gzip.*truncated")
    case("gz_trailing_junk", lambda d: (fake_root(d, gz=True),
                                        (d / (lab + ".gz")).write_bytes((d / (lab + ".gz")).read_bytes() + b"junk")),
         "not a valid gzip")


def test_fashion_mnist_missing(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"Fashion-MNIST not found in .*nothing: install it with "
                                                r"`apt-get install dataset-fashion-mnist` \(or pass root=...\)"):
        FashionMNIST(root=tmp_path / "nothing")
    write_idx(tmp_path / "train-images-idx3-ubyte", 0x803, (5, 28, 28))  # labels missing
    with pytest.raises(FileNotFoundError, match="missing train-labels-idx1-ubyte"):
        FashionMNIST(root=tmp_path)
    with pytest.raises(FileNotFoundError, match="t10k-images"):
        FashionMNIST(root=tmp_path, train=False)


def test_fashion_mnist_download(tmp_path, monkeypatch):
    import ember.datasets.fashion_mnist as fm
    monkeypatch.setattr(fm, "DEFAULT_ROOT", str(tmp_path / "absent"))
    with pytest.raises(RuntimeError, match="does not download"):
        FashionMNIST(root=tmp_path / "data", download=True)
    monkeypatch.setattr(fm, "DEFAULT_ROOT", str(fake_root(tmp_path)))
    assert len(FashionMNIST(root=tmp_path / "data", download=True)) == 5  # found in the package folder
