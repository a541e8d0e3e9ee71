"""ZeroRedundancyOptimizer (ember.distributed.optim) with 2 and 3 ranks of _zero_worker.py
against one process running the same AdamW on the whole batch; errors."""
import os
import sys

import numpy as np
import pytest

import ember
from ember import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _ddp_worker as W  # noqa: E402
import _distributed_launch as launch  # noqa: E402

WORKER = os.path.join(HERE, "_zero_worker.py")


def reference(world):
    ember.manual_seed(100)
    model = W.Net().double()
    groups = [{"params": [model.fc1.weight, model.fc2.weight], "weight_decay": 0.1},
              {"params": [model.fc1.bias, model.fc2.bias], "weight_decay": 0.0}]
    opt = ember.optim.AdamW(groups, lr=0.05)
    sched = ember.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    for x, y in W.global_batches(world, 3):
        opt.zero_grad()
        nn.MSELoss()(model(ember.from_numpy(x)), ember.from_numpy(y)).backward()
        opt.step()
        sched.step()
    return model, opt


@pytest.mark.parametrize("world", [2, 3])
def test_zero_matches_one_process(tmp_path, world):
    res = launch.run_workers(tmp_path, WORKER, "zero", world)
    model, opt = reference(world)
    for r in range(world):
        for n, p in model.named_parameters():
            np.testing.assert_allclose(res[r]["final." + n], p.detach().numpy(), rtol=1e-10)
    # torch's greedy partition, largest first: fc1.weight (35) and fc2.weight (21) in group 0,
    # then the biases (7, 3) to whichever rank holds fewer elements
    expected = {2: [35, 31], 3: [35, 21, 10]}[world]
    assert res[0]["owned"].tolist() == expected
    full = opt.state_dict()
    assert res[0]["state_keys"].tolist() == sorted(full["state"])
    for i, s in full["state"].items():
        np.testing.assert_allclose(res[0][f"exp_avg.{i}"], s["exp_avg"].numpy(), rtol=1e-10)
    assert float(res[0]["lr"]) == pytest.approx(0.05 * 0.5 ** 3)
    assert "consolidate_state_dict" in str(res[1]["error"])


def test_zero_needs_a_group_and_no_overlap():
    from ember.distributed.optim import ZeroRedundancyOptimizer
    with pytest.raises(RuntimeError, match="init_process_group"):
        ZeroRedundancyOptimizer(nn.Linear(2, 2).parameters(), ember.optim.SGD, lr=0.1)
    with pytest.raises(NotImplementedError, match="overlap_with_ddp"):
        ZeroRedundancyOptimizer(nn.Linear(2, 2).parameters(), ember.optim.SGD,
                                overlap_with_ddp=True, lr=0.1)
