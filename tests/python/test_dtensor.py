"""DTensor (ember.distributed.tensor) with 4 ranks of _dtensor_worker.py: pieces as torch.chunk
cuts them (uneven and empty ones), redistribution between Shard, Replicate and Partial on 1-d
and 2-d meshes, from_local, the random factory; placements beside torch's."""
import os
import sys

import numpy as np
import pytest
import torch

import ember

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _distributed_launch as launch  # noqa: E402

WORKER = os.path.join(HERE, "_dtensor_worker.py")


def test_dtensor_layouts_and_redistribution(tmp_path):
    world = 4
    res = launch.run_workers(tmp_path, WORKER, "dtensor", world, timeout=120)
    x = torch.arange(30, dtype=torch.float32).reshape(5, 6)
    rows = torch.chunk(x, 4, 0)  # 2, 2, 1 rows, then nothing
    for r in range(world):
        row, col = divmod(r, 2)
        want = rows[r].numpy() if r < len(rows) else np.zeros((0, 6), np.float32)
        np.testing.assert_array_equal(res[r]["s0_local"], want)
        assert res[r]["s0_shape"].tolist() == [5, 6]
        for key in ("s0_full", "s01_full", "rs_full", "from_local_full"):
            np.testing.assert_array_equal(res[r][key], x.numpy())
        nested = torch.chunk(torch.chunk(x, 2, 0)[row], 2, 1)[col]
        np.testing.assert_array_equal(res[r]["s01_local"], nested.numpy())
        np.testing.assert_array_equal(res[r]["rs_local"], torch.chunk(x, 2, 0)[col].numpy())
        cols = torch.chunk(x, 4, 1)  # 2, 2, 2 columns, then nothing
        want = cols[r].numpy() if r < len(cols) else np.zeros((5, 0), np.float32)
        np.testing.assert_array_equal(res[r]["s1_local"], want)
        np.testing.assert_array_equal(res[r]["partial_full"], np.full((2, 3), 10.0))
        part = torch.chunk(torch.full((2, 3), 10.0), 4, 0)
        want = part[r].numpy() if r < len(part) else np.zeros((0, 3), np.float32)
        np.testing.assert_array_equal(res[r]["partial_s0"], want)
        np.testing.assert_array_equal(res[r]["partial_max"], np.full(2, 3.0))
        np.testing.assert_array_equal(res[r]["rand_full"], res[0]["rand_full"])
        assert str(res[r]["repr"]) == "(Shard(dim=0), Shard(dim=1))"
    assert len(np.unique(res[0]["rand_full"])) == 12


def test_placements_like_torch():
    from torch.distributed import tensor as tt
    from ember.distributed import tensor as et
    for e, t in [(et.Shard(0), tt.Shard(0)), (et.Shard(1), tt.Shard(1)),
                 (et.Replicate(), tt.Replicate()), (et.Partial(), tt.Partial()),
                 (et.Partial("avg"), tt.Partial("avg"))]:
        assert repr(e) == repr(t) and str(e) == str(t)
        assert (e.is_shard(), e.is_shard(0), e.is_replicate(), e.is_partial()) == \
            (t.is_shard(), t.is_shard(0), t.is_replicate(), t.is_partial())
    assert et.Shard(1) == et.Shard(1) and et.Shard(1) != et.Shard(0)
    for name in ("Shard", "Replicate", "Partial"):  # the module torch keeps them in, too
        assert issubclass(getattr(et.placement_types, name), et.Placement)
        assert issubclass(getattr(tt.placement_types, name), tt.Placement)
    assert len({et.Replicate(), et.Replicate(), et.Shard(0)}) == 2
    with pytest.raises(ValueError):
        et.Partial("median")


def test_dtensor_checks_one_rank():
    import tempfile
    from ember.distributed import tensor as et
    d = tempfile.mkdtemp()
    ember.distributed.init_process_group("gloo", init_method=f"file://{d}/r", rank=0, world_size=1)
    try:
        mesh = et.init_device_mesh("cpu", (1,))
        with pytest.raises(ValueError, match="same length"):
            et.distribute_tensor(ember.ones(2), mesh, [et.Shard(0), et.Shard(0)])
        with pytest.raises(IndexError, match="out of range"):
            et.distribute_tensor(ember.ones(2), mesh, [et.Shard(1)])
        with pytest.raises(RuntimeError, match="Partial"):
            et.distribute_tensor(ember.ones(2), mesh, [et.Partial()])
        dt = et.distribute_tensor(ember.ones(2, 3, requires_grad=True), mesh, [et.Shard(-1)])
        assert dt.placements == (et.Shard(1),) and dt.shape == (2, 3) and dt.requires_grad
        assert isinstance(dt, et.DTensor) and not isinstance(dt, ember.Tensor)
        assert et.zeros(2, 2, device_mesh=mesh).full_tensor().tolist() == [[0, 0], [0, 0]]
        assert et.full((2,), 3.0, device_mesh=mesh).to_local().tolist() == [3.0, 3.0]
        assert repr(et.ones(1, device_mesh=mesh)).startswith("DTensor(local_tensor=tensor([1.])")
    finally:
        ember.distributed.destroy_process_group()
