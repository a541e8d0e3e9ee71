"""ember.nn.utils.parametrize, parametrizations.weight_norm/spectral_norm and the older
hook-based weight_norm/spectral_norm, against torch 2.13: the same state_dict keys, torch's
state_dicts load into ember, forward values and gradients match over several steps."""
import warnings

import numpy as np
import pytest
import torch

import ember
from helpers import to_numpy

EP, TP = ember.nn.utils.parametrize, torch.nn.utils.parametrize


def _load_from_torch(emod, tmod):
    emod.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                          for k, v in tmod.state_dict().items()})


def _close(e, t, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(to_numpy(e), t.detach().numpy(), rtol=rtol, atol=atol)


def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()
    return Symmetric()


def _scale(lib, k):
    class Scale(lib.nn.Module):
        def forward(self, X):
            return X * k

        def right_inverse(self, A):
            return A / k
    return Scale()


def _linear_pair(n_in=4, n_out=4, seed=0):
    torch.manual_seed(seed)
    t = torch.nn.Linear(n_in, n_out)
    e = ember.nn.Linear(n_in, n_out)
    _load_from_torch(e, t)
    return e, t


def _forward_backward(e, t, x):
    ey, ty = e(ember.from_numpy(x)), t(torch.from_numpy(x))
    _close(ey, ty)
    (ey ** 2).sum().backward()
    (ty ** 2).sum().backward()
    for (n, ep), (tn, tp) in zip(e.named_parameters(), t.named_parameters()):
        assert n == tn
        _close(ep.grad, tp.grad, rtol=1e-4, atol=1e-5)


def test_register_chain_state_dict_and_gradients():
    e, t = _linear_pair()
    for mod, lib in ((e, ember), (t, torch)):
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", _symmetric(lib))
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", _scale(lib, 2.0))
    assert type(e).__name__ == type(t).__name__ == "ParametrizedLinear"
    assert list(e.state_dict()) == list(t.state_dict())
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    _close(e.weight, t.weight)
    assert EP.is_parametrized(e) and EP.is_parametrized(e, "weight")
    assert not EP.is_parametrized(e, "bias")
    assert EP.type_before_parametrizations(e) is ember.nn.Linear
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    _forward_backward(e, t, x)
    # assigning sets the original through right_inverse
    a = np.random.default_rng(2).standard_normal((4, 4)).astype(np.float32)
    e.weight = ember.from_numpy(a)
    t.weight = torch.from_numpy(a)
    _close(e.parametrizations.weight.original, t.parametrizations.weight.original)
    _close(e.weight, t.weight)
    # torch's state_dict loads into the parametrized ember module
    e2, _ = _linear_pair(seed=5)
    EP.register_parametrization(e2, "weight", _symmetric(ember))
    EP.register_parametrization(e2, "weight", _scale(ember, 2.0))
    _load_from_torch(e2, t)
    _close(e2.weight, t.weight)


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations(leave):
    e, t = _linear_pair(seed=3)
    for mod, lib in ((e, ember), (t, torch)):
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", _symmetric(lib))
        lib.nn.utils.parametrize.remove_parametrizations(mod, "weight", leave_parametrized=leave)
    assert type(e) is ember.nn.Linear and not hasattr(e, "parametrizations")
    assert isinstance(e.weight, ember.nn.Parameter)
    assert list(e.state_dict()) == list(t.state_dict()) == ["bias", "weight"]
    _close(e.weight, t.weight)


def test_buffer_and_multi_tensor_right_inverse():
    class Split(ember.nn.Module):
        def forward(self, a, b):
            return a + b

        def right_inverse(self, X):
            return X / 2, X / 2
    m = ember.nn.Module()
    m.register_buffer("buf", ember.arange(4.0))
    EP.register_parametrization(m, "buf", Split())
    assert list(m.state_dict()) == ["parametrizations.buf.original0",
                                    "parametrizations.buf.original1"]
    np.testing.assert_array_equal(to_numpy(m.buf), [0, 1, 2, 3])
    m.buf = ember.ones(4)
    np.testing.assert_array_equal(to_numpy(m.parametrizations.buf.original0), [0.5] * 4)
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        EP.remove_parametrizations(m, "buf", leave_parametrized=False)
    EP.remove_parametrizations(m, "buf")
    np.testing.assert_array_equal(to_numpy(m.buf), [1, 1, 1, 1])


def test_cached_computes_once():
    calls = []

    class Count(ember.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 1
    e, _ = _linear_pair()
    EP.register_parametrization(e, "weight", Count())
    calls.clear()
    with EP.cached():
        w1, w2 = e.weight, e.weight
        assert w1 is w2
    e.weight
    assert len(calls) == 2


def test_transfer_and_deepcopy_and_pickle():
    import copy
    import pickle
    e, _ = _linear_pair()
    EP.register_parametrization(e, "weight", _symmetric(ember))
    e2 = ember.nn.Linear(4, 4)
    EP.transfer_parametrizations_and_params(e, e2)
    assert e2.parametrizations.weight.original is e.parametrizations.weight.original
    c = copy.deepcopy(e)
    _close(c.weight, torch.from_numpy(to_numpy(e.weight)))
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only"):
        pickle.dumps(e)


def test_errors_like_torch():
    class Shrink:
        pass
    for lib in (ember, torch):
        P = lib.nn.utils.parametrize

        class Drop(lib.nn.Module):
            def forward(self, X):
                return X[:-1]

        class ToDouble(lib.nn.Module):
            def forward(self, X):
                return X.double()
        m = lib.nn.Linear(3, 3)
        with pytest.raises(ValueError, match=r"may not change the shape[\s\S]*unparametrized shape"):
            P.register_parametrization(m, "weight", Drop())
        with pytest.raises(ValueError, match="may not change the dtype"):
            P.register_parametrization(m, "weight", ToDouble())
        with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a "
                                             "parametrized element with name 'nope'"):
            P.register_parametrization(m, "nope", Drop())
        with pytest.raises(ValueError, match="does not have a parametrization on weight"):
            P.remove_parametrizations(m, "weight")
        P.register_parametrization(m, "weight", Drop(), unsafe=True)
        assert tuple(m.weight.shape) == (2, 3)
        m2 = lib.nn.Linear(3, 3)
        P.register_parametrization(m2, "weight", _symmetric(lib))
        with pytest.raises(ValueError, match=r"module.weight.shape"):
            P.register_parametrization(m2, "weight", Drop())
        with pytest.raises(ValueError, match="requires one or more modules"):
            P.ParametrizationList([], lib.zeros(2))


# ---- parametrizations.weight_norm / spectral_norm ----------------------------------------
@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_parametrization(dim):
    e, t = _linear_pair(5, 3, seed=7)
    ember.nn.utils.parametrizations.weight_norm(e, dim=dim)
    torch.nn.utils.parametrizations.weight_norm(t, dim=dim)
    assert list(e.state_dict()) == list(t.state_dict())
    for k in t.state_dict():
        assert tuple(e.state_dict()[k].shape) == tuple(t.state_dict()[k].shape), k
    _load_from_torch(e, t)
    x = np.random.default_rng(2).standard_normal((4, 5)).astype(np.float32)
    _forward_backward(e, t, x)


def test_weight_norm_loads_old_state_dict_keys():
    _, t = _linear_pair(5, 3, seed=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        torch.nn.utils.weight_norm(t)
    assert set(t.state_dict()) == {"weight_g", "weight_v", "bias"}
    e = ember.nn.utils.parametrizations.weight_norm(ember.nn.Linear(5, 3))
    _load_from_torch(e, t)
    _close(e.weight, t.weight)


@pytest.mark.parametrize("kind,args", [("Linear", (5, 4)), ("Conv1d", (3, 4, 3)),
                                       ("ConvTranspose1d", (3, 4, 3))])
def test_spectral_norm_parametrization_power_iterations(kind, args):
    torch.manual_seed(0)
    t = torch.nn.utils.parametrizations.spectral_norm(getattr(torch.nn, kind)(*args),
                                                      n_power_iterations=2)
    e = ember.nn.utils.parametrizations.spectral_norm(getattr(ember.nn, kind)(*args),
                                                      n_power_iterations=2)
    assert list(e.state_dict()) == list(t.state_dict())
    _load_from_torch(e, t)  # the weights and the u, v vectors
    shape = (2, 5) if kind == "Linear" else (2, 3, 6)
    rng = np.random.default_rng(3)
    for step in range(3):  # training mode: each forward runs the power iterations
        x = rng.standard_normal(shape).astype(np.float32)
        for m in (e, t):
            m.zero_grad()
        _forward_backward(e, t, x)
        _close(e.parametrizations.weight[0]._u, t.parametrizations.weight[0]._u)
    e.eval()
    t.eval()
    x = rng.standard_normal(shape).astype(np.float32)
    _close(e(ember.from_numpy(x)), t(torch.from_numpy(x)))


def test_spectral_norm_parametrization_errors_like_torch():
    for lib in (ember, torch):
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
            lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)
        with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range "
                                              r"of \[-2, 1\] but got 2\)"):
            lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), dim=2)
        with pytest.raises(ValueError, match="has no parameter or buffer with name 'w'"):
            lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), name="w")


