"""ember.nn.utils against torch.nn.utils: clipping, and parameters <-> one vector."""
import math

import numpy as np
import pytest
import torch

import ember


def grads_pair(shapes, seed=0, dtype="float32", scale=3.0):
    """The same parameters with the same .grad in both libraries."""
    rng = np.random.default_rng(seed)
    ours, theirs = [], []
    for shape in shapes:
        w = rng.standard_normal(shape).astype(dtype)
        g = (scale * rng.standard_normal(shape)).astype(dtype)
        e, t = ember.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
        e.grad, t.grad = ember.tensor(g), torch.tensor(g)
        ours.append(e)
        theirs.append(t)
    return ours, theirs


def same_grads(ours, theirs, rtol=1e-5):
    for e, t in zip(ours, theirs):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, math.inf, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])  # clips, and leaves as is
@pytest.mark.parametrize("shapes", [[(3, 4), (4,)], [(5,)], [(2, 3, 4), (), (0, 3)]])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_grad_norm_matches_torch(norm_type, max_norm, shapes, dtype):
    ours, theirs = grads_pair(shapes, dtype=dtype)
    nt = float(norm_type)
    if nt == math.inf and any(0 in s for s in shapes):  # the max of nothing: both refuse
        for mod, ps in ((ember, ours), (torch, theirs)):
            with pytest.raises(RuntimeError, match="infinity norm"):
                mod.nn.utils.clip_grad_norm_(ps, max_norm, norm_type=nt)
        return
    a = ember.nn.utils.clip_grad_norm_(ours, max_norm, norm_type=nt)
    b = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=nt)
    np.testing.assert_allclose(float(a), float(b), rtol=1e-5)
    same_grads(ours, theirs)


def test_clip_grad_norm_single_tensor_no_grads_and_nonfinite():
    ours, theirs = grads_pair([(6,)])
    a = ember.nn.utils.clip_grad_norm_(ours[0], 1.0)
    b = torch.nn.utils.clip_grad_norm_(theirs[0], 1.0)
    np.testing.assert_allclose(float(a), float(b), rtol=1e-6)
    same_grads(ours, theirs)
    p = ember.zeros(3, requires_grad=True)  # no .grad: norm 0, nothing to scale
    assert float(ember.nn.utils.clip_grad_norm_([p], 1.0)) == 0.0 and p.grad is None
    ours, _ = grads_pair([(3,)])
    ours[0].grad[0] = float("nan")
    with pytest.raises(RuntimeError, match="non-finite"):
        ember.nn.utils.clip_grad_norm_(ours, 1.0, error_if_nonfinite=True)


def test_clip_grad_norm_of_a_model():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    em = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(), ember.nn.Linear(8, 2))
    em.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((16, 4)).astype("float32")
    tm(torch.tensor(x)).pow(2).sum().backward()
    em(ember.tensor(x)).pow(2).sum().backward()
    a = ember.nn.utils.clip_grad_norm_(em.parameters(), 0.1)
    b = torch.nn.utils.clip_grad_norm_(tm.parameters(), 0.1)
    np.testing.assert_allclose(float(a), float(b), rtol=1e-5)
    same_grads(list(em.parameters()), list(tm.parameters()))


@pytest.mark.parametrize("clip", [0.5, 2])
def test_clip_grad_value_matches_torch(clip):
    ours, theirs = grads_pair([(3, 4), (5,)])
    ember.nn.utils.clip_grad_value_(ours, clip)
    torch.nn.utils.clip_grad_value_(theirs, clip)
    same_grads(ours, theirs)


def test_parameters_to_vector_and_back():
    ours, theirs = grads_pair([(2, 3), (4,), ()])
    v, w = ember.nn.utils.parameters_to_vector(ours), torch.nn.utils.parameters_to_vector(theirs)
    np.testing.assert_array_equal(v.numpy(), w.detach().numpy())
    new = np.arange(v.numel(), dtype="float32")
    ember.nn.utils.vector_to_parameters(ember.tensor(new), ours)
    torch.nn.utils.vector_to_parameters(torch.tensor(new), theirs)
    for e, t in zip(ours, theirs):
        np.testing.assert_array_equal(e.detach().numpy(), t.detach().numpy())
    with pytest.raises(ValueError, match="vector_to_parameters"):
        ember.nn.utils.vector_to_parameters(ember.zeros(3), ours)
    with pytest.raises(TypeError):
        ember.nn.utils.vector_to_parameters([1.0], ours)


# ---- get_total_norm / clip_grads_with_norm_ / clip_grad_norm (torch 2.6+) ------------------
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.5, math.inf])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_get_total_norm_then_clip_with_norm(norm_type, dtype):
    ours, theirs = grads_pair([(3, 4), (4,), ()], seed=3, dtype=dtype)
    en = ember.nn.utils.get_total_norm([p.grad for p in ours], norm_type)
    tn = torch.nn.utils.get_total_norm([p.grad for p in theirs], norm_type)
    assert en.shape == tn.shape == ()
    assert str(en.dtype).split(".")[-1] == str(tn.dtype).split(".")[-1]
    np.testing.assert_allclose(en.numpy(), tn.numpy(), rtol=1e-5)
    # clip by a norm computed elsewhere (here: twice the real one), a tensor or a number
    ember.nn.utils.clip_grads_with_norm_(ours, 1.0, en * 2)
    torch.nn.utils.clip_grads_with_norm_(theirs, 1.0, tn * 2)
    same_grads(ours, theirs)
    ember.nn.utils.clip_grads_with_norm_(ours[0], 0.5, 3.0)
    torch.nn.utils.clip_grads_with_norm_(theirs[0], 0.5, torch.tensor(3.0))
    same_grads(ours, theirs)


def test_get_total_norm_edges_like_torch():
    assert float(ember.nn.utils.get_total_norm([])) == float(torch.nn.utils.get_total_norm([])) == 0
    e = ember.nn.utils.get_total_norm(ember.tensor([3.0, 4.0]))  # one tensor
    assert float(e) == float(torch.nn.utils.get_total_norm(torch.tensor([3.0, 4.0]))) == 5.0
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients"):
            lib.nn.utils.get_total_norm([lib.tensor([1.0, float("nan")])], error_if_nonfinite=True)
    ours, theirs = grads_pair([(2,)])
    ember.nn.utils.clip_grads_with_norm_([ember.zeros(2, requires_grad=True)], 1.0, 5.0)  # no grads


def test_clip_grad_norm_deprecated_and_empty_generator():
    ours, theirs = grads_pair([(3, 4)], seed=5)
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
        en = ember.nn.utils.clip_grad_norm(ours, 0.5)
    with pytest.warns(FutureWarning):
        tn = torch.nn.utils.clip_grad_norm(theirs, 0.5)
    np.testing.assert_allclose(en.numpy(), tn.numpy(), rtol=1e-6)
    same_grads(ours, theirs)
    for lib in (ember, torch):
        with pytest.warns(UserWarning, match="empty generator"):
            lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)


def test_submodule_names_like_torch():
    import torch.nn.utils.clip_grad as tcg
    assert ember.nn.utils.clip_grad.__all__ == tcg.__all__
    assert ember.nn.utils.convert_parameters.parameters_to_vector is \
        ember.nn.utils.parameters_to_vector
