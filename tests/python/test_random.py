"""Random sampling (src/ops/random.cpp, kernels/cpu/sampling) and generators (include/ember/random.h,
python/ember/_generator.py, ember.random) against torch 2.13. ember's streams differ from torch's,
so samples are compared by their statistics (fixed seeds, many draws, tolerances of several
standard errors); shapes, dtypes, errors and gradients are compared exactly."""
import copy
import math
import pickle

import numpy as np
import pytest
import torch

import ember
from helpers import assert_same

N = 200_000


def gen(seed=0):
    return ember.Generator().manual_seed(seed)


def close(value, expected, tol):
    assert abs(value - expected) <= tol, f"{value} vs {expected} (tol {tol})"


# ---------------------------------------------------------------- generators

def test_same_seed_same_numbers_and_streams_are_independent():
    a, b = gen(7), gen(7)
    x = ember.randn(100, generator=a)
    ember.rand(1000, generator=gen(8))  # other streams and the global one do not interfere
    ember.manual_seed(1)
    ember.rand(1000)
    y = ember.randn(100, generator=b)
    assert x.tolist() == y.tolist()
    assert ember.randn(100, generator=a).tolist() != x.tolist()  # the stream moved on
    assert ember.rand(5, generator=gen(1)).tolist() != ember.rand(5, generator=gen(2)).tolist()


@pytest.mark.parametrize("draw", [
    lambda g: ember.rand(3, 4, generator=g),
    lambda g: ember.randn((5,), generator=g, dtype=ember.float64),
    lambda g: ember.randint(0, 10, (6,), generator=g),
    lambda g: ember.randint(10, (6,), generator=g),
    lambda g: ember.randperm(20, generator=g),
    lambda g: ember.rand_like(ember.zeros(4), generator=g),
    lambda g: ember.randn_like(ember.zeros(4), generator=g),
    lambda g: ember.randint_like(ember.zeros(4), 0, 5, generator=g),
    lambda g: ember.normal(0.0, 1.0, (4,), generator=g),
    lambda g: ember.normal(ember.zeros(4), ember.ones(4), generator=g),
    lambda g: ember.bernoulli(ember.full((8,), 0.5), generator=g),
    lambda g: ember.multinomial(ember.ones(6), 3, generator=g),
    lambda g: ember.poisson(ember.full((5,), 3.0), generator=g),
    lambda g: ember.binomial(ember.full((5,), 9.0), ember.full((5,), 0.3), generator=g),
    lambda g: ember._standard_gamma(ember.full((5,), 0.7), generator=g),
    lambda g: ember._sample_dirichlet(ember.ones(2, 3), generator=g),
    lambda g: ember.empty(6).uniform_(-1, 2, generator=g),
    lambda g: ember.empty(6).normal_(1, 2, generator=g),
    lambda g: ember.empty(6).bernoulli_(0.3, generator=g),
    lambda g: ember.empty(6).exponential_(2.0, generator=g),
    lambda g: ember.empty(6).geometric_(0.3, generator=g),
    lambda g: ember.empty(6).cauchy_(generator=g),
    lambda g: ember.empty(6).log_normal_(generator=g),
    lambda g: ember.empty(6).random_(0, 100, generator=g),
    lambda g: ember.nn.init.uniform_(ember.empty(6), generator=g),
    lambda g: ember.nn.init.kaiming_normal_(ember.empty(3, 4), generator=g),
])
def test_every_random_function_honours_its_generator(draw):
    ember.manual_seed(0)
    first = draw(gen(42)).tolist()
    ember.manual_seed(99)  # the global stream does not matter
    ember.rand(10)
    assert draw(gen(42)).tolist() == first
    g = gen(42)
    draw(g)
    assert g.get_state().tolist() != gen(42).get_state().tolist()  # it drew from g


