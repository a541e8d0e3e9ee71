"""Gradients of the matrix products against PyTorch, finite differences and double backward."""
import pytest

from helpers import LAYOUTS, check_grad, gradcheck_op

CASES = {
    "mm": (lambda m, a, b: a.mm(b), [(3, 4), (4, 5)]),
    "matmul_2d": (lambda m, a, b: a @ b, [(3, 4), (4, 5)]),
    "matmul_dot": (lambda m, a, b: m.matmul(a, b), [(4,), (4,)]),
    "matmul_mv": (lambda m, a, b: m.matmul(a, b), [(3, 4), (4,)]),
    "matmul_vm": (lambda m, a, b: m.matmul(a, b), [(4,), (4, 5)]),
    "matmul_batched": (lambda m, a, b: a @ b, [(2, 3, 4), (4, 5)]),
    "matmul_broadcast": (lambda m, a, b: a @ b, [(2, 1, 3, 4), (5, 4, 2)]),
    "matmul_batched_vec": (lambda m, a, b: a @ b, [(4,), (2, 4, 3)]),
    "bmm": (lambda m, a, b: m.bmm(a, b), [(2, 3, 4), (2, 4, 5)]),
    "mv": (lambda m, a, b: m.mv(a, b), [(3, 4), (4,)]),
    "dot": (lambda m, a, b: m.dot(a, b), [(4,), (4,)]),
    "outer": (lambda m, a, b: m.outer(a, b), [(3,), (4,)]),
    "addmm": (lambda m, s, a, b: m.addmm(s, a, b), [(5,), (3, 4), (4, 5)]),
    "addmm_scaled": (lambda m, s, a, b: m.addmm(s, a, b, beta=0.5, alpha=2.0), [(3, 5), (3, 4), (4, 5)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_linalg_grad_matches_torch(name, layout):
    fn, shapes = CASES[name]
    check_grad(fn, shapes, layouts=[layout])


@pytest.mark.parametrize("name", sorted(CASES))
def test_linalg_gradcheck(name):
    fn, shapes = CASES[name]
    gradcheck_op(fn, shapes)


def test_linalg_only_needed_grads():
    check_grad(lambda m, a, b: a @ b, [(3, 4), (4, 5)], requires=[False, True])
    check_grad(lambda m, a, b: a @ b, [(3, 4), (4, 5)], requires=[True, False])


def test_matmul_double_backward():
    gradcheck_op(lambda m, a, b: m.autograd.grad([(a @ b).tanh()], [a], [m.ones(3, 5, dtype=m.float64)],
                                                 create_graph=True)[0], [(3, 4), (4, 5)])
