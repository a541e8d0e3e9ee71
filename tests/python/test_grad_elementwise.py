"""Gradients of every elementwise op in ops.def (the list comes from ember._C._op_info, so
an op added there is tested here without editing this file), against PyTorch and by finite
differences."""
import pytest

import ember
from helpers import LAYOUTS, check_grad, gradcheck_op

OPS = ember._C._op_info()
UNARY = [name for name, fam, kind in OPS if fam == "unary"]
BINARY = [name for name, fam, kind in OPS if fam == "binary" and kind != "B" and name != "floor_divide"]
# Inputs kept inside each op's domain (and away from kinks where finite differences lie).
POSITIVE = {"log", "log1p", "log2", "sqrt", "rsqrt", "reciprocal"}
NONDIFF = {"sign", "floor", "ceil", "round", "trunc", "floor_divide"}


def _range(name):
    return (0.5, 3.0) if name in POSITIVE else (-1.2, 1.2) if name == "tan" else (-3.0, 3.0)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_unary_grad_matches_torch(name, layout):
    low, high = _range(name)
    check_grad(lambda m, x: getattr(m, name)(x), [(3, 4)], layouts=[layout], low=low, high=high)


@pytest.mark.parametrize("name", [n for n in UNARY if n not in NONDIFF])
def test_unary_gradcheck(name):
    low, high = _range(name)
    gradcheck_op(lambda m, x: getattr(m, name)(x), [(2, 3)], low=low, high=high)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("shapes", [[(3, 4), (3, 4)], [(3, 1), (4,)], [(2, 3, 4), ()]])
def test_binary_grad_matches_torch(name, shapes):
    low, high = (0.5, 2.0) if name in ("pow", "remainder", "div", "atan2") else (-3.0, 3.0)
    check_grad(lambda m, a, b: getattr(m, name)(a, b), shapes, low=low, high=high)


@pytest.mark.parametrize("name", [n for n in BINARY if n not in NONDIFF and n != "remainder"])
def test_binary_gradcheck(name):
    gradcheck_op(lambda m, a, b: getattr(m, name)(a, b), [(2, 3), (3,)], low=0.5, high=2.0)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "pow", "radd", "rsub", "rmul",
                                "rtruediv", "rpow"])
def test_scalar_operand_grads(op):
    fns = {
        "add": lambda m, x: x + 2.5, "sub": lambda m, x: x - 2.5, "mul": lambda m, x: x * 2.5,
        "truediv": lambda m, x: x / 2.5, "pow": lambda m, x: x ** 3, "radd": lambda m, x: 2.5 + x,
        "rsub": lambda m, x: 2.5 - x, "rmul": lambda m, x: 2.5 * x, "rtruediv": lambda m, x: 2.5 / x,
        "rpow": lambda m, x: 2.5 ** x,
    }
    check_grad(fns[op], [(3, 4)], low=0.5, high=2.0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_clamp_where_masked_fill_grads(layout):
    check_grad(lambda m, x: x.clamp(min=-0.5, max=0.5), [(3, 4)], layouts=[layout])
    check_grad(lambda m, x: x.clamp(min=0), [(3, 4)], layouts=[layout])
    check_grad(lambda m, a, b: m.where(a > b, a, b), [(3, 4), (4,)], layouts=[layout])
    check_grad(lambda m, x: x.masked_fill(x > 0.5, 0.0), [(3, 4)], layouts=[layout])


def test_floor_divide_backward_raises_like_torch():
    x = ember.tensor([3.0, 4.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="floor_divide"):
        ember.floor_divide(x, 2.0).backward(ember.ones(2))


def test_clamp_gradient_passes_at_the_boundary():
    x = ember.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    x.clamp(min=0.0, max=1.0).backward(ember.ones(3))
    assert x.grad.tolist() == [0.0, 1.0, 1.0]


def test_mixed_dtype_grads_come_back_in_each_input_dtype():
    check_grad(lambda m, a, b: a * b.double(), [(3,), (3,)], dtypes=["float32"])
    check_grad(lambda m, a, b: m.maximum(a, b), [(3, 4), (3, 4)])


def test_double_backward_elementwise():
    for name in ["exp", "tanh", "sigmoid", "sin", "log", "sqrt"]:
        gradcheck_op(lambda m, x: m.autograd.grad([getattr(m, name)(x)], [x], [m.ones_like(x)],
                                                  create_graph=True)[0], [(3,)], low=0.5, high=2.0)
