"""The optimizers ember writes in Python over its in-place ops (Adamax, NAdam, RAdam, Adadelta,
Rprop, ASGD, LBFGS) against torch.optim: the same parameters and gradients in both libraries
for several steps must leave the same parameters and the same state, for every option, with
param groups, through state_dict round trips (also loading torch's state_dict); LBFGS on
quadratic and Rosenbrock problems with and without the strong-Wolfe line search; bad
hyper-parameters raise torch's ValueError."""
import numpy as np
import pytest
import torch

import ember
import ember.optim
from helpers import NP, to_numpy
from optim_helpers import (OptimPair, check_bad_params, check_rejected_like_torch, check_same, leaf,
                           random_arrays, run_steps, state_dict_round_trip)

TOL = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-6, atol=1e-12)}
SHAPES = [(3, 4), (5,), (), (2, 3, 2), (0, 3)]

CASES = [
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, betas=(0.3, 0.5), eps=1e-3)),  # 1 - beta1 >= 0.5: lerp's other end
    ("Adamax", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, betas=(0.8, 0.9), momentum_decay=0.1, eps=1e-4)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.5))),  # rho_t > 5 from the first steps on
    ("RAdam", dict(lr=0.01, betas=(0.4, 0.6), weight_decay=0.1, eps=1e-3)),
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.7), weight_decay=0.1, decoupled_weight_decay=True,
                   maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.5, eps=1e-3)),
    ("Adadelta", dict(lr=0.5, rho=0.95, weight_decay=0.1, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.1, etas=(0.3, 1.7), step_sizes=(1e-3, 0.2))),
    ("Rprop", dict(lr=0.05, maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.1, lambd=0.01, alpha=0.5, t0=2)),  # averaging starts at step 3
    ("ASGD", dict(lr=0.1, t0=0, weight_decay=0.1, maximize=True)),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}" for name, kw in CASES]
NAMES = ["Adamax", "NAdam", "RAdam", "Adadelta", "Rprop", "ASGD"]


class Pair(OptimPair):
    tol = TOL


def sign_flipping_grads(shapes, dtype, rng, steps):
    """Gradients whose signs repeat, flip and vanish, so that Rprop takes all its branches."""
    out = []
    for k in range(steps):
        gs = random_arrays(shapes, dtype, rng)
        if k % 3 == 1 and out:
            gs = [np.abs(g) * np.sign(p) for g, p in zip(gs, out[-1])]  # same signs
        out.append([np.where(rng.random(np.shape(g)) < 0.1, 0, g).astype(g.dtype) for g in gs])
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_matches_torch(name, kwargs, dtype):
    rng = np.random.default_rng(0)
    pair = Pair(name, kwargs, random_arrays(SHAPES, dtype, rng))
    run_steps(pair, sign_flipping_grads(SHAPES, dtype, rng, 7), dtype, none_at=2)


@pytest.mark.parametrize("layout", ["transposed", "sliced"])
@pytest.mark.parametrize("name", NAMES)
def test_non_contiguous_params_and_grads(name, layout):
    rng = np.random.default_rng(1)
    shapes = [(3, 4), (4, 2, 5)]
    pair = Pair(name, dict(lr=0.05), random_arrays(shapes, "float32", rng), layout=layout)
    run_steps(pair, sign_flipping_grads(shapes, "float32", rng, 4), "float32")
    for p in pair.ep:
        assert p.is_leaf and p.requires_grad and p.grad_fn is None


@pytest.mark.parametrize("name", NAMES)
def test_expanded_grads_are_read_not_written(name):
    rng = np.random.default_rng(2)
    shapes = [(4, 3)]
    pair = Pair(name, dict(lr=0.05, maximize=True), random_arrays(shapes, "float64", rng))
    for _ in range(3):
        g = rng.standard_normal((1, 3))
        pair.ep[0].grad = ember.from_numpy(g.copy()).expand(4, 3)
        pair.tp[0].grad = torch.from_numpy(g.copy()).expand(4, 3)
        pair.step()
        pair.check("float64")
        np.testing.assert_array_equal(to_numpy(pair.ep[0].grad), np.broadcast_to(g, (4, 3)))