# ---- the older hook forms ----------------------------------------------------------------
@pytest.mark.parametrize("dim", [0, None])
def test_old_weight_norm(dim):
    e, t = _linear_pair(5, 3, seed=9)
    with pytest.warns(FutureWarning, match="weight_norm` is deprecated"):
        ember.nn.utils.weight_norm(e, dim=dim)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        torch.nn.utils.weight_norm(t, dim=dim)
    assert list(e.state_dict()) == list(t.state_dict())
    x = np.random.default_rng(4).standard_normal((2, 5)).astype(np.float32)
    _forward_backward(e, t, x)
    for lib, m in ((ember, e), (torch, t)):
        with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                lib.nn.utils.weight_norm(m, dim=dim)
        lib.nn.utils.remove_weight_norm(m)
        with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
            lib.nn.utils.remove_weight_norm(m)
    assert list(e.state_dict()) == list(t.state_dict()) == ["bias", "weight"]
    _close(e.weight, t.weight)


def test_old_spectral_norm():
    torch.manual_seed(1)
    t = torch.nn.utils.spectral_norm(torch.nn.Conv1d(3, 4, 3))
    e = ember.nn.utils.spectral_norm(ember.nn.Conv1d(3, 4, 3))
    assert list(e.state_dict()) == list(t.state_dict())
    _load_from_torch(e, t)
    rng = np.random.default_rng(5)
    for _ in range(3):
        for m in (e, t):
            m.zero_grad()
        _forward_backward(e, t, rng.standard_normal((2, 3, 7)).astype(np.float32))
        _close(e.weight_u, t.weight_u)
    for lib, m in ((ember, e), (torch, t)):
        with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
            lib.nn.utils.spectral_norm(m)
        lib.nn.utils.remove_spectral_norm(m)
        with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
            lib.nn.utils.remove_spectral_norm(m)
    assert list(e.state_dict()) == list(t.state_dict())
    _close(e.weight, t.weight)
    for lib in (ember, torch):
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
            lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)


