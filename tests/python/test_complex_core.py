"""complex64/complex128 tensors in ember's core, against torch 2.13: dtypes and promotion,
creation (tensor/zeros/ones/full/empty from Python complex numbers), printing, .item()/tolist(),
casts both ways (complex -> real warns and keeps the real part), NumPy interop, the data-movement
ops (clone/contiguous/copy_/indexing/cat/stack/reshape/permute/masked_fill/where), the
complex <-> real views and the ops that refuse complex with an error naming the op."""
import warnings

import numpy as np
import pytest
import torch

import ember
from helpers import assert_promotion_like_torch, assert_same

CDT = ["complex64", "complex128"]


def carr(shape, seed=0, dtype="complex64"):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return a.astype(np.complex64 if dtype == "complex64" else np.complex128)


def pair(shape, dtype="complex64", seed=0):
    a = carr(shape, seed, dtype)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def test_dtype_objects_and_promotion():
    for name in CDT:
        e, t = getattr(ember, name), getattr(torch, name)
        assert (e.is_complex, e.is_floating_point, e.itemsize) == (t.is_complex, t.is_floating_point, t.itemsize)
        assert e.to_real().name == str(t.to_real()).split(".")[-1]
        assert repr(e) == f"ember.{name}"
    assert ember.cfloat is ember.complex64 and ember.cdouble is ember.complex128
    assert ember.float64.to_complex() is ember.complex128
    names = ["bool", "uint8", "int32", "int64", "float32", "float64", "complex64", "complex128"]
    for a in names:
        for b in names:
            assert_promotion_like_torch(a, b)


@pytest.mark.parametrize("dt", CDT)
def test_random_creation(dt):
    """rand/randn (and the _like forms) of complex dtypes: torch's distributions (each part
    uniform in [0, 1); each part N(0, 1/2), so E|z|^2 = 1), one Generator's stream, a leaf."""
    n = 200_000
    ember.manual_seed(0)
    z = ember.randn(n, dtype=getattr(ember, dt))
    assert z.dtype == getattr(ember, dt) and z.shape == (n,) and z.is_contiguous()
    r, i = np.asarray(z.real), np.asarray(z.imag)
    for part in (r, i):
        assert abs(part.mean()) < 0.01 and abs(part.var() - 0.5) < 0.01
    assert abs(np.corrcoef(r, i)[0, 1]) < 0.01
    t = torch.randn(n, dtype=getattr(torch, dt))  # the same moments as torch's own draw
    assert abs(t.real.var().item() - part.var()) < 0.02
    u = ember.rand(3, 4, dtype=getattr(ember, dt))
    for part in (np.asarray(u.real), np.asarray(u.imag)):
        assert part.min() >= 0 and part.max() < 1
    assert ember.randn_like(u).dtype == u.dtype and ember.rand_like(z[:3]).shape == (3,)
    g = ember.Generator().manual_seed(7)
    a = ember.randn(5, dtype=getattr(ember, dt), generator=g)
    g.manual_seed(7)
    assert ember.equal(a, ember.randn(5, dtype=getattr(ember, dt), generator=g))
    w = ember.randn(3, dtype=getattr(ember, dt), requires_grad=True)
    assert w.is_leaf
    (w.abs() ** 2).sum().backward()
    np.testing.assert_allclose(np.asarray(w.grad), 2 * np.asarray(w.detach()), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="randn"):
        ember.randn(2, dtype=ember.int64)


@pytest.mark.parametrize("data", [[1 + 2j, 3 - 4j], 1.5 + 2j, [[1, 2j], [0.5, -1j]], [1j, True, 3]])
def test_tensor_infers_complex64(data):
    e, t = ember.tensor(data), torch.tensor(data)
    assert_same(e, t)
    assert e.is_complex() and ember.is_complex(e)
    assert repr(e).replace("ember", "torch") == repr(t)


def test_creation_functions():
    for dt in CDT:
        for fn in ("zeros", "ones"):
            assert_same(getattr(ember, fn)(2, 3, dtype=getattr(ember, dt)),
                        getattr(torch, fn)(2, 3, dtype=getattr(torch, dt)))
        assert_same(ember.full((2,), 1 - 2j, dtype=getattr(ember, dt)),
                    torch.full((2,), 1 - 2j, dtype=getattr(torch, dt)))
        assert ember.empty(4, dtype=getattr(ember, dt)).dtype == getattr(ember, dt)
        assert_same(ember.tensor([1, 2j], dtype=getattr(ember, dt)), torch.tensor([1, 2j], dtype=getattr(torch, dt)))
    assert_same(ember.full((3,), 2j), torch.full((3,), 2j))  # complex64 from the fill value
    assert_same(ember.zeros_like(ember.zeros(2, dtype=ember.cfloat)), torch.zeros_like(torch.zeros(2, dtype=torch.cfloat)))


@pytest.mark.parametrize("data", [[1 + 2j, 3 - 4j], [[0.5 + 1e-5j, 100 - 3j], [2, 1j]],
                                  [1e10 + 1j, 1], [-0.0 - 0.0j, 1.25 + 0j], 2.5 - 1j, [],
                                  [float("nan") + 1j, float("inf") - 1j]])
@pytest.mark.parametrize("dt", CDT)
def test_printing(data, dt):
    e = ember.tensor(data, dtype=getattr(ember, dt))
    t = torch.tensor(data, dtype=getattr(torch, dt))
    assert repr(e).replace("ember", "torch") == repr(t)


def test_printing_large_and_grad():
    e, t = pair((30, 40), "complex128", seed=3)
    assert repr(e).replace("ember", "torch") == repr(t)
    e.requires_grad_(), t.requires_grad_()
    assert repr(e).replace("ember", "torch") == repr(t)