GROUP_OPTIONS = {
    "Adamax": dict(betas=(0.5, 0.9), weight_decay=0.1),
    "NAdam": dict(momentum_decay=0.02, decoupled_weight_decay=True, weight_decay=0.2),
    "RAdam": dict(betas=(0.9, 0.6), weight_decay=0.1),
    "Adadelta": dict(rho=0.6, maximize=True),
    "Rprop": dict(etas=(0.2, 1.5), step_sizes=(0.01, 1.0)),
    "ASGD": dict(t0=1, lambd=0.1),
}


@pytest.mark.parametrize("name", NAMES)
def test_param_groups_with_different_lrs_and_options(name):
    rng = np.random.default_rng(3)
    shapes = [(3, 4), (4,), (2, 2), (6,)]
    groups = [([0, 1], {}), ([2], dict(lr=0.5)), ([3], dict(lr=0.001, **GROUP_OPTIONS[name]))]
    for dtype in ("float32", "float64"):
        pair = Pair(name, dict(lr=0.05), random_arrays(shapes, dtype, rng), groups=groups)
        assert [g["lr"] for g in pair.eo.param_groups] == [0.05, 0.5, 0.001]
        assert pair.eo.param_groups == [dict(g, params=pair.eo.param_groups[i]["params"])
                                        for i, g in enumerate(pair.to.param_groups)]
        run_steps(pair, sign_flipping_grads(shapes, dtype, rng, 5), dtype)


@pytest.mark.parametrize("name", NAMES)
def test_add_param_group_later(name):
    rng = np.random.default_rng(4)
    arrays = random_arrays([(3,), (2, 2)], "float32", rng)
    pair = Pair(name, dict(lr=0.1), arrays[:1])
    pair.add_param_group(arrays[1], lr=0.3)
    assert set(pair.eo.param_groups[1]) == set(pair.to.param_groups[1])
    run_steps(pair, sign_flipping_grads([(3,), (2, 2)], "float32", rng, 3), "float32")


def test_tensor_lr():
    rng = np.random.default_rng(5)
    arr = rng.standard_normal(5)
    for name in NAMES:
        ep, tp = leaf(ember, arr), leaf(torch, arr)
        eo = getattr(ember.optim, name)([ep], lr=ember.tensor([0.01]))
        to = getattr(torch.optim, name)([tp], lr=torch.tensor([0.01]))
        for _ in range(3):
            g = rng.standard_normal(5)
            ep.grad, tp.grad = ember.from_numpy(g.copy()), torch.from_numpy(g.copy())
            eo.step()
            to.step()
        check_same([ep], [tp], eo, to, TOL["float64"])


def test_step_records_no_graph_and_bumps_versions():
    for name in NAMES:
        p = ember.randn(4, requires_grad=True)
        p.grad = ember.ones(4)
        opt = getattr(ember.optim, name)([p], lr=0.1)
        v = p._version
        opt.step()
        assert p._version > v and p.grad_fn is None and p.is_leaf
        assert all(not t.requires_grad for t in opt.state[p].values())


