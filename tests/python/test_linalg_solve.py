"""ember.linalg on LU and triangular solves (solve, inv, inv_ex, det, slogdet, logdet,
solve_triangular and torch's top-level aliases) against torch 2.13: values, gradients,
finite differences, batches, views, empty shapes and torch's errors."""
import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, check_grad, check_op, gradcheck_op, make_inputs

pytestmark = pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated")


def wc(m, a):
    """A well-conditioned matrix from a (uniform in [-2, 2]): a + 2n I."""
    n = a.shape[-1]
    return a + 2 * n * m.eye(n, dtype=a.dtype)


def spd(m, a):
    n = a.shape[-1]
    return a @ a.mT + n * m.eye(n, dtype=a.dtype)


CASES = {
    "solve": (lambda m, a, b: m.linalg.solve(wc(m, a), b), [(3, 3), (3, 2)]),
    "solve_batched_broadcast": (lambda m, a, b: m.linalg.solve(wc(m, a), b), [(2, 1, 3, 3), (4, 3, 2)]),
    "solve_vector": (lambda m, a, b: m.linalg.solve(wc(m, a), b), [(2, 3, 3), (2, 3)]),
    "solve_vector_1d": (lambda m, a, b: m.linalg.solve(wc(m, a), b), [(4, 4), (4,)]),
    "solve_right": (lambda m, a, b: m.linalg.solve(wc(m, a), b, left=False), [(2, 3, 3), (2, 4, 3)]),
    "inv": (lambda m, a: m.linalg.inv(wc(m, a)), [(2, 4, 4)]),
    "inv_ex": (lambda m, a: m.linalg.inv_ex(wc(m, a))[0], [(3, 3)]),
    "inverse": (lambda m, a: m.inverse(wc(m, a)), [(3, 3)]),
    "inverse_method": (lambda m, a: wc(m, a).inverse(), [(2, 3, 3)]),
    "det": (lambda m, a: m.linalg.det(a), [(2, 3, 3)]),
    "det_top": (lambda m, a: m.det(a), [(4, 4)]),
    "det_method": (lambda m, a: a.det(), [(3, 3)]),
    "slogdet": (lambda m, a: m.linalg.slogdet(a), [(2, 3, 3)]),
    "slogdet_top": (lambda m, a: m.slogdet(a), [(4, 4)]),
    "logdet": (lambda m, a: m.logdet(spd(m, a)), [(2, 3, 3)]),
    "solve_triangular_upper": (lambda m, a, b: m.linalg.solve_triangular(wc(m, a).triu(), b, upper=True),
                               [(2, 3, 3), (2, 3, 4)]),
    "solve_triangular_lower": (lambda m, a, b: m.linalg.solve_triangular(wc(m, a).tril(), b, upper=False),
                               [(3, 3), (2, 3, 2)]),
    "solve_triangular_right": (lambda m, a, b: m.linalg.solve_triangular(
        wc(m, a).triu(), b, upper=True, left=False), [(3, 3), (2, 3)]),
    "solve_triangular_unit": (lambda m, a, b: m.linalg.solve_triangular(
        a.tril(), b, upper=False, unitriangular=True), [(2, 3, 3), (3, 2)]),
    "triangular_solve_old": (lambda m, b, a: m.triangular_solve(b, wc(m, a).triu()).solution,
                             [(3, 2), (3, 3)]),
    "triangular_solve_old_t": (lambda m, b, a: m.triangular_solve(b, wc(m, a).tril(), upper=False,
                                                                  transpose=True)[0], [(3, 2), (3, 3)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_and_grad_match_torch(name):
    fn, shapes = CASES[name]
    check_grad(fn, shapes, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", ["solve", "inv", "det", "slogdet", "solve_triangular_upper"])
def test_views(name, layout):
    fn, shapes = CASES[name]
    check_op(fn, shapes, dtypes=("float32", "float64"), layouts=(layout,), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, shapes = CASES[name]
    gradcheck_op(fn, shapes)


def test_second_order():
    # d/dA of <grad of inv, v> goes through inv's backward, itself differentiable.
    for m in (ember, torch):
        a = m.tensor(np.eye(3) * 4 + np.arange(9).reshape(3, 3) / 10, requires_grad=True)
        (g,) = m.autograd.grad(m.linalg.inv(a).sum(), a, create_graph=True)
        (gg,) = m.autograd.grad((g * g).sum(), a)
        if m is ember:
            e = gg.numpy()
        else:
            np.testing.assert_allclose(e, gg.numpy(), rtol=1e-9)


@pytest.mark.parametrize("fn,shape", [
    (lambda m, a: m.linalg.inv(a), (0, 3, 3)), (lambda m, a: m.linalg.inv(a), (2, 0, 0)),
    (lambda m, a: m.linalg.det(a), (0, 0)), (lambda m, a: m.linalg.det(a), (3, 0, 0)),
    (lambda m, a: m.linalg.slogdet(a), (2, 0, 0)),
    (lambda m, a: m.linalg.solve(a, a), (0, 2, 2)), (lambda m, a: m.linalg.solve(a, a), (0, 0)),
])
def test_empty(fn, shape):
    check_op(fn, [shape], dtypes=("float32", "float64"))


def test_singular_values():
    for m in (ember, torch):
        z = m.zeros(2, 3, 3, dtype=m.float64)
        sign, logabs = m.linalg.slogdet(z)
        det = m.linalg.det(z)
        if m is ember:
            got = (sign.numpy(), logabs.numpy(), det.numpy())
        else:
            for x, y in zip(got, (sign.numpy(), logabs.numpy(), det.numpy())):
                np.testing.assert_array_equal(x, y)
    info = ember.linalg.inv_ex(ember.zeros(2, 3, 3)).info
    assert info.dtype == ember.int32 and info.tolist() == [1, 1]
    assert ember.linalg.inv_ex(ember.eye(3)).info.tolist() == 0


def _same_error(fn, *shapes_or_tensors, dtype="float32"):
    es, ts = make_inputs(shapes_or_tensors, dtype)
    with pytest.raises(Exception) as texc:
        fn(torch, *ts)
    with pytest.raises(Exception) as eexc:
        fn(ember, *es)
    assert isinstance(eexc.value, RuntimeError) == isinstance(texc.value, RuntimeError)
    assert str(eexc.value) == str(texc.value)
    return eexc.value


@pytest.mark.parametrize("fn,shapes", [
    (lambda m, a: m.linalg.inv(a), [(3, 4)]),
    (lambda m, a: m.linalg.det(a), [(3,)]),
    (lambda m, a: m.linalg.slogdet(a), [(2, 3, 4)]),
    (lambda m, a, b: m.linalg.solve(a, b), [(3, 3), (4,)]),
    (lambda m, a, b: m.linalg.solve(a, b), [(3, 4), (3,)]),
    (lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True), [(3, 3), (4, 2)]),
    (lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True, left=False), [(3, 3), (2, 4)]),
])
def test_bad_shapes(fn, shapes):
    _same_error(fn, *shapes)


def test_bad_dtypes():
    _same_error(lambda m, a: m.linalg.det(a), (3, 3), dtype="int64")
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match="same dtype"):
            m.linalg.solve(m.eye(3), m.ones(3, 2, dtype=m.float64))


@pytest.mark.parametrize("op", ["solve", "inv"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_singular_raises_linalg_error(op, shape):
    def fn(m, a):
        a = a * 0
        return m.linalg.solve(a, a) if op == "solve" else m.linalg.inv(a)
    err = _same_error(fn, shape)
    assert isinstance(err, ember.linalg.LinAlgError) and isinstance(err, RuntimeError)


def test_inputs_untouched_and_result_writable():
    a = ember.tensor([[4.0, 1.0], [2.0, 3.0]])
    b = ember.tensor([[1.0], [2.0]])
    before = (a.clone(), b.clone())
    x = ember.linalg.solve(a, b)
    assert ember.equal(a, before[0]) and ember.equal(b, before[1])
    x.add_(1)  # the result is its own storage
    assert ember.equal(a, before[0]) and ember.equal(b, before[1])