# ---- parametrizations.orthogonal -----------------------------------------------------------
@pytest.mark.parametrize("shape,omap", [((4, 4), None), ((4, 4), "cayley"), ((5, 3), "cayley"),
                                        ((3, 5), "matrix_exp"), ((5, 3), "matrix_exp")])
def test_orthogonal_matches_torch(shape, omap):
    n_out, n_in = shape
    e, t = _linear_pair(n_in, n_out, seed=11)
    ember.nn.utils.parametrizations.orthogonal(e, orthogonal_map=omap)
    torch.nn.utils.parametrizations.orthogonal(t, orthogonal_map=omap)
    assert list(e.state_dict()) == list(t.state_dict())
    if n_out == n_in:  # base = the weight made orthogonal by QR: the same in both
        _close(e.weight, t.weight, rtol=1e-4, atol=1e-5)
    w = e.weight.detach()
    small = w.shape[-1] if w.shape[-2] >= w.shape[-1] else w.shape[-2]
    np.testing.assert_allclose(to_numpy(w.T @ w if w.shape[0] >= w.shape[1] else w @ w.T),
                               np.eye(small), atol=1e-5)
    # the same base (torch's random completion for rectangular weights) and a random X
    x = np.random.default_rng(12).standard_normal(tuple(t.parametrizations.weight.original.shape))
    with torch.no_grad():
        t.parametrizations.weight.original.copy_(torch.from_numpy(x.astype(np.float32) * 0.3))
    _load_from_torch(e, t)
    _close(e.weight, t.weight, rtol=1e-4, atol=1e-5)
    xin = np.random.default_rng(13).standard_normal((3, n_in)).astype(np.float32)
    _forward_backward(e, t, xin)


def test_orthogonal_assignment_and_errors_like_torch():
    a = np.linalg.qr(np.random.default_rng(14).standard_normal((4, 4)))[0].astype(np.float32)
    for lib in (ember, torch):
        O = lib.nn.utils.parametrizations.orthogonal
        m = O(lib.nn.Linear(4, 4))
        m.weight = lib.from_numpy(a.copy())  # an orthogonal matrix is taken as the base
        np.testing.assert_allclose(to_numpy(m.weight) if lib is ember else m.weight.detach().numpy(),
                                   a, atol=1e-5)
        with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a "
                                             "tensor of 1 dimensions."):
            O(lib.nn.Linear(4, 4), name="bias")
        with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", '
                                             '"cayley", "householder". Got: exp'):
            O(lib.nn.Linear(4, 4), orthogonal_map="exp")
        with pytest.raises(ValueError, match="has no parameter or buffer with name 'w'"):
            O(lib.nn.Linear(4, 4), name="w")
        m = O(lib.nn.Linear(4, 4), orthogonal_map="cayley", use_trivialization=False)
        with pytest.raises(NotImplementedError, match="use_trivialization=False"):
            m.weight = lib.from_numpy(a.copy())
        with pytest.raises(ValueError, match=r"Expected a matrix or batch of matrices of shape"):
            m.parametrizations.weight[0].right_inverse(lib.zeros(3, 3))
    with pytest.raises(NotImplementedError, match="householder_product"):
        ember.nn.utils.parametrizations.orthogonal(ember.nn.Linear(3, 5))  # the default map