def test_closure_runs_with_grad_and_returns_loss():
    p = ember.ones(3, requires_grad=True)
    opt = ember.optim.RAdam([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with ember.no_grad():
        loss = opt.step(closure)
    assert float(loss) == 3.0 and float(opt.state[p]["step"]) == 1.0


# ---- state_dict ---------------------------------------------------------------------------
STATE_CASES = [CASES[i] for i in (2, 6, 10, 13, 15, 18)]


@pytest.mark.parametrize("name,kwargs", STATE_CASES, ids=[f"{n}" for n, _ in STATE_CASES])
def test_state_dict_round_trip_mid_run(name, kwargs):
    rng = np.random.default_rng(6)
    shapes = [(3, 4), (5,)]
    arrays = random_arrays(shapes, "float32", rng)
    grads = sign_flipping_grads(shapes, "float32", rng, 8)
    opt0, straight, opt2, second = state_dict_round_trip(getattr(ember.optim, name), kwargs,
                                                         arrays, grads, lr=0.5)
    assert list(opt0.state[straight[0]]) == list(opt2.state[second[0]])


@pytest.mark.parametrize("name,kwargs", STATE_CASES, ids=[f"{n}" for n, _ in STATE_CASES])
def test_state_dict_matches_torch_and_torch_state_dict_loads(name, kwargs):
    rng = np.random.default_rng(7)
    shapes = [(2, 3), (4,), (3,)]
    groups = [([0], {}), ([1, 2], dict(lr=0.2))]
    pair = Pair(name, kwargs, random_arrays(shapes, "float32", rng), groups=groups)
    grads = random_arrays(shapes, "float32", rng)
    grads[2] = None
    pair.set_grads(grads)
    pair.step()
    esd, tsd = pair.eo.state_dict(), pair.to.state_dict()
    assert esd["param_groups"] == tsd["param_groups"]
    assert sorted(esd["state"]) == sorted(tsd["state"]) == [0, 1]
    for i in tsd["state"]:
        assert list(esd["state"][i]) == list(tsd["state"][i])

    # torch's state_dict, converted tensor by tensor, continues the run in ember as in torch
    converted = {"param_groups": tsd["param_groups"],
                 "state": {i: {k: ember.from_numpy(v.numpy().copy()) for k, v in s.items()}
                           for i, s in tsd["state"].items()}}
    fresh = [leaf(ember, to_numpy(t)) for t in pair.tp]
    eo = getattr(ember.optim, name)([dict(params=[fresh[i] for i in idx], **kw)
                                     for idx, kw in groups], **kwargs)
    eo.load_state_dict(converted)
    for grads in sign_flipping_grads(shapes, "float32", rng, 3):
        for e, t, g in zip(fresh, pair.tp, grads):
            e.grad, t.grad = ember.from_numpy(g.copy()), torch.from_numpy(g.copy())
        eo.step()
        pair.to.step()
        check_same(fresh, pair.tp, eo, pair.to, TOL["float32"])


def test_repr_like_torch():
    for name in NAMES:
        e = getattr(ember.optim, name)([ember.zeros(2, requires_grad=True)], lr=0.1)
        t = getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], lr=0.1)
        assert repr(e) == repr(t)
    e = ember.optim.LBFGS([ember.zeros(2, requires_grad=True)], line_search_fn="strong_wolfe")
    t = torch.optim.LBFGS([torch.zeros(2, requires_grad=True)], line_search_fn="strong_wolfe")
    assert repr(e) == repr(t)


# ---- LBFGS ---------------------------------------------------------------------------------
def quadratic(lib, xs, data):
    """0.5 x^T A x - b^T x over two parameters (a matrix and a vector), A positive definite."""
    a, b = data
    x = lib.cat([xs[0].reshape(-1), xs[1]])
    return 0.5 * (x * lib.mv(a, x)).sum() - (b * x).sum()


