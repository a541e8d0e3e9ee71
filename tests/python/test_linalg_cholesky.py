"""ember.linalg.cholesky(_ex) on LAPACK potrf, and torch's cholesky, cholesky_solve and
cholesky_inverse on it, against torch 2.13: values, Murray's gradient, finite differences,
batches, views, empty shapes and torch's errors."""
import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, check_grad, check_op, errors_of_both, gradcheck_op, make_inputs

pytestmark = pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")


def spd(m, a):
    n = a.shape[-1]
    return a @ a.mT + n * m.eye(n, dtype=a.dtype)


def factor(m, a):
    return m.linalg.cholesky(spd(m, a))


CASES = {
    "cholesky": (lambda m, a: m.linalg.cholesky(spd(m, a)), [(4, 4)]),
    "cholesky_batched": (lambda m, a: m.linalg.cholesky(spd(m, a)), [(2, 3, 3, 3)]),
    "cholesky_upper": (lambda m, a: m.linalg.cholesky(spd(m, a), upper=True), [(2, 3, 3)]),
    "cholesky_ex": (lambda m, a: m.linalg.cholesky_ex(spd(m, a)).L, [(3, 3)]),
    "cholesky_top": (lambda m, a: m.cholesky(spd(m, a)), [(3, 3)]),
    "cholesky_method_upper": (lambda m, a: spd(m, a).cholesky(upper=True), [(3, 3)]),
    # the lower triangle only is read: an unsymmetric input is torch's tril-based gradient
    "cholesky_lower_triangle": (lambda m, a: m.linalg.cholesky(a.tril() + 6 * m.eye(3, dtype=a.dtype)),
                                [(3, 3)]),
    "cholesky_solve": (lambda m, b, a: m.cholesky_solve(b, factor(m, a)), [(2, 3, 2), (3, 3)]),
    "cholesky_solve_upper": (lambda m, b, a: b.cholesky_solve(factor(m, a).mT, upper=True),
                             [(3, 2), (2, 3, 3)]),
    "cholesky_inverse": (lambda m, a: m.cholesky_inverse(factor(m, a)), [(3, 3)]),
    "cholesky_inverse_upper": (lambda m, a: factor(m, a).mT.cholesky_inverse(upper=True), [(4, 4)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_and_grad_match_torch(name):
    fn, shapes = CASES[name]
    check_grad(fn, shapes, rtol=1e-4, atol=1e-4)


# torch's cholesky gradient is the symmetric one (a perturbation of an SPD matrix stays
# symmetric), so finite differences on the unsymmetric input do not apply (as in torch).
@pytest.mark.parametrize("name", sorted(set(CASES) - {"cholesky_lower_triangle"}))
def test_gradcheck(name):
    fn, shapes = CASES[name]
    gradcheck_op(fn, shapes)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_views(layout):
    # the view is the SPD matrix itself, not a matrix it is built from
    def fn(m, a):
        return m.linalg.cholesky(a * 0.1 + 4 * m.eye(a.shape[-1], dtype=a.dtype))
    check_op(fn, [(2, 3, 3)], dtypes=("float32", "float64"), layouts=(layout,), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(0, 3, 3), (2, 0, 0), (0, 0)])
def test_empty(shape):
    check_op(lambda m, a: m.linalg.cholesky(a), [shape], dtypes=("float32", "float64"))
    check_op(lambda m, a: m.linalg.cholesky_ex(a), [shape], dtypes=("float64",))


def test_info_and_errors():
    bad = np.stack([np.eye(3), -np.eye(3), np.diag([1.0, 1.0, -1.0])])
    e = ember.linalg.cholesky_ex(ember.from_numpy(bad))
    t = torch.linalg.cholesky_ex(torch.from_numpy(bad))
    assert e.info.dtype == ember.int32 and e.info.tolist() == t.info.tolist() == [0, 1, 3]
    for a in (bad, bad[1]):
        e, t = errors_of_both(lambda m: m.linalg.cholesky(m.from_numpy(a)),
                              ember_exc=ember.linalg.LinAlgError)
        assert e == t
    with pytest.raises(ember.linalg.LinAlgError, match="Batch element 1"):
        ember.linalg.cholesky_ex(ember.from_numpy(bad), check_errors=True)


@pytest.mark.parametrize("fn,shapes,dtype", [
    (lambda m, a: m.linalg.cholesky(a), [(3, 4)], "float32"),
    (lambda m, a: m.linalg.cholesky(a), [(3,)], "float32"),
    (lambda m, a: m.linalg.cholesky(a), [(3, 3)], "int64"),
])
def test_bad_inputs(fn, shapes, dtype):
    es, ts = make_inputs(shapes, dtype)
    e, t = errors_of_both(fn, es, ts)
    assert e == t
