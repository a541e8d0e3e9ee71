"""DeviceMesh / init_device_mesh and the coalesced collectives (ember.distributed) with 4
ranks of _mesh_worker.py; one-process behaviour and errors beside torch 2.13's."""
import os
import sys
import tempfile

import pytest
import torch

import ember
import ember.distributed as dist

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _distributed_launch as launch  # noqa: E402

WORKER = os.path.join(HERE, "_mesh_worker.py")


def test_mesh_groups_and_coalesced_collectives(tmp_path):
    world = 4
    res = launch.run_workers(tmp_path, WORKER, "mesh", world)
    for r in range(world):  # mesh [[0, 1], [2, 3]]: dp lines are columns, tp lines rows
        row, col = divmod(r, 2)
        assert res[r]["coordinate"].tolist() == [row, col] == res[r]["local"].tolist()
        assert res[r]["dp_ranks"].tolist() == [col, col + 2]
        assert res[r]["tp_ranks"].tolist() == [2 * row, 2 * row + 1]
        assert res[r]["sub_mesh"].tolist() == [2 * row, 2 * row + 1]
        assert res[r]["tp_sum"].tolist() == [float(4 * row + 1)]
        assert res[r]["flat_group"].tolist() == [0, 1, 2, 3] and bool(res[r]["from_group_equal"])
        # torch 2.13's reprs of the same meshes (4 ranks, printed by rank 3)
        assert res[r]["reprs"].tolist()[0] == "DeviceMesh((dp=2, tp=2), 'cpu', stride=(2, 1))"
        assert res[r]["reprs"].tolist()[1:] == ["DeviceMesh((dp=2), 'cpu', stride=(2,))",
                                               "DeviceMesh((tp=2), 'cpu', stride=(1,))"]
        assert res[r]["coalesced"].tolist() == [6.0, 6.0, 60.0, 60.0, 60.0]
        assert res[r]["coalesced_async"].tolist() == [3.0, 3.0]
        assert res[r]["gathered"].tolist() == [[float(k), float(7 * k)] for k in range(world)]


@pytest.fixture(scope="module")
def one_rank():
    import torch.distributed as tdist
    d = tempfile.mkdtemp()
    dist.init_process_group("gloo", init_method=f"file://{d}/e", rank=0, world_size=1)
    tdist.init_process_group("gloo", init_method=f"file://{d}/t", rank=0, world_size=1)
    yield
    dist.destroy_process_group()
    tdist.destroy_process_group()


def _both(fn):
    """fn(lib, device_mesh module) in both libraries: equal results or both raise the same type."""
    import torch.distributed.device_mesh as tdm
    out = []
    for lib, dm in ((torch, tdm), (ember, dist.device_mesh)):
        try:
            out.append(("ok", fn(lib, dm)))
        except Exception as e:  # noqa: BLE001
            out.append(("err", type(e).__name__))
    assert out[0] == out[1], out


@pytest.mark.filterwarnings("ignore")
def test_mesh_one_rank_like_torch(one_rank):
    _both(lambda lib, dm: repr(dm.init_device_mesh("cpu", (1, 1), mesh_dim_names=("a", "b"))))
    _both(lambda lib, dm: repr(dm.init_device_mesh("cpu", (1,))))
    _both(lambda lib, dm: dm.init_device_mesh("cpu", (1, 1), mesh_dim_names=("a", "b"))["b"]
          .mesh_dim_names)
    _both(lambda lib, dm: (lambda m: (m.ndim, m.shape, m.size(), m.size(1), m.get_rank(),
                                      tuple(m.get_coordinate()), m.get_local_rank("a"),
                                      m.mesh.tolist(), str(m.mesh.dtype).split(".")[1]))(
        dm.init_device_mesh("cpu", (1, 1), mesh_dim_names=("a", "b"))))
    _both(lambda lib, dm: dm.init_device_mesh("cpu", (2,)))                 # too many ranks
    _both(lambda lib, dm: dm.init_device_mesh("cpu", (1, 1), mesh_dim_names=("a", "b"))["z"])
    _both(lambda lib, dm: dm.init_device_mesh("cpu", (1, 1)).get_group())   # ndim 2: say which
    _both(lambda lib, dm: len(dm.init_device_mesh("cpu", (1, 1)).get_all_groups()))
    _both(lambda lib, dm: dm.init_device_mesh("cpu", (1,)) == dm.init_device_mesh("cpu", (1,)))


def test_environment_helpers_like_torch(monkeypatch):
    import torch.distributed as tdist
    monkeypatch.delenv("LOCAL_RANK", raising=False)
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    for lib in (tdist, dist):
        assert lib.is_torchelastic_launched() is False
        assert lib.get_node_local_rank(fallback_rank=3) == 3
        with pytest.raises(RuntimeError, match="LOCAL_RANK"):
            lib.get_node_local_rank()
        assert lib.is_backend_available("gloo") and lib.is_backend_available("cpu:gloo")
        assert not lib.is_backend_available("mpi")
        assert lib.is_ucc_available() is False
        assert lib.get_default_backend_for_device("cpu") == "gloo"
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX"):  # ember's ReduceOps
        assert dist.supports_complex(getattr(dist.ReduceOp, name)) == \
            tdist.supports_complex(getattr(tdist.ReduceOp, name)), name
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "x")
    assert dist.get_node_local_rank() == tdist.get_node_local_rank() == 1
    assert dist.is_torchelastic_launched() and tdist.is_torchelastic_launched()
    assert dist.is_xccl_available() is False


@pytest.mark.filterwarnings("ignore")
def test_coalesced_errors(one_rank):
    with pytest.raises(ValueError, match="different dtypes"):
        dist.all_reduce_coalesced([ember.zeros(1), ember.zeros(1, dtype=ember.float64)])
    with pytest.raises(ValueError, match="one per rank"):
        dist.all_gather_coalesced([], [ember.zeros(1)])
    with pytest.raises(ValueError, match="shape"):
        dist.all_gather_coalesced([[ember.zeros(2)]], [ember.zeros(1)])
    with pytest.raises(RuntimeError, match="device_type"):
        dist.device_mesh.DeviceMesh("cuda", [0])
