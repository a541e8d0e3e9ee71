"""Gradients of view and join ops against PyTorch, on contiguous and strided inputs."""
import pytest

from helpers import LAYOUTS, check_grad, gradcheck_op

VIEW_CASES = {
    "view": (lambda m, x: x.reshape(12).view(4, 3) * 1, [(3, 4)]),
    "reshape": (lambda m, x: x.reshape(2, 6), [(3, 4)]),
    "flatten": (lambda m, x: x.flatten(), [(2, 3, 2)]),
    "unflatten": (lambda m, x: x.unflatten(1, (2, 2)), [(3, 4)]),
    "squeeze": (lambda m, x: x.squeeze(), [(3, 1, 4)]),
    "unsqueeze": (lambda m, x: x.unsqueeze(1), [(3, 4)]),
    "transpose": (lambda m, x: x.transpose(0, 1), [(3, 4)]),
    "t": (lambda m, x: x.t(), [(3, 4)]),
    "permute": (lambda m, x: x.permute(2, 0, 1), [(2, 3, 4)]),
    "expand": (lambda m, x: x.expand(2, 3, 4), [(3, 1)]),
    "narrow": (lambda m, x: x.narrow(1, 1, 2), [(3, 4)]),
    "select": (lambda m, x: x.select(1, 2), [(3, 4)]),
    "diagonal": (lambda m, x: x.diagonal(), [(3, 4)]),
    "split": (lambda m, x: x.split(2, 1), [(3, 5)]),
    "chunk": (lambda m, x: x.chunk(2, 0), [(3, 4)]),
    "unbind": (lambda m, x: x.unbind(1), [(3, 4)]),
    "cat": (lambda m, a, b: m.cat([a, b], 1), [(3, 2), (3, 4)]),
    "stack": (lambda m, a, b: m.stack([a, b], 0), [(3, 4), (3, 4)]),
    "clone": (lambda m, x: x.clone(), [(3, 4)]),
    "contiguous": (lambda m, x: x.contiguous(), [(3, 4)]),
    "double": (lambda m, x: x.double(), [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(VIEW_CASES))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_view_grad_matches_torch(name, layout):
    fn, shapes = VIEW_CASES[name]
    check_grad(fn, shapes, layouts=[layout])


@pytest.mark.parametrize("name", sorted(VIEW_CASES))
def test_view_gradcheck(name):
    fn, shapes = VIEW_CASES[name]
    gradcheck_op(lambda m, *xs: _first(fn(m, *xs)), shapes)


def _first(out):
    return out[0] if isinstance(out, (tuple, list)) else out
