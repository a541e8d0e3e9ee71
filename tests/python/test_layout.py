"""Note [Output layout]: elementwise results of permuted (transposed) inputs take their
layout, as torch's do, and in-place ops on permuted tensors walk memory in order. Values
and strides against torch."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(3)
A = RNG.standard_normal((4, 5, 6)).astype(np.float32)
B = RNG.standard_normal((4, 5, 6)).astype(np.float32)

OPS = {
    "add": lambda m, a, b: a + b,
    "mul_scalar": lambda m, a, b: a * 2.5,
    "exp": lambda m, a, b: a.exp(),
    "neg": lambda m, a, b: -a,
    "lt": lambda m, a, b: a < b,
    "where": lambda m, a, b: m.where(a > 0, a, b),
    "clamp": lambda m, a, b: a.clamp(min=-0.5, max=0.5),
    "relu": lambda m, a, b: m.relu(a),
    "to_double": lambda m, a, b: a.double(),
    "masked_fill": lambda m, a, b: a.masked_fill(b > 0, 7.0),  # contiguous in torch too
}
VIEWS = {
    "t": lambda x: x.transpose(0, 2),
    "permute": lambda x: x.permute(1, 2, 0),
    "contiguous": lambda x: x,
    "sliced": lambda x: x[:, ::2],  # not dense: the result is contiguous, as in torch
}


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("op", sorted(OPS))
def test_result_layout_and_values_match_torch(op, view):
    f, v = OPS[op], VIEWS[view]
    e = f(ember, v(ember.from_numpy(A.copy())), v(ember.from_numpy(B.copy())))
    t = f(torch, v(torch.from_numpy(A.copy())), v(torch.from_numpy(B.copy())))
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6)  # exp: 1 ulp apart
    assert e.stride() == t.stride()


def test_mixed_layouts_give_right_values():
    """A transposed and a contiguous operand: values as torch (the layout may differ)."""
    a = ember.from_numpy(A.copy()).transpose(0, 2)
    b = ember.from_numpy(np.ascontiguousarray(A.transpose(2, 1, 0)))
    np.testing.assert_array_equal((a + b).numpy(), 2 * A.transpose(2, 1, 0))
    np.testing.assert_array_equal((a + b.contiguous()).numpy(), (b + a).numpy())


def test_inplace_on_permuted_views_write_the_right_elements():
    base = ember.from_numpy(A.copy())
    base.transpose(0, 2).mul_(2.0)
    np.testing.assert_array_equal(base.numpy(), 2 * A)
    base.permute(2, 0, 1).zero_()
    assert not base.numpy().any()
    base.transpose(0, 1).copy_(ember.from_numpy(B.transpose(1, 0, 2).copy()))
    np.testing.assert_array_equal(base.numpy(), B)


def test_copy_onto_the_same_view_is_a_no_op_that_bumps_the_version():
    x = ember.from_numpy(A.copy())
    v0 = x._version
    x.t().copy_(x.t()) if x.dim() == 2 else x.transpose(0, 2).copy_(x.transpose(0, 2))
    np.testing.assert_array_equal(x.numpy(), A)
    assert x._version == v0 + 1


def test_gradients_through_permuted_inputs():
    for m in (ember, torch):
        x = m.tensor(A.copy(), requires_grad=True)
        y = (x.transpose(0, 2).exp() * x.transpose(0, 2)).sum()
        y.backward()
        if m is ember:
            ge = x.grad.numpy().copy()
        else:
            np.testing.assert_allclose(ge, x.grad.numpy(), rtol=1e-6)


def test_nonzero_and_masked_select_keep_logical_order():
    x = ember.from_numpy(A.copy()).transpose(0, 2)
    t = torch.from_numpy(A.copy()).transpose(0, 2)
    np.testing.assert_array_equal(x.nonzero().numpy(), t.nonzero().numpy())
    np.testing.assert_array_equal(x[x > 0].numpy(), t[t > 0].numpy())


def test_empty_from_numpy_accepts_inplace_ops():
    """NumPy gives empty arrays zero strides: nothing is written, so nothing overlaps."""
    z = ember.from_numpy(np.zeros((0, 3), np.float32))
    z.add_(1.0)
    z.zero_()
    assert z.shape == (0, 3)