def test_global_functions_use_the_default_generator():
    ember.manual_seed(5)
    a = [ember.rand(3).tolist(), ember.bernoulli(ember.full((4,), 0.5)).tolist(),
         ember.empty(3).exponential_().tolist()]
    ember.manual_seed(5)
    b = [ember.rand(3).tolist(), ember.bernoulli(ember.full((4,), 0.5)).tolist(),
         ember.empty(3).exponential_().tolist()]
    assert a == b
    assert ember.default_generator.initial_seed() == 5 == ember.initial_seed()
    assert ember.manual_seed(6) is ember.default_generator  # torch returns the generator
    x = ember.rand(3, generator=ember.default_generator)
    ember.manual_seed(6)
    assert ember.rand(3).tolist() == x.tolist()


def test_state_round_trips():
    g = gen(3)
    ember.rand(10, generator=g)
    state = g.get_state()
    assert state.dtype == ember.uint8 and state.shape == (40,)
    a = ember.randn(7, generator=g).tolist()
    assert g.set_state(state) is g
    assert ember.randn(7, generator=g).tolist() == a
    h = ember.Generator().set_state(state)  # a state moves between generators
    assert ember.randn(7, generator=h).tolist() == a
    # the default generator: get_rng_state / set_rng_state / ember.random
    s = ember.get_rng_state()
    b = ember.rand(4).tolist()
    ember.set_rng_state(s)
    assert ember.rand(4).tolist() == b
    ember.random.set_rng_state(s)
    assert ember.random.get_rng_state().tolist() == s.tolist()


def test_fork_rng_seed_and_api():
    ember.manual_seed(11)
    with ember.random.fork_rng():
        ember.manual_seed(0)
        ember.rand(100)
    after = ember.rand(3).tolist()
    ember.manual_seed(11)
    assert ember.rand(3).tolist() == after
    with ember.random.fork_rng(enabled=False):
        pass
    s = ember.seed()
    assert s == ember.initial_seed() and 0 <= s < 2**63
    g = ember.Generator()
    assert g.initial_seed() == torch.Generator().initial_seed()
    assert g.manual_seed(-1).initial_seed() == 2**64 - 1
    assert str(g.device) == "cpu" and repr(g) == f"<ember.Generator initial_seed={2**64 - 1}>"
    assert ember.random.manual_seed(3) is ember.default_generator
    assert ember.random.initial_seed() == 3 and isinstance(ember.default_generator, ember.Generator)


def test_generators_pickle_and_copy_with_their_state():
    g = gen(4)
    ember.rand(3, generator=g)
    for h in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert ember.rand(5, generator=h).tolist() == ember.rand(5, generator=copy.deepcopy(g)).tolist()
    assert ember.rand(5, generator=pickle.loads(pickle.dumps(g))).tolist() == ember.rand(5, generator=g).tolist()


def test_generator_bad_inputs():
    with pytest.raises(RuntimeError, match="set_state.*uint8.*40"):
        gen().set_state(ember.zeros(3))
    with pytest.raises(RuntimeError, match="set_state.*uint8.*40"):
        gen().set_state(ember.zeros(40, dtype=ember.uint8)[:39])
    with pytest.raises(TypeError):
        gen().set_state([0] * 40)
    with pytest.raises(TypeError, match="ember.Generator"):
        ember.rand(3, generator=torch.Generator())
    with pytest.raises(TypeError, match="ember.Generator"):
        ember.empty(3).normal_(generator=5)
    with pytest.raises(RuntimeError):
        ember.Generator("cuda")
    with pytest.raises(RuntimeError, match="64 bits"):
        gen().manual_seed(2**64)


# ---------------------------------------------------------------- distributions