def rosenbrock(lib, xs, data):
    x = xs[0]
    return ((1 - x[:-1]) ** 2).sum() + (100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


def quadratic_problem(rng, dtype):
    m = rng.standard_normal((7, 7))
    a = (m @ m.T + 0.5 * np.eye(7)).astype(NP[dtype])
    b = rng.standard_normal(7).astype(NP[dtype])
    starts = [rng.standard_normal((2, 2)).astype(NP[dtype]), rng.standard_normal(3).astype(NP[dtype])]
    return starts, (a, b)


def lbfgs_steps(lib, opt, fn, xs, data, steps):
    """`steps` calls of opt.step(closure), the closure evaluating fn(lib, xs, data) with its
    gradients; returns the losses and how many times the closure ran."""
    calls = [0]

    def closure():
        calls[0] += 1
        assert lib.is_grad_enabled()
        opt.zero_grad()
        loss = fn(lib, xs, data)
        loss.backward()
        return loss

    losses = [float(opt.step(closure).detach()) for _ in range(steps)]
    return losses, calls[0]


def run_lbfgs(lib, fn, starts, data, kwargs, steps):
    xs = [leaf(lib, s) for s in starts]
    opt = lib.optim.LBFGS(xs, **kwargs)
    losses, calls = lbfgs_steps(lib, opt, fn, xs, tuple(lib.from_numpy(d.copy()) for d in data),
                                steps)
    return xs, opt, losses, calls


def close_normwise(e, t, rtol, what):
    """Elementwise within rtol of the vector's largest entry: near the optimum the gradients
    and curvature pairs are differences of nearly equal numbers, only their scale is stable."""
    e, t = np.asarray(to_numpy(e), np.float64), np.asarray(to_numpy(t), np.float64)
    np.testing.assert_allclose(e, t, rtol=rtol, atol=rtol * np.abs(t).max(initial=0.0),
                               err_msg=what)


def check_lbfgs(fn, starts, data, kwargs, dtype, steps=4, state_rtol=None):
    """Same losses, parameters, evaluation counts and state. The state holds differences of
    gradients (y), which lose digits to cancellation: `state_rtol` allows for that."""
    ex, eo, el, ecalls = run_lbfgs(ember, fn, starts, data, kwargs, steps)
    tx, to, tl, tcalls = run_lbfgs(torch, fn, starts, data, kwargs, steps)
    tol = TOL[dtype]
    assert ecalls == tcalls
    np.testing.assert_allclose(el, tl, **tol)
    for e, t in zip(ex, tx):
        np.testing.assert_allclose(to_numpy(e), to_numpy(t), **tol)
    es, ts = eo.state[ex[0]], to.state[tx[0]]
    assert list(es) == list(ts)
    assert es["func_evals"] == ts["func_evals"] and es["n_iter"] == ts["n_iter"]
    assert len(es["old_dirs"]) == len(ts["old_dirs"])
    state_rtol = state_rtol or tol["rtol"]
    for k in ("d", "prev_flat_grad", "t", "H_diag", "prev_loss"):
        close_normwise(es[k], ts[k], state_rtol, k)
    for k in ("old_dirs", "old_stps", "ro"):
        for i, (e, t) in enumerate(zip(es[k], ts[k])):
            close_normwise(e, t, state_rtol, f"{k}[{i}]")
    return eo, ex, el


LBFGS_CASES = [
    dict(),
    dict(lr=0.1, max_iter=5, history_size=2),  # the history wraps
    dict(line_search_fn="strong_wolfe"),
    dict(line_search_fn="strong_wolfe", history_size=3, max_iter=7, max_eval=9),
    dict(lr=0.5, tolerance_grad=1e-3, tolerance_change=1e-4),
]


@pytest.mark.parametrize("kwargs", LBFGS_CASES, ids=[str(k) for k in LBFGS_CASES])
def test_lbfgs_quadratic_matches_torch(kwargs):
    starts, data = quadratic_problem(np.random.default_rng(8), "float64")
    check_lbfgs(quadratic, starts, data, kwargs, "float64")


# float32: stopped before convergence (there the curvature pairs are rounding noise, and a
# line search picks its branches on loss comparisons that rounding can flip)
@pytest.mark.parametrize("kwargs", [dict(max_iter=5), dict(max_iter=4, history_size=2, lr=0.5),
                                    dict(line_search_fn="strong_wolfe", max_iter=5)],
                         ids=["fixed-step", "short-history", "strong_wolfe"])
def test_lbfgs_quadratic_float32_matches_torch(kwargs):
    starts, data = quadratic_problem(np.random.default_rng(8), "float32")
    check_lbfgs(quadratic, starts, data, kwargs, "float32", steps=2, state_rtol=1e-4)


@pytest.mark.parametrize("kwargs", [dict(lr=0.002, history_size=4), dict(line_search_fn="strong_wolfe"),
                                    dict(line_search_fn="strong_wolfe", history_size=2, max_iter=30)],
                         ids=["fixed-step", "strong_wolfe", "strong_wolfe-short-history"])
def test_lbfgs_rosenbrock_matches_torch(kwargs):
    starts = [np.array([-1.5, 2.0, 0.5, -0.3, 1.2])]
    # near the minimum the gradients are ~1e-7, differences of terms ~1: the state keeps
    # ~5 digits there, the parameters all of theirs
    eo, ex, losses = check_lbfgs(rosenbrock, starts, (), kwargs, "float64", steps=5,
                                 state_rtol=1e-4)
    if kwargs.get("line_search_fn"):  # down to the local minimum near (-1, 1, 1, 1, 1)
        assert losses[-1] < 4.0 < 1e-2 * losses[0]


def test_lbfgs_solves_the_quadratic_and_stops_at_the_optimum():
    starts, (a, b) = quadratic_problem(np.random.default_rng(9), "float64")
    xs, opt, losses, calls = run_lbfgs(ember, quadratic, starts, (a, b),
                                       dict(line_search_fn="strong_wolfe", tolerance_grad=1e-10,
                                            tolerance_change=1e-14), 3)
    x = np.concatenate([to_numpy(xs[0]).reshape(-1), to_numpy(xs[1])])
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-6)
    n = opt.state[xs[0]]["func_evals"]
    before = [to_numpy(x) for x in xs]

    def flat_closure():
        for x in xs:
            x.grad = ember.zeros_like(x)
        return ember.tensor(0.5)

    assert float(opt.step(flat_closure)) == 0.5
    assert opt.state[xs[0]]["func_evals"] == n + 1  # a zero gradient: one evaluation, no step
    for x, b in zip(xs, before):
        np.testing.assert_array_equal(to_numpy(x), b)