def test_item_tolist_scalars():
    e, t = pair((2, 3))
    assert e.tolist() == t.tolist()
    assert e[1, 2].item() == t[1, 2].item() and isinstance(e[0, 0].item(), complex)
    assert complex(e[0, 1]) == complex(t[0, 1])


def test_casts_both_ways():
    e, t = pair((3, 4), "complex128")
    for dt in ("complex64", "complex128"):
        assert_same(e.to(getattr(ember, dt)), t.to(getattr(torch, dt)))
    assert_same(e.cfloat(), t.cfloat())
    assert_same(ember.arange(4).cdouble(), torch.arange(4).cdouble())
    for dt in ("float32", "float64", "int64", "bool"):
        r = ember.tensor([[1, 2.5], [-3, 0]]).to(getattr(ember, "float64"))
        tr = torch.tensor([[1, 2.5], [-3, 0]]).to(torch.float64)
        assert_same(r.to(ember.complex64), tr.to(torch.complex64))
        if dt == "bool":  # a test against zero, not a cast of the real part: no warning (torch)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                got = e.to(ember.bool)
        else:
            with pytest.warns(UserWarning, match="discards the imaginary part"):
                got = e.to(getattr(ember, dt))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = t.to(getattr(torch, dt))
        assert_same(got, want)
    assert_same(ember.tensor([0j, 1j, 0.5]).bool(), torch.tensor([0j, 1j, 0.5]).bool())


def test_numpy_interop():
    for dt in CDT:
        a = carr((3, 2), 1, dt)
        e = ember.from_numpy(a)
        assert e.dtype == getattr(ember, dt)
        e[0, 0] = 7 + 7j  # shares memory
        assert a[0, 0] == 7 + 7j
        n = e.numpy()
        assert n.dtype == a.dtype and np.shares_memory(n, a)
        np.testing.assert_array_equal(np.asarray(e.t()), a.T)
        assert_same(ember.as_tensor(a), torch.as_tensor(a))


def test_data_movement():
    e, t = pair((4, 5, 3), "complex128", seed=2)
    ops = [lambda m, x: x.clone(), lambda m, x: x.permute(2, 0, 1).contiguous(),
           lambda m, x: x[1:, ::2, 1], lambda m, x: x[[0, 3], :, [1, 2]],
           lambda m, x: x.reshape(5, 12), lambda m, x: x.transpose(0, 1).reshape(-1),
           lambda m, x: m.cat([x, x[:1]], 0), lambda m, x: m.stack([x, x], -1),
           lambda m, x: x.flatten(1), lambda m, x: x.unsqueeze(1).expand(4, 2, 5, 3).contiguous(),
           lambda m, x: x[x.real > 0], lambda m, x: x.masked_fill(x.real > 0, 2 - 1j),
           lambda m, x: m.where(x.imag > 0, x, m.zeros_like(x)), lambda m, x: x.flip(0),
           lambda m, x: m.index_select(x, 1, m.tensor([4, 0])), lambda m, x: x.unbind(1)[2],
           lambda m, x: m.gather(x, 2, m.tensor([[[0, 2]] * 5] * 4)), lambda m, x: x.roll(1, 0),
           lambda m, x: m.tensor(2j) * 0 + x.select(0, 1).T]
    for i, op in enumerate(ops):
        assert_same(op(ember, e), op(torch, t)), i


def test_setitem_copy_fill_zero():
    e, t = pair((3, 4))
    for m, x in ((ember, e), (torch, t)):
        x[0] = 1 - 1j
        x[1, 1:3] = m.tensor([5j, 6.0])
        x[2].fill_(2j)
        x[:, 3].zero_()
        x.index_put_((m.tensor([0, 0]), m.tensor([1, 1])), m.tensor([1j, 2.0], dtype=x.dtype), accumulate=True)
    assert_same(e, t)
    d, dt = ember.zeros(3, 4, dtype=ember.complex128), torch.zeros(3, 4, dtype=torch.complex128)
    d.copy_(e), dt.copy_(t)
    assert_same(d, dt)
    f, ft = ember.zeros(3, 4), torch.zeros(3, 4)
    f.copy_(ember.arange(4.0))
    ft.copy_(torch.arange(4.0))
    c, ct = ember.zeros(4, dtype=ember.cfloat), torch.zeros(4, dtype=torch.cfloat)
    assert_same(c.copy_(ember.arange(4.0)), ct.copy_(torch.arange(4.0)))


def test_fill_value_checks():
    with pytest.raises(RuntimeError, match="fill_.*cannot be converted to type float32"):
        ember.zeros(2).fill_(1 + 2j)
    with pytest.raises(RuntimeError):
        torch.zeros(2).fill_(1 + 2j)
    with pytest.raises(RuntimeError, match="add_: result type complex64 can't be cast"):
        ember.zeros(2).add_(1j)
    with pytest.raises(TypeError, match="not complex"):
        ember.tensor([1 + 2j], dtype=ember.float32)
    with pytest.raises(RuntimeError, match="cannot be converted to type double"):
        float(ember.tensor(1 + 2j))
    assert float(ember.tensor(2 + 0j)) == 2.0 and complex(ember.tensor(2.5)) == 2.5 + 0j


def test_save_load_roundtrip(tmp_path):
    e, t = pair((2, 3), "complex128")
    p = tmp_path / "z.pt"
    ember.save({"z": e, "w": e.cfloat()}, p)
    back = torch.load(p)
    assert_same(ember.tensor(back["z"].numpy()), t)
    torch.save({"z": t}, tmp_path / "t.pt")
    assert_same(ember.load(tmp_path / "t.pt")["z"], t)
