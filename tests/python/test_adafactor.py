"""ember.optim.Adafactor against torch.optim.Adafactor (2.13, its CPU single-tensor path):
parameters and state (factored row/col variances for matrices and batches of matrices, a
full variance for vectors) after each step, for every option, float32 and float64; state_dict
round trips and torch's state_dict; torch's errors for bad hyper-parameters."""
import numpy as np
import pytest
import torch

import ember
import ember.optim
from helpers import to_numpy
from optim_helpers import (OptimPair, check_rejected_like_torch, random_arrays, run_steps,
                           state_dict_round_trip)

SHAPES = [(3, 4), (5,), (), (2, 3, 2), (4, 1)]
CASES = [dict(), dict(lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=2.0),
         dict(lr=0.1, weight_decay=0.1, maximize=True), dict(eps=(1e-6, 1e-3), foreach=False)]


class Pair(OptimPair):
    tol = {"float32": dict(rtol=2e-5, atol=1e-6), "float64": dict(rtol=1e-10, atol=1e-12)}


@pytest.mark.parametrize("kwargs", CASES, ids=[str(i) for i in range(len(CASES))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_torch(kwargs, dtype):
    rng = np.random.default_rng(0)
    pair = Pair("Adafactor", kwargs, random_arrays(SHAPES, dtype, rng))
    run_steps(pair, [random_arrays(SHAPES, dtype, rng) for _ in range(6)], dtype, none_at=2)


def test_param_groups_and_tensor_lr():
    rng = np.random.default_rng(1)
    arrays = random_arrays([(3, 4), (6,)], "float32", rng)
    pair = Pair("Adafactor", dict(lr=0.02), arrays, groups=[([0], {}), ([1], dict(lr=0.2, d=1.5))])
    run_steps(pair, [random_arrays([(3, 4), (6,)], "float32", rng) for _ in range(4)], "float32")
    pair = Pair("Adafactor", dict(lr=ember.tensor(0.03)), arrays[:1])
    pair.to = torch.optim.Adafactor(pair.tp, lr=torch.tensor(0.03))
    run_steps(pair, [random_arrays([(3, 4)], "float32", rng) for _ in range(3)], "float32")


def test_state_dict_round_trip_and_torch_state_dict():
    rng = np.random.default_rng(2)
    arrays = random_arrays([(3, 4), (5,)], "float32", rng)
    grads = [random_arrays([(3, 4), (5,)], "float32", rng) for _ in range(6)]
    state_dict_round_trip(ember.optim.Adafactor, dict(lr=0.05), arrays, grads)
    pair = Pair("Adafactor", dict(lr=0.05), arrays)
    run_steps(pair, grads[:3], "float32")
    sd = pair.to.state_dict()
    e2 = [ember.from_numpy(to_numpy(p).copy()).requires_grad_() for p in pair.tp]
    eo2 = ember.optim.Adafactor(e2, lr=0.05)
    eo2.load_state_dict({"state": {k: {n: ember.from_numpy(v.numpy().copy()) for n, v in s.items()}
                                   for k, s in sd["state"].items()},
                         "param_groups": sd["param_groups"]})
    pair.ep, pair.eo = e2, eo2
    run_steps(pair, grads[3:], "float32")


@pytest.mark.parametrize("kwargs,match", [
    (dict(lr=-1.0), "Learning rate should be >= 0 but is: -1.0"),
    (dict(beta2_decay=0.5), "beta2_decay should be <= 0 but is: 0.5"),
    (dict(eps=(-1.0, 1e-3)), "epsilon1 should be >= 0 but is: -1.0"),
    (dict(eps=(None, -1.0)), "epsilon2 should be >= 0 but is: -1.0"),
    (dict(d=0.5), "Clipping threshold d should be >= 1 but is: 0.5"),
    (dict(weight_decay=-0.1), "weight_decay should be >= 0 but is: -0.1"),
])
def test_bad_hyper_parameters_like_torch(kwargs, match):
    check_rejected_like_torch("Adafactor", kwargs, match)
