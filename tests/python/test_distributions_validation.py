"""Argument and sample validation (validate_args, set_default_validate_args) with torch's
exceptions and messages, and the REINFORCE use of Categorical (pytorch/examples)."""
import numpy as np
import pytest
import torch
import torch.distributions as TD

import ember
import ember.distributions as ED
from test_distributions_cases import close, e, tt


def _message(fn, D):
    with pytest.raises(Exception) as info:
        fn(D)
    return info.type, str(info.value)


def _same_error(fn):
    """fn(D) raises the same exception type in both, with the same message up to the printed
    tensor (which spells the library's name)."""
    te, tm = _message(fn, TD)
    ee, em = _message(fn, ED)
    assert ee is te, (ee, te, em)
    cut = lambda m: m.split("\n")[0].replace("torch", "T").replace("ember", "T")  # noqa: E731
    assert cut(em) == cut(tm)
    return em


def _T(D):
    return ember if D is ED else torch


BAD_ARGS = {
    "Normal scale": lambda D: D.Normal(_T(D).zeros(2), -_T(D).ones(2)),
    "Normal nan loc": lambda D: D.Normal(_T(D).tensor([float("nan")]), _T(D).ones(1)),
    "Uniform low>=high": lambda D: D.Uniform(_T(D).ones(2), _T(D).zeros(2)),
    "Bernoulli probs": lambda D: D.Bernoulli(probs=_T(D).tensor([1.5])),
    "Bernoulli both": lambda D: D.Bernoulli(probs=_T(D).tensor([0.5]), logits=_T(D).tensor([0.0])),
    "Bernoulli neither": lambda D: D.Bernoulli(),
    "Categorical probs": lambda D: D.Categorical(probs=_T(D).tensor([[0.5, -0.1]])),
    "Categorical 0-d": lambda D: D.Categorical(probs=_T(D).tensor(0.5)),
    "Exponential rate": lambda D: D.Exponential(_T(D).tensor([0.0])),
    "Geometric probs 0": lambda D: D.Geometric(probs=_T(D).tensor([0.0, 0.5])),
    "Laplace scale": lambda D: D.Laplace(0.0, _T(D).tensor([-1.0])),
    "Independent ndims": lambda D: D.Independent(D.Normal(_T(D).zeros(3), _T(D).ones(3)), 2),
    "Pareto alpha": lambda D: D.Pareto(_T(D).ones(1), _T(D).zeros(1)),
    "HalfNormal scale": lambda D: D.HalfNormal(_T(D).tensor([-2.0])),
}


@pytest.mark.parametrize("case", sorted(BAD_ARGS))
def test_bad_arguments_raise_as_torch(case):
    msg = _same_error(BAD_ARGS[case])
    assert msg


BAD_VALUES = {
    "Normal shape": lambda D: D.Normal(_T(D).zeros(3), _T(D).ones(3)).log_prob(_T(D).zeros(4)),
    "Exponential negative": lambda D: D.Exponential(_T(D).ones(2)).log_prob(-_T(D).ones(2)),
    "Bernoulli 0.5": lambda D: D.Bernoulli(_T(D).tensor([0.3])).log_prob(_T(D).tensor([0.5])),
    "Categorical out of range": lambda D: D.Categorical(logits=_T(D).zeros(3)).log_prob(_T(D).tensor(3)),
    "Uniform outside": lambda D: D.Uniform(0.0, 1.0).log_prob(_T(D).tensor(2.0)),
    "OneHot event shape": lambda D: D.OneHotCategorical(logits=_T(D).zeros(3)).log_prob(_T(D).zeros(4)),
    "not a tensor": lambda D: D.Normal(0.0, 1.0).log_prob(0.5),
    "enumerate Independent":
        lambda D: D.Independent(D.Bernoulli(_T(D).ones(2, 2) / 2), 1).enumerate_support(),
}


@pytest.mark.parametrize("case", sorted(BAD_VALUES))
def test_bad_values_raise_as_torch(case):
    _same_error(BAD_VALUES[case])


