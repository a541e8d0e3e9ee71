"""The complex <-> real views and what is built on them, against torch 2.13: view_as_real /
view_as_complex (shared storage, strides, torch's errors), .real/.imag (writable views),
torch.complex, torch.polar, angle, abs, conj/conj_physical(_), resolve_conj/neg, is_conj/neg,
adjoint, .H/.mH/.mT and the _copy forms."""
import numpy as np
import pytest
import torch

import ember
from helpers import assert_same


def pair(shape, dtype="complex64", seed=0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape))
    a = a.astype(np.complex64 if dtype == "complex64" else np.complex128)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_view_as_real_shares_storage(dt):
    e, t = pair((3, 4), dt)
    for view in (lambda x: x, lambda x: x.t(), lambda x: x[1:, ::2]):
        re, rt = ember.view_as_real(view(e)), torch.view_as_real(view(t))
        assert_same(re, rt)
        assert re.stride() == rt.stride() and re.storage_offset() == rt.storage_offset()
    r = ember.view_as_real(e)
    r[0, 0, 1] = 42.0
    torch.view_as_real(t)[0, 0, 1] = 42.0
    assert e[0, 0].item().imag == 42.0
    back = ember.view_as_complex(r)
    assert back.dtype == e.dtype and back.stride() == e.stride()
    assert_same(ember.view_as_complex(ember.view_as_real(e)[:, 1:]), torch.view_as_complex(torch.view_as_real(t)[:, 1:]))
    assert_same(ember.view_as_real_copy(e), torch.view_as_real_copy(t))
    x = ember.randn(3, 2, dtype=ember.float64)
    assert_same(ember.view_as_complex_copy(x), torch.view_as_complex_copy(torch.from_numpy(x.numpy())))


def test_view_errors_match_torch():
    cases = [lambda m: m.view_as_complex(m.ones(3, 3)), lambda m: m.view_as_complex(m.ones(2, 4)[:, ::2]),
             lambda m: m.view_as_complex(m.ones(3, 2, dtype=m.int64)),
             lambda m: m.view_as_complex(m.ones(4, 2)[:, :2].t().contiguous().t()),
             lambda m: m.view_as_complex(m.ones(3, 2).t()), lambda m: m.view_as_complex(m.ones(5)[1:3]),
             lambda m: m.view_as_real(m.ones(3)), lambda m: m.ones(3).imag,
             lambda m: m.complex(m.ones(2), m.ones(2, dtype=m.float64)),
             lambda m: m.complex(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)),
             lambda m: m.tensor([1j]) < m.tensor([2j]), lambda m: m.tensor([1j]).max(),
             lambda m: m.ones(2, 3, 4).H,
             lambda m: m.adjoint(m.ones(3))]
    for i, case in enumerate(cases):
        with pytest.raises(Exception) as et:
            case(torch)
        with pytest.raises(Exception) as ee:
            case(ember)
        assert type(ee.value) is type(et.value), (i, ee.value, et.value)


def test_unsupported_ops_name_the_op():
    z = ember.tensor([1j, 2])
    for name, fn in (("lt", lambda: z < z), ("max", lambda: z.max()), ("floor", lambda: z.floor()),
                     ("remainder", lambda: z % 2), ("cumsum", lambda: z.cumsum(0))):
        with pytest.raises(NotImplementedError, match=f"{name}.*complex64"):
            fn()


def test_real_imag_writable():
    e, t = pair((2, 3))
    for x in (e, t):
        x.real.mul_(2)
        x.imag[0] = 5.0
        x.real = x.real + 1  # the setter copies into the view
    assert_same(e, t)
    assert_same(e.real, t.real) and assert_same(e.imag, t.imag)
    assert e.real.stride() == t.real.stride() and e.imag.storage_offset() == t.imag.storage_offset()
    r = ember.ones(3)
    assert ember.real(r) is r or ember.real(r).data_ptr() == r.data_ptr()


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_complex_polar_angle_abs(dt):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 1)).astype(dt), rng.standard_normal((4,)).astype(dt)
    E = lambda x: ember.from_numpy(x.copy())
    T = lambda x: torch.from_numpy(x.copy())
    assert_same(ember.complex(E(a), E(b)), torch.complex(T(a), T(b)))
    assert_same(ember.polar(E(np.abs(a)), E(b)), torch.polar(T(np.abs(a)), T(b)), rtol=1e-5, atol=1e-6)
    z, zt = ember.complex(E(a), E(b)), torch.complex(T(a), T(b))
    assert_same(z.abs(), zt.abs())
    assert_same(ember.abs(z), torch.abs(zt))
    assert_same(z.angle(), zt.angle())
    assert_same(ember.angle(E(b)), torch.angle(T(b)))
    assert_same(ember.angle(ember.tensor([-2, 0, 3])), torch.angle(torch.tensor([-2, 0, 3])))
    out = ember.empty(3, 4, dtype=z.dtype)
    assert ember.complex(E(a), E(b), out=out) is out
    assert_same(out, zt)


def test_conj_family():
    e, t = pair((2, 3), "complex128")
    assert_same(e.conj(), t.conj().resolve_conj())
    assert_same(ember.conj_physical(e), torch.conj_physical(t))
    assert_same(e.clone().conj_physical_(), t.clone().conj_physical_())
    assert not e.conj().is_conj() and not ember.is_neg(e) and e.resolve_conj() is e and e.resolve_neg() is e
    r = ember.ones(2)
    assert r.conj() is r or r.conj().data_ptr() == r.data_ptr()
    assert_same(ember.conj_physical(r), torch.conj_physical(torch.ones(2)))
    assert_same(e.adjoint(), t.adjoint().resolve_conj())
    assert_same(e.H, t.H.resolve_conj())
    assert_same(e.mH, t.mH.resolve_conj())
    assert_same(e.mT, t.mT)
    b, bt = pair((2, 3, 4), "complex64")
    assert_same(b.mH, bt.mH.resolve_conj())
    assert_same(ember.ones(2, 3).H, torch.ones(2, 3).H)
