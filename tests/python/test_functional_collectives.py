"""torch.distributed._functional_collectives (diffusers' context-parallel attention imports it):
all_reduce, broadcast, all_gather_tensor/_single, reduce_scatter_tensor/_single,
all_to_all_single (and its autograd variant's gradient), permute_tensor, all_reduce_coalesced,
wait_tensor, on 2 ranks of ember and
2 ranks of torch 2.13 (gloo) with the same inputs, outputs compared; the input is left alone;
bad arguments raise naming the op. This file is also the rank's program
(python test_functional_collectives.py LIB RANK WORLD STORE OUT)."""
import sys

import numpy as np
import pytest

import _distributed_launch as launch

WAIT = 90


def rank_main(lib_name, rank, world, store, out):
    if lib_name == "torch":
        import torch as lib
    else:
        import ember as lib
    import warnings
    dist = lib.distributed
    funcol = __import__(f"{lib_name}.distributed._functional_collectives", fromlist=["x"])
    dist.init_process_group("gloo", init_method=store, rank=rank, world_size=world)
    g = dist.group.WORLD
    x = lib.arange(24.0).reshape(4, 6) * (rank + 1) - 5
    before = x.clone()
    res = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # torch's all_gather_tensor is deprecated
        for op in ("sum", "avg", "max", "min", "product"):
            res[f"all_reduce_{op}"] = funcol.all_reduce(x, op, g)
        res["broadcast"] = funcol.broadcast(x, 1, g)
        for d in (0, 1):
            res[f"all_gather_{d}"] = funcol.all_gather_tensor(x, d, g)
            res[f"all_gather_single_{d}"] = funcol.all_gather_single(x, d, g)
            res[f"reduce_scatter_{d}"] = funcol.reduce_scatter_tensor(x, "sum", d, g)
        res["reduce_scatter_single"] = funcol.reduce_scatter_single(x, "max", 0, g)
        res["a2a_even"] = funcol.all_to_all_single(x, None, None, g)
        ins = [1, 3] if rank == 0 else [2, 2]
        outs = [1, 2] if rank == 0 else [3, 2]
        res["a2a_split"] = funcol.all_to_all_single(x, outs, ins, g)
        res["permute"] = funcol.permute_tensor(x[0], [1, 0], g)
        res["ranks_list"] = funcol.all_reduce(x, "sum", list(range(world)))
        for i, t in enumerate(funcol.all_reduce_coalesced([x, x[:1] * 2], "sum", g)):
            res[f"coalesced_{i}"] = t
        xr = x.clone().requires_grad_(True)  # the gradient goes back where each row came from
        y = funcol.all_to_all_single_autograd(xr, outs, ins, g)
        (y * (lib.arange(float(y.numel())).reshape(y.shape) + 10 * rank)).sum().backward()
        res["a2a_autograd"], res["a2a_autograd_grad"] = y.detach(), xr.grad
        res = {k: funcol.wait_tensor(v) for k, v in res.items()}
    assert lib.equal(x, before)  # functional: the input is untouched
    if lib_name == "ember":
        import ember
        raises = [(ValueError, "reduceOp", lambda: funcol.all_reduce(x, "mean", g)),
                  (ValueError, "group must be", lambda: funcol.all_reduce(x, "sum", "world")),
                  (NotImplementedError, "list of ranks", lambda: funcol.all_reduce(x, "sum", [0])),
                  (ValueError, "equal blocks", lambda: funcol.reduce_scatter_tensor(x[:3], "sum", 0, g)),
                  (TypeError, "expected a Tensor", lambda: funcol.all_reduce([1.0], "sum", g)),
                  (ValueError, "together", lambda: funcol.all_to_all_single(x, [2, 2], None, g)),
                  (ValueError, "permutation", lambda: funcol.permute_tensor(x, [0, 0], g))]
        for kind, text, fn in raises:
            with pytest.raises(kind, match=text):
                fn()
        assert not isinstance(res["broadcast"], funcol.AsyncCollectiveTensor)
        assert issubclass(funcol.AsyncCollectiveTensor, ember.Tensor)
    dist.destroy_process_group()
    np.savez(out, **{k: v.numpy() for k, v in res.items()})
    print(f"rank {rank}: done", flush=True)


@pytest.mark.parametrize("world", [2])
def test_functional_collectives_match_torch(tmp_path, world):
    launch.ranks_match_torch(__file__, tmp_path, world, WAIT)


if __name__ == "__main__":
    rank_main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
