"""One rank of a FullyShardedDataParallel test (run by test_fsdp.py as a subprocess):

    python _fsdp_worker.py MODE RANK WORLD RDZV_DIR OUT_FILE [JSON_OPTIONS]

Same model and data as _ddp_worker.py (rank r takes rows r*B .. (r+1)*B-1 of each global
batch); writes a NumPy .npz of what the test compares to OUT_FILE.
"""
import numpy as np

import ember
import ember.distributed as dist
from ember import nn
from ember.distributed.fsdp import (FullyShardedDataParallel as FSDP, FullStateDictConfig,
                                    MixedPrecision, ShardingStrategy, StateDictType)
from ember.distributed.device_mesh import init_device_mesh
from ember.distributed.fsdp.wrap import ModuleWrapPolicy

from _ddp_worker import Net, global_batches, local, start


def wrapped(opts, rank):
    ember.manual_seed(100)  # the same initial weights on every rank (FSDP does not broadcast)
    model = Net().double()
    init = {k: v.detach().numpy().copy() for k, v in model.named_parameters()}
    if opts.get("perturb"):  # rank 0's weights only reach the others by sync_module_states
        with ember.no_grad():
            for p in model.parameters():
                p.add_(float(rank))
    mp = MixedPrecision(param_dtype=ember.float32) if opts.get("mixed") else None
    policy = ModuleWrapPolicy({nn.Linear}) if opts.get("auto_wrap") else None
    mesh = init_device_mesh("cpu", tuple(opts["mesh"])) if opts.get("mesh") else None
    fsdp = FSDP(model, sharding_strategy=ShardingStrategy[opts.get("strategy", "FULL_SHARD")],
                auto_wrap_policy=policy, mixed_precision=mp,
                sync_module_states=bool(opts.get("perturb")), device_mesh=mesh)
    return fsdp, init


def main():
    mode, rank, world, out, opts = start()
    fsdp, init = wrapped(opts, rank)
    res = {"init." + k: v for k, v in init.items()}
    res["shapes"] = np.array([p.numel() for p in fsdp.parameters()])
    loss_fn = nn.MSELoss()
    opt = ember.optim.SGD(fsdp.parameters(), lr=0.1, momentum=0.9)
    if mode == "train":
        for x, y in global_batches(world, opts.get("steps", 2)):
            opt.zero_grad()
            loss = loss_fn(fsdp(local(x, rank)), local(y, rank))
            loss.backward()
            if opts.get("clip"):
                res.setdefault("norms", []).append(float(fsdp.clip_grad_norm_(opts["clip"])))
            opt.step()
    elif mode == "no_sync":  # two micro-batches (the halves of one step's rows), one sync
        (x, y), = global_batches(world, 1)
        xs, ys = local(x, rank), local(y, rank)
        with fsdp.no_sync():
            (loss_fn(fsdp(xs[:2]), ys[:2]) / 2).backward()
        (loss_fn(fsdp(xs[2:]), ys[2:]) / 2).backward()
        opt.step()
    elif mode == "optim":  # AdamW 2 steps, its state saved and loaded into a fresh model, 1 more
        opt = ember.optim.AdamW(fsdp.parameters(), lr=0.05)
        batches = global_batches(world, 3)
        for x, y in batches[:2]:
            opt.zero_grad()
            loss_fn(fsdp(local(x, rank)), local(y, rank)).backward()
            opt.step()
        osd = FSDP.optim_state_dict(fsdp, opt)
        res.update({f"exp_avg.{k}": v["exp_avg"].numpy().copy() for k, v in osd["state"].items()})
        res["group_names"] = np.array(osd["param_groups"][0]["params"])
        msd = fsdp.state_dict()
        fsdp, _ = wrapped(opts, rank)
        fsdp.load_state_dict(msd)
        opt = ember.optim.AdamW(fsdp.parameters(), lr=0.05)
        FSDP.optim_state_dict_to_load(fsdp, opt, osd, load_directly=True)
        x, y = batches[2]
        opt.zero_grad()
        loss_fn(fsdp(local(x, rank)), local(y, rank)).backward()
        opt.step()
    elif mode == "summon":  # a change made inside summon_full_params lands in every shard
        with FSDP.summon_full_params(fsdp, writeback=True):
            with ember.no_grad():
                for p in fsdp.parameters():
                    p.mul_(2.0)
            res["names"] = np.array([n for n, _ in fsdp.named_parameters()])
    elif mode == "load":  # rank 0's state dict, edited, loaded everywhere
        sd = fsdp.state_dict()
        sd = {k: v + 1.0 for k, v in sd.items()}
        fsdp.load_state_dict(sd)
        cfg = FullStateDictConfig(offload_to_cpu=True, rank0_only=True)
        with FSDP.state_dict_type(fsdp, StateDictType.FULL_STATE_DICT, cfg):
            res["rank0_only_keys"] = np.array(len(fsdp.state_dict()))
    if "norms" in res:
        res["norms"] = np.array(res["norms"])
    res.update({"final." + k: v.numpy().copy() for k, v in fsdp.state_dict().items()})
    res["keys"] = np.array(list(fsdp.state_dict()))
    np.savez(out, **res)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
