"""Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout and their functional forms against
torch 2.13. Masks are random (ember's generator, not torch's): the tests check the mask's
structure (whole channels), its scaling, its statistics, eval = identity, gradients =
mask * scale, torch's warnings and errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
import ember.nn.functional as F

ALPHA = 1.7580993408473766


def _x(shape, dtype=np.float32, seed=0):
    a = np.random.default_rng(seed).uniform(0.5, 2.0, shape).astype(dtype)
    return ember.from_numpy(a.copy()), a


@pytest.mark.parametrize("fn,shape,cdims", [
    (F.dropout1d, (4, 6, 5), 2), (F.dropout1d, (6, 5), 1), (F.dropout3d, (2, 5, 2, 3, 2), 2),
    (F.dropout3d, (5, 2, 3, 2), 1), (F.dropout2d, (3, 5, 4, 4), 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_channel_mask_structure_and_gradient(fn, shape, cdims, dtype):
    ember.manual_seed(0)
    e, a = _x(shape, dtype)
    e.requires_grad_()
    p = 0.4
    y = fn(e, p, True)
    assert y.dtype == e.dtype and tuple(y.shape) == shape
    ratio = y.detach().numpy() / a
    # one value per channel: 0 or 1/(1-p)
    per_channel = ratio.reshape(ratio.shape[:cdims] + (-1,))
    assert np.allclose(per_channel, per_channel[..., :1], rtol=1e-6)
    vals = per_channel[..., 0]
    assert np.all(np.isclose(vals, 0) | np.isclose(vals, 1 / (1 - p), rtol=1e-6))
    y.backward(ember.ones_like(y))
    np.testing.assert_allclose(e.grad.numpy(), ratio, rtol=1e-6)


def test_channel_drop_rate_statistics():
    ember.manual_seed(1)
    y = F.dropout2d(ember.ones(200, 100, 2, 2), 0.3)
    dropped = (y[:, :, 0, 0] == 0).double().mean().item()
    assert abs(dropped - 0.3) < 0.02
    np.testing.assert_allclose(y.mean().item(), 1.0, atol=0.03)


@pytest.mark.parametrize("cls,shape", [(nn.Dropout1d, (2, 3, 4)), (nn.Dropout2d, (2, 3, 4, 4)),
                                       (nn.Dropout3d, (2, 3, 2, 2, 2)),
                                       (nn.AlphaDropout, (4, 5)),
                                       (nn.FeatureAlphaDropout, (2, 3, 4))])
def test_modules_eval_identity_repr_state(cls, shape):
    m, tm = cls(0.3), getattr(torch.nn, cls.__name__)(0.3)
    assert repr(m) == repr(tm)
    assert repr(cls(0.2, True)) == repr(getattr(torch.nn, cls.__name__)(0.2, True))
    assert list(m.state_dict()) == list(tm.state_dict()) == []
    e, _ = _x(shape)
    m.eval()
    assert m(e) is e
    m.train()
    ember.manual_seed(2)
    assert not np.allclose(m(e).numpy(), e.numpy())
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        cls(1.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        getattr(torch.nn, cls.__name__)(1.5)


def test_alpha_dropout_values_and_gradient():
    ember.manual_seed(3)
    p = 0.2
    a = 1.0 / np.sqrt((ALPHA ** 2 * p + 1) * (1 - p))
    b_drop, b_keep = -ALPHA * a + ALPHA * a * p, ALPHA * a * p
    e, x = _x((50, 40), np.float64)
    e.requires_grad_()
    y = F.alpha_dropout(e, p, True)
    yv = y.detach().numpy()
    kept = np.isclose(yv, x * a + b_keep)
    dropped = np.isclose(yv, b_drop)
    assert np.all(kept | dropped) and 0.15 < dropped.mean() < 0.25
    y.sum().backward()
    np.testing.assert_allclose(e.grad.numpy(), np.where(kept, a, 0.0))
    # keeps zero mean / unit variance of a standard normal, as torch's does
    ember.manual_seed(4)
    z = F.alpha_dropout(ember.randn(200000, dtype=ember.float64), 0.5, True)
    assert abs(z.mean().item()) < 0.02 and abs(z.std().item() - 1) < 0.02


def test_feature_alpha_dropout_whole_channels():
    ember.manual_seed(5)
    e, x = _x((6, 8, 3), np.float64)
    y = F.feature_alpha_dropout(e, 0.5, True).numpy()
    p, a = 0.5, 1.0 / np.sqrt((ALPHA ** 2 * 0.5 + 1) * 0.5)
    dropped = np.isclose(y, -ALPHA * a + ALPHA * a * p)
    assert np.all(dropped.all(-1) | (~dropped).all(-1))
    assert np.all(dropped | np.isclose(y, x * a + ALPHA * a * p))


def test_defaults_and_edge_cases_match_torch():
    t = torch.ones(3, 4)
    e = ember.ones(3, 4)
    # alpha_dropout's training defaults to False (identity), dropout2d's to True
    assert F.alpha_dropout(e) is e and torch.nn.functional.alpha_dropout(t) is t
    assert F.feature_alpha_dropout(e) is e
    for fn in ("dropout1d", "dropout3d", "alpha_dropout"):
        assert getattr(F, fn)(e if fn != "dropout3d" else ember.ones(1, 2, 2, 2), 0.0, True) is not None
    z = F.dropout1d(ember.ones(2, 3, 4), 1.0)
    assert z.abs().sum().item() == 0
    empty = ember.ones(0, 3, 4)
    assert F.dropout1d(empty, 0.5) is empty


def test_inplace_forms():
    ember.manual_seed(6)
    e = ember.ones(4, 3, 5)
    out = F.dropout1d(e, 0.5, True, inplace=True)
    assert out is e and set(np.unique(e.numpy())) <= {0.0, 2.0}
    e2 = ember.ones(3, 5)  # unbatched: written through the (1, C, L) view
    assert F.dropout1d(e2, 0.5, True, True) is e2 and set(np.unique(e2.numpy())) <= {0.0, 2.0}
    e3 = ember.ones(10, 10)
    F.alpha_dropout_(e3, 0.5, True)
    assert len(np.unique(e3.numpy())) == 2
    leaf = ember.ones(2, 3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="in-place"):
        F.dropout1d(leaf, 0.5, True, True)


def test_warnings_as_torch():
    e, t = ember.ones(2, 3, 4), torch.ones(2, 3, 4)
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d") as rec:
        F.dropout2d(e, 0.5)
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d") as trec:
        torch.nn.functional.dropout2d(t, 0.5)
    assert [str(w.message) for w in rec] == [str(w.message) for w in trec]
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        F.dropout2d(ember.ones(3, 4), 0.5)
    with pytest.warns(UserWarning, match="Received a 3-D input to dropout3d"):
        F.dropout3d(e, 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.dropout2d(ember.ones(2, 3, 4, 4), 0.5)
        F.dropout3d(ember.ones(3, 2, 2, 2), 0.5)


def test_bad_inputs_match_torch():
    for fn in ("dropout1d",):
        with pytest.raises(RuntimeError, match="Expected 2D or 3D input, but received a 4D"):
            getattr(F, fn)(ember.ones(1, 2, 3, 4))
        with pytest.raises(RuntimeError, match="Expected 2D or 3D input"):
            getattr(torch.nn.functional, fn)(torch.ones(1, 2, 3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="at least 2 dimensions"):
            F.dropout2d(ember.ones(3), 0.5)
        with pytest.raises(RuntimeError, match="at least 2 dimensions"):
            torch.nn.functional.dropout2d(torch.ones(3), 0.5)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        F.feature_alpha_dropout(ember.ones(3), 0.5, True)
    for fn in ("dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"):
        with pytest.raises(ValueError, match="but got -0.1"):
            getattr(F, fn)(ember.ones(2, 3, 4, 5), -0.1)


def test_top_level_aliases_as_torch():
    e, t = ember.ones(2, 4, 3, 3), torch.ones(2, 4, 3, 3)
    for name, args in (("pixel_shuffle", (2,)), ("pixel_unshuffle", (3,)),
                       ("channel_shuffle", (2,)), ("native_channel_shuffle", (4,))):
        assert tuple(getattr(ember, name)(e, *args).shape) == \
            tuple(getattr(torch, name)(t, *args).shape)
    for name in ("alpha_dropout", "feature_alpha_dropout", "feature_dropout"):
        assert getattr(ember, name)(e, 0.5, False) is e
        ember.manual_seed(0)
        y = getattr(ember, name)(e, 0.5, True)
        assert tuple(y.shape) == (2, 4, 3, 3) and not np.allclose(y.numpy(), 1.0)
    for name in ("alpha_dropout_", "feature_alpha_dropout_", "feature_dropout_", "dropout_"):
        x = ember.ones(2, 4, 3)
        assert getattr(ember, name)(x, 0.5, True) is x
    a = np.random.default_rng(0).standard_normal((2, 3, 5))
    w, b = np.ones(3), np.zeros(3)
    ye = ember.instance_norm(ember.tensor(a), ember.tensor(w), ember.tensor(b), None, None, True,
                             0.1, 1e-5, False)
    yt = torch.instance_norm(torch.tensor(a), torch.tensor(w), torch.tensor(b), None, None, True,
                             0.1, 1e-5, False)
    np.testing.assert_allclose(ye.numpy(), yt.numpy(), rtol=1e-6, atol=1e-8)