def test_validate_args_off_and_default():
    d = ED.Normal(ember.zeros(2), -ember.ones(2), validate_args=False)  # no check
    assert d.scale.tolist() == [-1.0, -1.0]
    assert not ED.Uniform(0.0, 1.0, validate_args=False).log_prob(ember.tensor(2.0)).isfinite().item()
    try:
        ED.Distribution.set_default_validate_args(False)
        ED.Normal(0.0, -1.0)
        ED.Exponential(ember.ones(2)).log_prob(-ember.ones(2))
    finally:
        ED.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        ED.Normal(0.0, -1.0)
    with pytest.raises(ValueError):
        ED.Distribution.set_default_validate_args("yes")


def test_sample_shape_must_be_a_tuple():
    with pytest.raises(TypeError):
        TD.Normal(0.0, 1.0).sample(3)
    with pytest.raises(TypeError):
        ED.Normal(0.0, 1.0).sample(3)


def test_reinforce_with_categorical():
    """pytorch/examples reinforcement_learning: sample an action, -log_prob * return, backward;
    the gradient matches torch's for the same actions."""
    from ember.distributions import Categorical
    rng = np.random.default_rng(0)
    w = rng.normal(size=(4, 2))
    obs = rng.normal(size=(6, 4))
    we, wt = e(w, True), tt(w, True)
    pe = ember.softmax(e(obs) @ we, -1)
    m = Categorical(pe)
    actions = m.sample()
    assert actions.dtype == ember.int64 and tuple(actions.shape) == (6,)
    returns = rng.normal(size=6)
    (-(m.log_prob(actions) * e(returns)).sum()).backward()
    mt = TD.Categorical(torch.softmax(tt(obs) @ wt, -1))
    (-(mt.log_prob(torch.from_numpy(actions.numpy())) * tt(returns)).sum()).backward()
    close(we.grad, wt.grad, rtol=1e-6)


def test_categorical_sampling_edge_cases():
    ember.manual_seed(0)
    # a zero-probability category is never drawn, wherever it sits
    for probs in ([0.0, 0.5, 0.5], [0.5, 0.5, 0.0], [0.0, 1.0, 0.0]):
        s = ED.Categorical(ember.tensor(probs)).sample((2000,))
        counts = np.bincount(s.numpy(), minlength=3)
        assert all(counts[i] == 0 for i, p in enumerate(probs) if p == 0)
    # unnormalized probs are normalized, as torch
    d = ED.Categorical(ember.tensor([2.0, 6.0]))
    close(d.probs, np.array([0.25, 0.75], dtype=np.float32))
    s = d.sample((20000,)).float().mean().item()
    assert abs(s - 0.75) < 0.02


def test_repr_matches_torch():
    from test_distributions_cases import CASES, build
    for name in ["Normal", "Bernoulli", "Categorical", "Uniform", "Gamma", "Beta", "StudentT", "Chi2",
                 "Gumbel", "Pareto", "VonMises", "Weibull", "Laplace",
                 "IndependentNormal", "MixtureSameFamily", "Binomial", "Poisson"]:
        if name not in CASES:
            continue
        de, dt, _, _ = build(name)
        assert repr(de).replace("ember", "torch") == repr(dt), name
    assert repr(ED.Normal(0.5, 2.0)) == repr(TD.Normal(0.5, 2.0)).replace("torch", "ember")


def test_invalid_parameters_without_validation_raise_instead_of_garbage_or_hang():
    message = "probability tensor contains either `inf`, `nan` or element < 0"
    for probs in ([0.5, float("nan")], [0.0, 0.0], [0.5, -0.1]):
        with pytest.raises(RuntimeError, match=message):
            ED.Categorical(ember.tensor(probs), validate_args=False).sample()
    with pytest.raises(ValueError, match="VonMises.sample: no proposal accepted"):
        ED.VonMises(ember.tensor([0.0]), ember.tensor([float("nan")]), validate_args=False).sample()


def test_sampling_follows_ember_manual_seed():
    makes = [lambda: ED.Normal(ember.zeros(3), ember.ones(3)),
             lambda: ED.Categorical(logits=ember.zeros(2, 5)),
             lambda: ED.Gamma(ember.ones(3) * 0.7, ember.ones(3)),
             lambda: ED.Dirichlet(ember.ones(4)),
             lambda: ED.VonMises(ember.zeros(3), ember.ones(3)),
             lambda: ED.Binomial(10, probs=ember.ones(3) / 3)]
    for make in makes:
        ember.manual_seed(7)
        a = make().sample((4,))
        ember.manual_seed(7)
        b = make().sample((4,))
        assert np.array_equal(a.numpy(), b.numpy())
