"""torch.frexp and torch.nextafter (src/ops/float_bits.cpp) against torch 2.13: values and
dtypes (int32 exponents), special values, broadcasting and promotion, out=, the in-place and
method forms, gradients, and the errors for integer inputs."""
import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_grad, check_op

SPECIAL = [0.0, -0.0, 1.0, -1.5, 1e-40, 3e38, float("inf"), float("-inf"), float("nan"), 0.75]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_frexp_values(dtype):
    check_op(lambda m, x: tuple(m.frexp(x)), [(3, 4)], dtypes=(dtype,), layouts=LAYOUTS, low=-1e3, high=1e3)
    check_op(lambda m, x: tuple(x.frexp()), [()], dtypes=(dtype,))
    check_op(lambda m, x: tuple(m.frexp(x)), [(0, 2)], dtypes=(dtype,))
    e = ember.frexp(ember.tensor(SPECIAL, dtype=getattr(ember, dtype)))
    t = torch.frexp(torch.tensor(SPECIAL, dtype=getattr(torch, dtype)))
    assert_same(e.mantissa, t.mantissa)
    finite = np.isfinite(np.array(SPECIAL))  # torch leaves the exponent of inf/NaN unspecified
    np.testing.assert_array_equal(e.exponent.numpy()[finite], t.exponent.numpy()[finite])


def test_frexp_grad_out_and_errors():
    check_grad(lambda m, x: m.frexp(x).mantissa, [(5,)])
    m_out, e_out = ember.empty(3), ember.empty(3, dtype=ember.int32)
    r = ember.frexp(ember.tensor([1.0, 8.0, 0.1]), out=(m_out, e_out))
    assert r.mantissa is m_out and e_out.tolist() == [1, 4, -3]
    with pytest.raises(RuntimeError, match="frexp\\(\\) only supports floating-point dtypes"):
        ember.frexp(ember.arange(3))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nextafter(dtype):
    check_op(lambda m, a, b: m.nextafter(a, b), [(3, 4), (4,)], dtypes=(dtype,), layouts=LAYOUTS)
    check_op(lambda m, a, b: a.nextafter(b), [(2, 1), (1, 3)], dtypes=(dtype,))
    vals = SPECIAL
    for a in vals:
        ea, ta = ember.tensor([a] * len(vals), dtype=getattr(ember, dtype)), \
            torch.tensor([a] * len(vals), dtype=getattr(torch, dtype))
        eb, tb = ember.tensor(vals, dtype=getattr(ember, dtype)), torch.tensor(vals, dtype=getattr(torch, dtype))
        assert_same(ember.nextafter(ea, eb), torch.nextafter(ta, tb), 0, 0)


def test_nextafter_promotion_inplace_grad_errors():
    a32, b64 = ember.ones(2), ember.full((2,), 2.0, dtype=ember.float64)
    assert ember.nextafter(a32, b64).dtype == ember.float64
    x = ember.ones(3)
    assert x.nextafter_(ember.zeros(3)) is x
    assert_same(x, torch.ones(3).nextafter_(torch.zeros(3)), 0, 0)
    check_grad(lambda m, a, b: m.nextafter(a, b), [(4,), (4,)])
    out = ember.empty(2)
    assert ember.nextafter(ember.ones(2), ember.zeros(2), out=out) is out
    with pytest.raises(NotImplementedError, match="nextafter"):
        ember.nextafter(ember.arange(3), ember.arange(3))
    with pytest.raises((RuntimeError, ValueError)):
        ember.nextafter(ember.ones(2), ember.ones(3))
