"""One rank of a ZeroRedundancyOptimizer test (run by test_zero_redundancy.py):

    python _zero_worker.py MODE RANK WORLD RDZV_DIR OUT_FILE [JSON_OPTIONS]

DDP over _ddp_worker.Net with ZeroRedundancyOptimizer(AdamW); writes the parameters after
3 steps (an LR scheduler halving the rate each step), the partition, and on rank 0 the
consolidated state dict's entries."""
import numpy as np

import ember
import ember.distributed as dist
from ember import nn
from ember.distributed.optim import ZeroRedundancyOptimizer

from _ddp_worker import Net, global_batches, local, start


def main():
    mode, rank, world, out, opts = start()
    ember.manual_seed(100)
    model = Net().double()
    ddp = nn.parallel.DistributedDataParallel(model)
    groups = [{"params": [model.fc1.weight, model.fc2.weight], "weight_decay": 0.1},
              {"params": [model.fc1.bias, model.fc2.bias], "weight_decay": 0.0}]
    opt = ZeroRedundancyOptimizer(groups, optimizer_class=ember.optim.AdamW, lr=0.05)
    sched = ember.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    res = {"owned": np.array([sum(p.numel() for p in ps) for ps in opt._per_rank])}
    for x, y in global_batches(world, 3):
        opt.zero_grad()
        nn.MSELoss()(ddp(local(x, rank)), local(y, rank)).backward()
        opt.step()
        sched.step()
    res.update({"final." + n: p.detach().numpy().copy() for n, p in model.named_parameters()})
    opt.consolidate_state_dict(to=0)
    if rank == 0:
        sd = opt.state_dict()
        res["state_keys"] = np.array(sorted(sd["state"]))
        for i, s in sd["state"].items():
            res[f"exp_avg.{i}"] = s["exp_avg"].numpy().copy()
        res["lr"] = np.array(sd["param_groups"][0]["lr"])
    else:
        try:
            opt.state_dict()
        except RuntimeError as e:
            res["error"] = np.array(str(e))
    np.savez(out, **res)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