def test_lbfgs_state_dict_round_trip():
    starts, data = quadratic_problem(np.random.default_rng(10), "float64")
    kwargs = dict(lr=0.05, history_size=3, max_iter=4)
    straight, _, _, _ = run_lbfgs(ember, quadratic, starts, data, kwargs, 6)
    first, opt1, _, _ = run_lbfgs(ember, quadratic, starts, data, kwargs, 3)
    sd = opt1.state_dict()
    old_dirs = [to_numpy(t) for t in sd["state"][0]["old_dirs"]]
    second = [leaf(ember, to_numpy(p)) for p in first]
    opt2 = ember.optim.LBFGS(second, **kwargs)
    opt2.load_state_dict(sd)
    lbfgs_steps(ember, opt2, quadratic, second, tuple(ember.from_numpy(d.copy()) for d in data), 3)
    for a, b in zip(straight, second):
        np.testing.assert_allclose(to_numpy(a), to_numpy(b), rtol=1e-12)
    for a, b in zip(old_dirs, sd["state"][0]["old_dirs"]):  # the dict kept its own history
        np.testing.assert_array_equal(a, to_numpy(b))


def to_ember(value):
    """torch's state_dict values (tensors, lists of them, numbers) as ember's."""
    if isinstance(value, torch.Tensor):
        return ember.from_numpy(value.numpy().copy())
    if isinstance(value, list):
        return [to_ember(v) for v in value]
    return value


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_loads_torch_state_dict_and_continues_like_torch(line_search_fn):
    starts, data = quadratic_problem(np.random.default_rng(11), "float64")
    kwargs = dict(lr=0.3, history_size=3, max_iter=3, line_search_fn=line_search_fn)
    tx, to, _, _ = run_lbfgs(torch, quadratic, starts, data, kwargs, 2)
    tsd = to.state_dict()
    ex = [leaf(ember, to_numpy(t)) for t in tx]
    eo = ember.optim.LBFGS(ex, **kwargs)
    eo.load_state_dict({"param_groups": tsd["param_groups"],
                        "state": {i: {k: to_ember(v) for k, v in st.items()}
                                  for i, st in tsd["state"].items()}})
    assert eo.param_groups[0]["history_size"] == 3 and list(eo.state[ex[0]]) == list(tsd["state"][0])
    de, dt = (tuple(lib.from_numpy(d.copy()) for d in data) for lib in (ember, torch))
    for xs, opt, lib, d in ((ex, eo, ember, de), (tx, to, torch, dt)):
        lbfgs_steps(lib, opt, quadratic, xs, d, 2)
    for e, t in zip(ex, tx):
        np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=1e-10)
    assert eo.state[ex[0]]["func_evals"] == to.state[tx[0]]["func_evals"]


