"""ember.utils.data.StackDataset against torch.utils.data.StackDataset: samples, batch fetches
(__getitems__), DataLoader batches, and torch's errors."""
import numpy as np
import pytest
import torch

import ember
from helpers import to_numpy


class Plain:
    """A map-style dataset without __getitems__."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return i * 10

    def __len__(self):
        return self.n


def _pair(lib, a, b):
    return lib.utils.data.TensorDataset(lib.from_numpy(a.copy())), Plain(len(b))


def test_tuple_and_dict_samples_and_batches_like_torch():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 3)).astype(np.float32)
    b = np.arange(6)
    for kw in (False, True):
        out = []
        for lib in (ember, torch):
            ta, pb = _pair(lib, a, b)
            ds = lib.utils.data.StackDataset(x=ta, y=pb) if kw else lib.utils.data.StackDataset(ta, pb)
            assert len(ds) == 6
            s = ds[2]
            got = [ds.__getitems__([4, 1, 1])]
            loader = lib.utils.data.DataLoader(ds, batch_size=4)
            out.append((s, got, list(loader)))
        (es, eg, el), (ts, tg, tl) = out
        if kw:
            assert set(es) == set(ts) == {"x", "y"}
            np.testing.assert_allclose(to_numpy(es["x"][0]), ts["x"][0].numpy())
            assert es["y"] == ts["y"] == 20
            assert [r["y"] for r in eg[0]] == [r["y"] for r in tg[0]] == [40, 10, 10]
            for eb, tb in zip(el, tl):
                np.testing.assert_allclose(to_numpy(eb["x"][0]), tb["x"][0].numpy())
                np.testing.assert_array_equal(to_numpy(eb["y"]), tb["y"].numpy())
        else:
            assert isinstance(es, tuple) and es[1] == ts[1] == 20
            assert [r[1] for r in eg[0]] == [r[1] for r in tg[0]]
            assert all(isinstance(r, tuple) for r in eg[0])
            assert len(el) == len(tl) == 2
            for eb, tb in zip(el, tl):
                np.testing.assert_allclose(to_numpy(eb[0][0]), tb[0][0].numpy())
                np.testing.assert_array_equal(to_numpy(eb[1]), tb[1].numpy())


def test_errors_like_torch():
    class Short:
        def __getitem__(self, i):
            return i

        def __getitems__(self, idx):
            return idx[:-1]

        def __len__(self):
            return 3
    for lib in (ember, torch):
        SD = lib.utils.data.StackDataset
        with pytest.raises(ValueError, match="At least one dataset should be passed"):
            SD()
        with pytest.raises(ValueError, match="but both types are given"):
            SD(Plain(2), y=Plain(2))
        with pytest.raises(ValueError, match="Size mismatch between datasets"):
            SD(Plain(2), Plain(3))
        with pytest.raises(ValueError, match="Size mismatch between datasets"):
            SD(a=Plain(2), b=Plain(3))
        with pytest.raises(ValueError, match="output size mismatch. Expected 2, got 1"):
            SD(Short(), Plain(3)).__getitems__([0, 1])


def test_chain_concat_tensor_dataset_errors_like_torch():
    """ChainDataset checks each member as it reaches it; ConcatDataset and TensorDataset
    assert their inputs; all AssertionError, as torch's asserts."""
    for lib in (ember, torch):
        D = lib.utils.data
        chain = D.ChainDataset([range(2)])  # constructing does not check
        with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
            list(chain)
        with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
            len(chain)
        with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
            D.ConcatDataset([])
        with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
            D.ConcatDataset([D.ChainDataset([])])
        with pytest.raises(AssertionError, match="Size mismatch between tensors"):
            D.TensorDataset(lib.zeros(2), lib.zeros(3))
