"""Autograd through complex tensors against torch 2.13 (PyTorch's convention: for a real loss
L of z = x + iy, z.grad = dL/dx + i dL/dy): the views (view_as_real/view_as_complex/real/imag),
complex/polar/abs/angle/conj, arithmetic (add/sub/mul/div/pow/exp/log/sqrt/reciprocal), sum/
mean and matmul, with real <-> complex promotion; backward() of a complex output refuses."""
import numpy as np
import pytest
import torch

import ember


def leaves(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if dtype.startswith("c") else 0)
    a = np.asarray(a).astype(dtype)
    e = ember.from_numpy(a.copy()).requires_grad_()
    t = torch.from_numpy(a.copy()).requires_grad_()
    return e, t


def check(fn, specs, rtol=1e-6, atol=1e-8):
    """fn(m, *xs) -> a real tensor; compares the loss and every input's gradient with torch."""
    es, ts = zip(*[leaves(s, d, i) for i, (s, d) in enumerate(specs)])
    le, lt = fn(ember, *es), fn(torch, *ts)
    assert not le.dtype.is_complex
    np.testing.assert_allclose(le.item(), lt.item(), rtol=rtol, atol=atol)
    le.backward()
    lt.backward()
    for i, (e, t) in enumerate(zip(es, ts)):
        assert e.grad is not None and e.grad.dtype.name == str(t.grad.dtype).split(".")[-1], i
        np.testing.assert_allclose(e.grad.numpy(), t.grad.resolve_conj().numpy(), rtol=rtol, atol=atol,
                                   err_msg=str(i))


C, R = "complex128", "float64"
CASES = {
    "abs": (lambda m, z: m.abs(z).sum(), [((3, 4), C)]),
    "view_as_real": (lambda m, z: (m.view_as_real(z) ** 3).sum(), [((3, 4), C)]),
    "view_as_complex": (lambda m, x: m.view_as_complex(x * 2).abs().sum(), [((3, 2), R)]),
    "real_imag": (lambda m, z: (z.real * z.imag.exp()).sum(), [((5,), C)]),
    "complex": (lambda m, a, b: (m.complex(a, b) ** 2).abs().sum(), [((3, 1), R), ((4,), R)]),
    "polar": (lambda m, a, b: (m.polar(a.abs() + 0.1, b) * (1 + 2j)).real.sum(), [((3,), R), ((3,), R)]),
    "angle": (lambda m, z: m.angle(z).sum(), [((4,), C)]),
    "conj": (lambda m, z: (z.conj() * (2 - 1j)).imag.sum(), [((4,), C)]),
    "conj_physical": (lambda m, z: (m.conj_physical(z) * z.exp()).real.sum(), [((4,), C)]),
    "add_sub": (lambda m, a, b: (m.add(a, b, alpha=2) - b * 1j).abs().sum(), [((2, 3), C), ((3,), C)]),
    "mul_div": (lambda m, a, b: (a * b / (b + 3)).abs().sum(), [((2, 3), C), ((2, 3), C)]),
    "real_times_complex": (lambda m, x, z: (x * z + x / z).abs().sum(), [((2, 3), R), ((3,), C)]),
    "pow": (lambda m, a, b: (a ** b).abs().sum(), [((3,), C), ((3,), C)]),
    "pow_scalar": (lambda m, z: (z ** 3 + z ** 2 + z ** 0.5).abs().sum(), [((4,), C)]),
    "pow_complex_scalar": (lambda m, z: (z ** (1 + 1j)).abs().sum(), [((4,), C)]),
    "exp_log_sqrt": (lambda m, z: (z.exp() + (z * z).log() + z.sqrt() + z.reciprocal()).abs().sum(), [((4,), C)]),
    "sin_cos_tanh": (lambda m, z: (z.sin() * z.cos() + z.tanh()).abs().sum(), [((4,), C)]),
    "sum_mean": (lambda m, z: z.sum(0).abs().sum() + z.mean(1).abs().sum() + z.sum().abs(), [((3, 4), C)]),
    "matmul": (lambda m, a, b: (a @ b).abs().sum(), [((3, 4), C), ((4, 2), C)]),
    "matmul_batched": (lambda m, a, b: (a @ b).abs().sum(), [((2, 3, 4), C), ((4,), C)]),
    "dot": (lambda m, a, b: (a @ b).abs(), [((4,), C), ((4,), C)]),
    "mv": (lambda m, a, b: (a @ b).abs().sum(), [((3, 4), C), ((4,), C)]),
    "real_to_complex_cast": (lambda m, x: (x.to(m.complex128) * 1j + x).exp().abs().sum(), [((3,), R)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_matches_torch(name):
    fn, specs = CASES[name]
    check(fn, specs)


def test_complex64_grad():
    check(lambda m, a, b: (a @ b * a.sum()).abs().sum(), [((3, 3), "complex64"), ((3, 3), "complex64")],
          rtol=1e-4, atol=1e-5)


def test_backward_needs_real_scalar():
    z = ember.tensor([1 + 1j], requires_grad=True)
    with pytest.raises(RuntimeError, match="real scalar"):
        z.sum().backward()
    g = ember.tensor([1 - 1j])
    (z * 2).backward(g)  # an explicit gradient is fine
    t = torch.tensor([1 + 1j], requires_grad=True)
    (t * 2).backward(torch.tensor([1 - 1j]))
    np.testing.assert_allclose(z.grad.numpy(), t.grad.numpy())


def test_inplace_on_real_view_with_grad_refused():
    z = ember.tensor([1 + 1j], requires_grad=True) * 1
    with pytest.raises(NotImplementedError, match="complex64"):
        z.real.mul_(2)
