"""torch.distributed.nn.functional (collectives that record a gradient; open_clip's
gather_features and other contrastive losses use all_gather from it): every collective's outputs
and its inputs' gradients on 2 ranks of ember and 2 ranks of torch 2.13 (gloo), same inputs,
compared; bad arguments raise naming the op. This file is also the rank's program
(python test_distributed_nn.py LIB RANK WORLD STORE OUT)."""
import sys

import numpy as np
import pytest

import _distributed_launch as launch

WAIT = 90


def _weights(lib, t, rank, salt):
    # a different weight per element, rank and output, so each gradient path is told apart
    return lib.arange(float(t.numel())).reshape(t.shape) * (rank + 2) + salt


def rank_main(lib_name, rank, world, store, out):
    import warnings
    lib = __import__(lib_name)
    dist = lib.distributed
    fn = __import__(f"{lib_name}.distributed.nn.functional", fromlist=["x"])
    dist.init_process_group("gloo", init_method=store, rank=rank, world_size=world)
    res = {}

    def leaf(*shape):
        base = lib.arange(float(np.prod(shape))).reshape(shape)
        return (base * (rank + 1) - 3).requires_grad_(True)

    def record(name, x, outs):
        outs = outs if isinstance(outs, tuple) else (outs,)
        loss = sum((o * _weights(lib, o, rank, i)).sum() for i, o in enumerate(outs))
        loss.backward()
        for i, o in enumerate(outs):
            res[f"{name}_out{i}"] = o.detach()
        res[f"{name}_grad"] = x.grad

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        x = leaf(2, 3)
        record("broadcast", x, fn.broadcast(x, 1))
        x = leaf(2, 3)
        record("reduce", x, fn.reduce(x, 0))
        if rank != 0:  # the result is defined on dst only (gloo leaves partial sums elsewhere)
            del res["reduce_out0"]
        for op in ("SUM", "AVG"):
            x = leaf(2, 3)
            record(f"all_reduce_{op}", x, fn.all_reduce(x, getattr(dist.ReduceOp, op)))
        x = leaf(2, 3)
        record("all_gather", x, fn.all_gather(x))
        x = leaf(world, 2, 3)
        record("reduce_scatter", x, fn.reduce_scatter(lib.zeros(2, 3), list(x.unbind(0))))
        x = leaf(2, 3)
        record("gather", x, fn.gather(x, dst=1))
        x = leaf(world, 2, 3)
        record("scatter", x, fn.scatter(list(x.unbind(0)), src=0))
        x = leaf(world, 2, 3)
        record("all_to_all", x, fn.all_to_all([lib.zeros(2, 3) for _ in range(world)],
                                               list(x.unbind(0))))
        x = leaf(4, 3)
        ins = [1, 3] if rank == 0 else [2, 2]
        outs = [1, 2] if rank == 0 else [3, 2]
        record("a2a_single", x, fn.all_to_all_single(lib.zeros(sum(outs), 3), x, outs, ins))
        x = leaf(4, 3)
        record("a2a_even", x, fn.all_to_all_single(lib.zeros(4, 3), x))
        # a contrastive loss over every rank's features, as open_clip's gather_features
        f = leaf(3, 4)
        feats = lib.cat(fn.all_gather(f * 0.1))
        logits = feats @ feats.t()
        loss = lib.nn.functional.cross_entropy(logits, lib.arange(logits.shape[0]))
        loss.backward()
        res["clip_loss"], res["clip_grad"] = loss.detach(), f.grad
    with pytest.warns(FutureWarning, match="deprecated"):
        fn.all_reduce(lib.ones(2))
    if lib_name == "ember":
        for kind, text, call in [
                (TypeError, "all_reduce: expected a Tensor", lambda: fn.all_reduce([1.0])),
                (TypeError, "all_gather: expected a Tensor", lambda: fn.all_gather(np.ones(2))),
                (ValueError, "scatter: the tensors to scatter must have one shape",
                 lambda: fn.scatter([lib.ones(2), lib.ones(3)]))]:
            with pytest.raises(kind, match=text), warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                call()
        assert lib.distributed.nn.all_gather is fn.all_gather
    dist.destroy_process_group()
    np.savez(out, **{k: v.numpy() for k, v in res.items()})
    print(f"rank {rank}: done", flush=True)


def test_distributed_nn_functional_matches_torch(tmp_path):
    launch.ranks_match_torch(__file__, tmp_path, 2, WAIT, atol=1e-6)


@pytest.mark.parametrize("lib_name", ["ember", "torch"])
def test_distributed_c10d_module_names(tmp_path, lib_name):
    lib = __import__(lib_name)
    dist = lib.distributed
    c10d = dist.distributed_c10d
    assert c10d.all_reduce is dist.all_reduce and c10d.ReduceOp is dist.ReduceOp
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        c10d._get_default_group()
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/store", rank=0, world_size=1)
    try:
        assert c10d._get_default_group() is dist.group.WORLD
        assert not c10d._rank_not_in_group(None) and not c10d._rank_not_in_group(dist.group.WORLD)
        assert c10d._rank_not_in_group(dist.GroupMember.NON_GROUP_MEMBER)
        assert "cpu:gloo" in dist.get_backend_config()
        out = lib.zeros(2, 3)
        dist.all_gather_single(out, lib.ones(2, 3))
        assert out.sum().item() == 6
        red = lib.zeros(2)
        dist.reduce_scatter_single(red, lib.arange(2.0))
        assert red.tolist() == [0.0, 1.0]
        with pytest.warns(FutureWarning, match="all_gather_single"):
            c10d._all_gather_base(out, lib.full((2, 3), 2.0))
        assert out.sum().item() == 12
        with pytest.warns(FutureWarning, match="reduce_scatter_single"):
            c10d._reduce_scatter_base(red, lib.full((2,), 5.0))
        assert red.tolist() == [5.0, 5.0]
        with pytest.warns(FutureWarning, match="get_global_rank"):
            assert c10d._get_global_rank(dist.group.WORLD, 0) == 0
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    rank_main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