def test_lbfgs_errors_like_torch():
    p = ember.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        ember.optim.LBFGS([{"params": [p]}, {"params": [ember.zeros(1, requires_grad=True)]}])
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        ember.optim.LBFGS([p], lr=-1)
    with pytest.raises(TypeError):
        ember.optim.LBFGS([p]).step()  # the closure is required
    opt = ember.optim.LBFGS([p], line_search_fn="wolfe")

    def closure():
        opt.zero_grad()
        loss = ((p - 1) ** 2).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)
    assert ember.optim.LBFGS([p], max_iter=8).param_groups[0]["max_eval"] == 10


# ---- bad inputs ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES + ["LBFGS"])
def test_negative_lr(name):
    for lib in (ember, torch):
        with pytest.raises(ValueError, match="Invalid learning rate: -0.1"):
            getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)], lr=-0.1)
        with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
            getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)], lr=lib.ones(2))


@pytest.mark.parametrize("name,kwargs,match", [
    ("Adamax", dict(betas=(1.0, 0.999)), "Invalid beta parameter at index 0: 1.0"),
    ("Adamax", dict(betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
    ("Adamax", dict(eps=-1.0), "Invalid epsilon value: -1.0"),
    ("Adamax", dict(weight_decay=-0.1), "Invalid weight_decay value: -0.1"),
    ("NAdam", dict(betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
    ("NAdam", dict(momentum_decay=-1e-3), "Invalid momentum_decay value: -0.001"),
    ("NAdam", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ("NAdam", dict(eps=-1e-8), "Invalid epsilon value"),
    ("RAdam", dict(betas=(-0.1, 0.9)), "Invalid beta parameter at index 0: -0.1"),
    ("RAdam", dict(weight_decay=-1e-2), "Invalid weight_decay value"),
    ("RAdam", dict(eps=-1.0), "Invalid epsilon value"),
    ("Adadelta", dict(rho=1.1), "Invalid rho value: 1.1"),
    ("Adadelta", dict(rho=-0.1), "Invalid rho value: -0.1"),
    ("Adadelta", dict(eps=-1.0), "Invalid epsilon value"),
    ("Adadelta", dict(weight_decay=-1.0), "Invalid weight_decay value"),
    ("Rprop", dict(etas=(1.0, 1.2)), "Invalid eta values: 1.0, 1.2"),
    ("Rprop", dict(etas=(0.5, 1.0)), "Invalid eta values: 0.5, 1.0"),
    ("Rprop", dict(etas=(0.0, 2.0)), "Invalid eta values: 0.0, 2.0"),
    ("ASGD", dict(weight_decay=-0.5), "Invalid weight_decay value: -0.5"),
])
def test_invalid_hyper_parameters(name, kwargs, match):
    check_rejected_like_torch(name, kwargs, match)


@pytest.mark.parametrize("name", NAMES)
def test_bad_params_and_flags(name):
    cls = getattr(ember.optim, name)
    check_bad_params(cls)
    p = ember.zeros(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="differentiable"):
        cls([p], differentiable=True)
    opt = cls([p], foreach=True, maximize=False)  # accepted, no effect on CPU
    p.grad = ember.ones(2)
    opt.step()
    assert opt.param_groups[0]["foreach"] is True
    # capturable=True: constructed, then step() refuses it on the CPU with torch's message
    for lib in (ember, torch):
        q = lib.zeros(2, requires_grad=True)
        opt = getattr(lib.optim, name)([q], capturable=True)
        opt.step()  # no grad: nothing to refuse
        q.grad = lib.ones(2)
        with pytest.raises(AssertionError) as info:
            opt.step()
        if lib is ember:
            message = str(info.value)
        else:
            assert str(info.value) == message
    assert not ember_state_created(cls)


def ember_state_created(cls):
    """Whether a refused capturable step left state behind (it must not)."""
    p = ember.zeros(2, requires_grad=True)
    opt = cls([p], capturable=True)
    p.grad = ember.ones(2)
    with pytest.raises(AssertionError):
        opt.step()
    return bool(opt.state)