def test_bernoulli():
    p = ember.tensor([0.0, 0.2, 0.5, 0.9, 1.0], dtype=ember.float64)
    s = ember.bernoulli(p.expand(N // 5, 5), generator=gen())
    assert s.dtype == ember.float64 and s.shape == (N // 5, 5)
    m = s.mean(0).tolist()
    assert m[0] == 0.0 and m[4] == 1.0
    for got, want in zip(m[1:4], [0.2, 0.5, 0.9]):
        close(got, want, 5 * math.sqrt(want * (1 - want) / (N // 5)))
    r = ember.bernoulli(ember.zeros(N, dtype=ember.int64), 0.3, generator=gen())  # bernoulli(input, p)
    assert r.dtype == ember.int64 and set(r.tolist()) == {0, 1}
    close(r.double().mean().item(), 0.3, 0.005)
    t = ember.zeros(N, dtype=ember.bool)
    assert t.bernoulli_(generator=gen()) is t and abs(t.double().mean().item() - 0.5) < 0.005
    t = ember.zeros(2, N // 2)
    t.bernoulli_(ember.tensor([[0.1], [0.8]]), generator=gen())
    close(t[0].mean().item(), 0.1, 0.005)
    close(t[1].mean().item(), 0.8, 0.005)
    assert ember.bernoulli(ember.zeros(0, 3)).shape == (0, 3)
    assert ember.bernoulli(ember.tensor(1.0)).item() == 1.0


def test_bernoulli_bad_inputs():
    with pytest.raises(RuntimeError, match="bernoulli.*probabilities in \\[0, 1\\].*1.5"):
        ember.bernoulli(ember.tensor([0.5, 1.5]))
    with pytest.raises(RuntimeError):
        torch.bernoulli(torch.tensor([0.5, 1.5]))
    with pytest.raises(RuntimeError, match="bernoulli_ expects p to be in \\[0, 1\\], but got p=1.5"):
        ember.zeros(2).bernoulli_(1.5)
    with pytest.raises(NotImplementedError, match="bernoulli.*int64"):
        ember.bernoulli(ember.tensor([1, 0]))
    with pytest.raises(NotImplementedError):
        torch.bernoulli(torch.tensor([1, 0]))
    x = ember.tensor([0.25, 0.5])
    with pytest.raises(RuntimeError, match="nan"):
        x.bernoulli_(ember.tensor([0.5, float("nan")]))
    assert x.tolist() == [0.25, 0.5]  # untouched


def test_multinomial_frequencies():
    w = ember.tensor([1.0, 0.0, 3.0, 6.0])
    s = ember.multinomial(w, N, replacement=True, generator=gen())
    assert s.dtype == ember.int64 and s.shape == (N,)
    counts = np.bincount(s.numpy(), minlength=4) / N
    assert counts[1] == 0
    for got, want in zip(counts, [0.1, 0.0, 0.3, 0.6]):
        close(got, want, 0.005)
    # without replacement: distinct categories; the first draw follows the weights
    rows = ember.multinomial(w.expand(20000, 4), 3, generator=gen(1))
    assert rows.shape == (20000, 3)
    srt = rows.sort(1).values
    assert (srt[:, 1:] != srt[:, :-1]).all().item()
    first = np.bincount(rows[:, 0].numpy(), minlength=4) / 20000
    for got, want in zip(first, [0.1, 0.0, 0.3, 0.6]):
        close(got, want, 0.015)
    # all categories: a permutation; 2-d with replacement; float64
    assert sorted(ember.multinomial(ember.ones(5), 5).tolist()) == [0, 1, 2, 3, 4]
    t = ember.multinomial(ember.tensor([[0.5, 0.5]] * 3, dtype=ember.float64), 5, True)
    assert t.shape == torch.multinomial(torch.tensor([[0.5, 0.5]] * 3, dtype=torch.float64), 5, True).shape
    assert ember.multinomial(ember.tensor([0.0, 1.0, 0.0]), 1).tolist() == [1]


@pytest.mark.parametrize("args,kw", [
    (([0.2, 0.3], 3), {}), (([0.2, 0.3], 0), {}), (([[[0.2, 0.3]]], 1), {}), (([0.0, 0.0], 1), {}),
    (([-1.0, 1.0], 1), {}), (([float("nan"), 1.0], 1), {}), (([float("inf"), 1.0], 1), {}),
    (([1, 2], 1), {}), (([], 1), {}), (([[1.0, 1.0], [0.0, 0.0]], 1), {"replacement": True}),
])
def test_multinomial_bad_inputs(args, kw):
    data, n = args
    with pytest.raises(RuntimeError) as te:
        torch.multinomial(torch.tensor(data), n, **kw)
    with pytest.raises(RuntimeError, match="multinomial") as ee:
        ember.multinomial(ember.tensor(data), n, **kw)
    key = str(te.value).split("(")[0].strip()[:30]  # torch's wording
    assert key in str(ee.value)


def test_normal_overloads_shapes_and_statistics():
    T, E = torch.tensor, ember.tensor
    for e, t in [(ember.normal(E([0.0, 1]), E([[1.0], [2]])), torch.normal(T([0.0, 1]), T([[1.0], [2]]))),
                 (ember.normal(E([0.0, 1]), 2.0), torch.normal(T([0.0, 1]), 2.0)),
                 (ember.normal(E([0.0, 1])), torch.normal(T([0.0, 1]))),
                 (ember.normal(1.0, E([1.0, 2.0], dtype=ember.float64)), torch.normal(1.0, T([1.0, 2.0], dtype=torch.float64))),
                 (ember.normal(0.0, 1.0, (2, 3)), torch.normal(0.0, 1.0, (2, 3))),
                 (ember.normal(0.0, 1.0, (2, 3), dtype=ember.float64), torch.normal(0.0, 1.0, (2, 3), dtype=torch.float64)),
                 (ember.normal(0.0, 1.0, size=(0,)), torch.normal(0.0, 1.0, size=(0,)))]:
        assert tuple(e.shape) == tuple(t.shape) and str(e.dtype)[6:] == str(t.dtype)[6:]
    x = ember.normal(E([-2.0, 3.0]).expand(N // 2, 2), E([0.5, 2.0]), generator=gen())
    close(x[:, 0].mean().item(), -2.0, 0.01)
    close(x[:, 1].mean().item(), 3.0, 0.04)
    close(x[:, 0].std().item(), 0.5, 0.01)
    close(x[:, 1].std().item(), 2.0, 0.03)
    y = ember.empty(N).normal_(1.0, 3.0, generator=gen())
    close(y.mean().item(), 1.0, 0.04)
    close(y.std().item(), 3.0, 0.03)


def test_normal_gradients_as_torch():
    mean = ember.tensor([0.5, -1.0, 2.0], requires_grad=True)
    std = ember.tensor([[1.0], [2.0]], requires_grad=True)
    out = ember.normal(mean, std, generator=gen())
    out.backward(ember.ones(2, 3))
    assert mean.grad.tolist() == [2.0, 2.0, 2.0]
    # torch's formula: d/d std = grad * (out - mean) / std, summed to std's shape
    want = ((out.detach() - mean.detach()) / std.detach()).sum(1, keepdim=True)
    np.testing.assert_allclose(std.grad.numpy(), want.numpy(), rtol=1e-5)
    m2 = ember.tensor([1.0, 2.0], requires_grad=True)
    ember.normal(m2, 3.0).sum().backward()
    assert m2.grad.tolist() == [1.0, 1.0]


def test_normal_bad_inputs():
    with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
        ember.normal(ember.tensor([0.0, 1]), ember.tensor([1.0, -1]))
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        ember.normal(ember.tensor([0.0, 1]), -1.0)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        ember.normal(0.0, -1.0, (2, 3))
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        ember.zeros(2).normal_(0, -1)
    with pytest.raises(RuntimeError, match="uniform_ expects to return a \\[from, to\\) range, but found from=1 > to=0"):
        ember.zeros(2).uniform_(1, 0)
    with pytest.raises(RuntimeError, match="uniform_ expects to return a \\[from, to\\) range"):
        torch.zeros(2).uniform_(1, 0)
    with pytest.raises(NotImplementedError, match="normal.*int64"):
        ember.normal(ember.tensor([0, 1]), 1.0)
    with pytest.raises(ValueError, match="normal: shapes \\(2,\\) and \\(3,\\)"):
        ember.normal(ember.zeros(2), ember.ones(3))


def test_poisson_binomial():
    rates = ember.tensor([0.0, 0.5, 4.0, 60.0], dtype=ember.float64)
    s = ember.poisson(rates.expand(N // 4, 4), generator=gen())
    assert s.dtype == ember.float64
    m, v = s.mean(0).tolist(), s.var(0).tolist()
    assert m[0] == 0.0 and v[0] == 0.0
    for i, r in enumerate([0.5, 4.0, 60.0], start=1):
        close(m[i], r, 5 * math.sqrt(r / (N // 4)))
        close(v[i], r, 0.05 * r)
    assert (s == s.round()).all().item()
    c = ember.tensor([10.0, 100.0, 0.0, 7.0, -5.0, 5.0])
    p = ember.tensor([0.3, 0.9, 0.5, 1.0, 0.5, 1.5])
    b = ember.binomial(c.expand(N // 6, 6), p, generator=gen())
    bm = b.mean(0).tolist()
    close(bm[0], 3.0, 0.03)
    close(bm[1], 90.0, 0.05)
    assert bm[2:] == torch.binomial(torch.tensor([0.0, 7.0, -5.0, 5.0]), torch.tensor([0.5, 1.0, 0.5, 1.5])).tolist()
    close(b[:, 0].var().item(), 2.1, 0.05)
    assert ember.binomial(ember.full((3,), 5.0), ember.tensor([0.5])).shape == (3,)
    with pytest.raises(RuntimeError, match="non-negative"):
        ember.poisson(ember.tensor([-1.0, 2.0]))
    with pytest.raises(RuntimeError):
        torch.poisson(torch.tensor([-1.0, 2.0]))
    with pytest.raises(NotImplementedError, match="poisson"):
        ember.poisson(ember.tensor([1, 2]))
    with pytest.raises(ValueError, match="binomial only supports floating-point dtypes for count, got: int64"):
        ember.binomial(ember.tensor([5, 2]), ember.tensor([0.5, 0.5]))
    with pytest.raises(ValueError):
        torch.binomial(torch.tensor([5, 2]), torch.tensor([0.5, 0.5]))


def test_standard_gamma_and_its_gradient():
    alpha = ember.tensor([0.05, 0.5, 1.0, 3.0, 30.0], dtype=ember.float64)
    s = ember._standard_gamma(alpha.expand(N // 5, 5), generator=gen())
    m, v = s.mean(0).tolist(), s.var(0).tolist()
    for i, a in enumerate(alpha.tolist()):
        close(m[i], a, 6 * math.sqrt(a / (N // 5)))
        close(v[i], a, 0.1 * a)
    # edges as torch: alpha <= 0 and NaN clamp to the smallest normal number
    bad = [0.0, -1.0, float("nan")]
    assert_same(ember._standard_gamma(ember.tensor(bad)), torch._standard_gamma(torch.tensor(bad)))
    tiny = ember._standard_gamma(ember.full((100,), 1e-4), generator=gen())
    assert (tiny > 0).all().item()
    # the reparameterized gradient: the same function of (alpha, sample) as torch's
    rng = np.random.default_rng(0)
    for lo, hi in [(0.01, 0.1), (0.1, 20.0), (20.0, 1e4), (1e4, 1e12)]:
        a = rng.uniform(lo, hi, 200)
        x = np.maximum(rng.gamma(a), 1e-300)  # samples from Gamma(a, 1)
        want = torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy()
        got = ember._standard_gamma_grad(ember.tensor(a), ember.tensor(x)).numpy()
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=1e-6)
    # through autograd: d sample / d alpha, and E[d sample / d alpha] = 1 (the mean is alpha)
    al = ember.tensor([2.5], dtype=ember.float64, requires_grad=True)
    samp = ember._standard_gamma(al.expand(N), generator=gen())
    samp.sum().backward()
    close(al.grad.item() / N, 1.0, 0.01)
    with pytest.raises(NotImplementedError, match="_standard_gamma"):
        ember._standard_gamma(ember.tensor([1, 2]))


def test_extreme_parameters_return_at_once():
    # <random>'s integer samplers would overflow or loop here: the normal limit above 1e15
    p = ember.poisson(ember.tensor([1e300, float("inf"), 1e16, 1e18], dtype=ember.float64), generator=gen())
    assert p.tolist()[:2] == [1e300, math.inf]
    np.testing.assert_allclose(p.tolist()[2:], [1e16, 1e18], rtol=1e-6)
    b = ember.binomial(ember.tensor([float("inf"), 1e17, 4.0]), ember.tensor([0.5, 0.5, 0.5]), generator=gen())
    assert math.isnan(b.tolist()[0]) and abs(b.tolist()[1] / 5e16 - 1) < 1e-6
    assert_same(ember._standard_gamma(ember.tensor([float("inf"), 1e30])),
                torch._standard_gamma(torch.tensor([float("inf"), 1e30])), rtol=1e-3)


def test_sample_dirichlet():
    alpha = ember.tensor([0.5, 1.0, 2.5], dtype=ember.float64)
    d = ember._sample_dirichlet(alpha.expand(N // 3, 3), generator=gen())
    np.testing.assert_allclose(d.sum(1).numpy(), 1.0, rtol=1e-12)
    for got, want in zip(d.mean(0).tolist(), [0.125, 0.25, 0.625]):
        close(got, want, 0.005)
    assert_same(ember._sample_dirichlet(ember.tensor([0.0, 0.0])), torch._sample_dirichlet(torch.tensor([0.0, 0.0])))
    assert_same(ember._sample_dirichlet(ember.tensor(2.0)), torch._sample_dirichlet(torch.tensor(2.0)))


def test_inplace_fills_statistics_and_dtypes():
    e = ember.empty(N, dtype=ember.float64).exponential_(2.0, generator=gen())
    close(e.mean().item(), 0.5, 0.005)
    assert (e >= 0).all().item()
    g = ember.empty(N, dtype=ember.int64)
    assert g.geometric_(0.25, generator=gen()) is g
    close(g.double().mean().item(), 4.0, 0.05)  # trials up to the first success: 1 / p
    assert g.min().item() == 1
    assert ember.empty(3, dtype=ember.float64).geometric_(1e-300, generator=gen()).min().item() > 1e290
    c = ember.empty(N).cauchy_(1.0, 2.0, generator=gen())
    close(float(np.median(c.numpy())), 1.0, 0.03)
    close(((c > -1) & (c < 3)).double().mean().item(), 0.5, 0.005)  # quartiles at median -+ sigma
    ln = ember.empty(N, dtype=ember.float64).log_normal_(0.5, 0.25, generator=gen())
    close(ln.log().mean().item(), 0.5, 0.003)
    close(ln.log().std().item(), 0.25, 0.003)
    u = ember.empty(N).uniform_(-2, 3, generator=gen())
    assert -2 <= u.min().item() and u.max().item() < 3
    close(u.mean().item(), 0.5, 0.02)


def test_random_():
    for dt, hi in [(ember.uint8, 256), (ember.bool, 2), (ember.int32, 2**31), (ember.float32, 2**24 + 1)]:
        r = ember.zeros(20000, dtype=dt).random_(generator=gen())
        assert 0 <= r.double().min().item() and r.double().max().item() < hi
        assert r.double().max().item() >= (hi - 1) * 0.9  # spans the range
    r = ember.zeros(N, dtype=ember.int64).random_(3, 7, generator=gen())
    assert sorted(set(r.tolist())) == [3, 4, 5, 6]
    r = ember.zeros(1000).random_(5, generator=gen())
    assert sorted(set(r.tolist())) == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert ember.zeros(10, dtype=ember.int64).random_(-5, None).min().item() >= -5
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to', but got from=5 >= to=2"):
        ember.zeros(2).random_(5, 2)
    with pytest.raises(RuntimeError, match="random_.*out of bounds.*uint8"):
        ember.zeros(2, dtype=ember.uint8).random_(0, 300)
    with pytest.raises(RuntimeError):
        torch.zeros(2, dtype=torch.uint8).random_(0, 300)


@pytest.mark.parametrize("call,message", [
    (lambda m: m.zeros(2).exponential_(0), "exponential_ expects lambda > 0.0, but found lambda=0"),
    (lambda m: m.zeros(2, dtype=m.int64).exponential_(), "Exponential distribution is a continuous"),
    (lambda m: m.zeros(2).geometric_(1), "geometric_ expects p to be in \\(0, 1\\), but got p=1"),
    (lambda m: m.zeros(2).cauchy_(0, -1), "cauchy_ expects sigma > 0.0, but found sigma=-1"),
    (lambda m: m.zeros(2).log_normal_(0, 0), "log_normal_ expects std > 0.0, but found std=0"),
])
def test_fill_bad_inputs_as_torch(call, message):
    with pytest.raises(RuntimeError, match=message):
        call(torch)
    x = ember.zeros(2)
    with pytest.raises(RuntimeError, match=message):
        call(ember)
    assert x.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("call", [lambda m: m.zeros(3, dtype=m.int64).uniform_(),
                                  lambda m: m.zeros(3, dtype=m.bool).normal_(),
                                  lambda m: m.rand(3, dtype=m.int64), lambda m: m.randn(3, dtype=m.int64),
                                  lambda m: m.normal(0.0, 1.0, (3,), dtype=m.int64)])
def test_continuous_fills_of_integer_dtypes_raise_as_torch(call):
    with pytest.raises(NotImplementedError):
        call(torch)
    with pytest.raises(NotImplementedError, match="not implemented for (int64|bool)"):
        call(ember)


def test_inplace_fill_on_a_leaf_that_requires_grad_raises():
    x = ember.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        x.exponential_()
    with pytest.raises(RuntimeError, match="leaf"):
        x.uniform_()
    with pytest.raises(RuntimeError, match="leaf"):
        x.normal_()
    with ember.no_grad():  # what nn.init does
        x.normal_()
    assert x.requires_grad and x.grad_fn is None
    with pytest.raises(RuntimeError):
        torch.zeros(3, requires_grad=True).exponential_()


@pytest.mark.parametrize("fill", [lambda t: t.exponential_(), lambda t: t.geometric_(0.5),
                                  lambda t: t.cauchy_(), lambda t: t.log_normal_(),
                                  lambda t: t.bernoulli_(0.5), lambda t: t.random_(0, 5),
                                  lambda t: t.uniform_(), lambda t: t.normal_()])
def test_fill_of_a_tensor_in_a_graph_gives_a_zero_gradient_as_torch(fill):
    for m in (ember, torch):
        x = m.ones(3, requires_grad=True)
        y = x * 2
        fill(y)
        assert y.requires_grad and y.grad_fn is not None
        (y * 3).sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_fills_on_non_contiguous_views():
    base = ember.zeros(4, 6, dtype=ember.float64)
    view = base.t()[1:4]
    view.exponential_(generator=gen())
    assert (view > 0).all().item() and base[:, 0].tolist() == [0.0] * 4 and (base[:, 4:] == 0).all().item()


def test_generator_clone_state_and_cuda_only_methods_as_torch():
    for m in (ember, torch):
        g = m.Generator().manual_seed(3)
        m.rand(5, generator=g)  # advance: the clone copies the current state, not the seed's
        c = g.clone_state()
        assert c is not g and c.initial_seed() == 3
        assert m.equal(m.rand(4, generator=g), m.rand(4, generator=c))
        for call, err in ((g.get_offset, RuntimeError), (lambda: g.set_offset(1), RuntimeError),
                          (g.graphsafe_get_state, NotImplementedError),
                          (lambda: g.graphsafe_set_state(g), NotImplementedError)):
            with pytest.raises(err):
                call()


def test_multinomial_out_as_torch():
    p = ember.tensor([0.0, 0.3, 0.7])
    out = ember.empty(0, dtype=ember.int64)
    r = ember.multinomial(p, 2, replacement=False, generator=None, out=out)
    assert r is out and out.shape == (2,) and set(out.tolist()) == {1, 2}
    assert ember.multinomial(p, 1, out=None).shape == (1,)
    with pytest.raises(TypeError, match="multinomial\\(\\): argument 'out' must be Tensor"):
        ember.multinomial(p, 1, out=[0])
