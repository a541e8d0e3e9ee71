"""FullyShardedDataParallel (ember.distributed.fsdp) against a single process and against
torch's FSDP.

Several processes: 2 or 3 ranks of _fsdp_worker.py on loopback, trained on the same data as
test_ddp.py's reference (one process, the concatenated batches): sharded training, averaged and
sharded gradients, no_sync, clip_grad_norm_, summon_full_params, full state dicts.
One process (a one-rank group in this process): names, shapes, state dict keys and training
values beside torch 2.13's FSDP on the same model; the wrap policies; bad input."""
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest
import torch

import ember
from ember import nn
from ember.distributed import fsdp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _ddp_worker as W  # noqa: E402
import _distributed_launch as launch  # noqa: E402

WORKER = os.path.join(HERE, "_fsdp_worker.py")
NAMES = ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


def run_ranks(tmp_path, mode, world, timeout=90, **opts):
    return launch.run_workers(tmp_path, WORKER, mode, world, timeout, **opts)


def reference(init, world, steps, clip=None, batches=None):
    """One process: the same model and SGD on the concatenated batches; (params, norms)."""
    model = W.Net().double()
    with ember.no_grad():
        for n, p in model.named_parameters():
            p.copy_(ember.from_numpy(init["init." + n]))
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    norms = []
    for x, y in batches or W.global_batches(world, steps):
        opt.zero_grad()
        nn.MSELoss()(model(ember.from_numpy(x)), ember.from_numpy(y)).backward()
        if clip:
            norms.append(float(nn.utils.clip_grad_norm_(model.parameters(), clip)))
        opt.step()
    return {n: p.detach().numpy() for n, p in model.named_parameters()}, norms


@pytest.mark.parametrize("world,strategy,auto_wrap", [
    (2, "FULL_SHARD", False), (2, "FULL_SHARD", True), (3, "FULL_SHARD", True),
    (2, "SHARD_GRAD_OP", False), (2, "NO_SHARD", True), (2, "HYBRID_SHARD", False)])
def test_fsdp_trains_as_one_process(tmp_path, world, strategy, auto_wrap):
    res = run_ranks(tmp_path, "train", world, strategy=strategy, auto_wrap=auto_wrap, steps=3)
    ref, _ = reference(res[0], world, 3)
    n_params = sum(v.size for k, v in res[0].items() if k.startswith("init."))  # 65
    units = 2 if auto_wrap else 1   # fc1 and fc2 own units, the root holds nothing
    for r in range(world):
        shapes = res[r]["shapes"].tolist()
        assert len(shapes) == units
        if strategy == "NO_SHARD":
            assert sum(shapes) == n_params
        else:  # each unit padded to a multiple of the world, 1/world of it here
            assert sum(shapes) * world >= n_params and sum(shapes) * world < n_params + units * world
        assert res[r]["keys"].tolist() == list(W.Net().state_dict())
        for n in NAMES:
            np.testing.assert_allclose(res[r]["final." + n], ref[n], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("mesh,strategy", [((4,), "FULL_SHARD"), ((2, 2), "HYBRID_SHARD")])
def test_fsdp_on_a_device_mesh(tmp_path, mesh, strategy):
    """A 1-d mesh is its group; a 2-d one shards along dimension 1, replicates along 0."""
    res = run_ranks(tmp_path, "train", 4, strategy=strategy, mesh=mesh, steps=2)
    ref, _ = reference(res[0], 4, 2)
    shard_ranks = mesh[-1]
    assert int(res[0]["shapes"].sum()) == -(-65 // shard_ranks)  # 65 parameters, padded
    for r in range(4):
        for n in NAMES:
            np.testing.assert_allclose(res[r]["final." + n], ref[n], rtol=1e-9, atol=1e-12)


def test_fsdp_mixed_precision_and_sync_module_states(tmp_path):
    """float32 compute of a float64 model; rank 0's weights broadcast at wrap time."""
    res = run_ranks(tmp_path, "train", 2, mixed=True, perturb=True, auto_wrap=True, steps=2)
    ref, _ = reference(res[0], 2, 2)
    for r in range(2):
        for n in NAMES:
            assert res[r]["final." + n].dtype == np.float64  # the shards keep their dtype
            np.testing.assert_allclose(res[r]["final." + n], ref[n], rtol=1e-5, atol=1e-6)


def test_fsdp_no_sync_accumulates(tmp_path):
    res = run_ranks(tmp_path, "no_sync", 2, auto_wrap=True)
    ref, _ = reference(res[0], 2, 1)  # one step on the whole batch: the same mean
    for r in range(2):
        for n in NAMES:
            np.testing.assert_allclose(res[r]["final." + n], ref[n], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("strategy", ["FULL_SHARD", "NO_SHARD"])
def test_fsdp_clip_grad_norm_is_global(tmp_path, strategy):
    res = run_ranks(tmp_path, "train", 2, strategy=strategy, auto_wrap=True, steps=2, clip=0.5)
    ref, norms = reference(res[0], 2, 2, clip=0.5)
    for r in range(2):
        np.testing.assert_allclose(res[r]["norms"], norms, rtol=1e-9)
        for n in NAMES:
            np.testing.assert_allclose(res[r]["final." + n], ref[n], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("world,auto_wrap", [(2, True), (3, False)])
def test_fsdp_optimizer_state_dict_round_trip(tmp_path, world, auto_wrap):
    """FSDP.optim_state_dict gives AdamW's state by parameter name, whole (as one process's);
    loaded into a fresh FSDP model with optim_state_dict_to_load, training goes on as if
    nothing happened (3 steps in all equal one process's 3)."""
    res = run_ranks(tmp_path, "optim", world, auto_wrap=auto_wrap)
    model = W.Net().double()
    with ember.no_grad():
        for n, p in model.named_parameters():
            p.copy_(ember.from_numpy(res[0]["init." + n]))
    opt = ember.optim.AdamW(model.parameters(), lr=0.05)
    for step, (x, y) in enumerate(W.global_batches(world, 3)):
        opt.zero_grad()
        nn.MSELoss()(model(ember.from_numpy(x)), ember.from_numpy(y)).backward()
        opt.step()
        if step == 1:
            exp_avg = {n: opt.state[p]["exp_avg"].numpy().copy() for n, p in model.named_parameters()}
    for r in range(world):
        assert sorted(res[r]["group_names"].tolist()) == sorted(NAMES)
        for n in NAMES:
            np.testing.assert_allclose(res[r]["exp_avg." + n], exp_avg[n], rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(res[r]["final." + n], dict(model.named_parameters())[n]
                                       .detach().numpy(), rtol=1e-9, atol=1e-12)


def test_fsdp_summon_full_params_writes_back(tmp_path):
    res = run_ranks(tmp_path, "summon", 2, auto_wrap=True)
    for r in range(2):
        assert res[r]["names"].tolist() == NAMES  # inside: the original names, whole
        for n in NAMES:
            np.testing.assert_array_equal(res[r]["final." + n], 2 * res[0]["init." + n])


def test_fsdp_load_state_dict_and_rank0_only(tmp_path):
    res = run_ranks(tmp_path, "load", 2, auto_wrap=True)
    for r in range(2):
        for n in NAMES:
            np.testing.assert_array_equal(res[r]["final." + n], res[0]["init." + n] + 1.0)
    assert int(res[0]["rank0_only_keys"]) == 5 and int(res[1]["rank0_only_keys"]) == 0


# ---------------------------------------------------------------- one process, beside torch


def test_fsdp_needs_process_group():
    with pytest.raises(RuntimeError, match="init_process_group"):
        fsdp.FullyShardedDataParallel(nn.Linear(2, 2))




@pytest.fixture(scope="module")
def one_rank_groups():
    """A one-rank Gloo group in ember and in torch, for the rest of this module."""
    import torch.distributed as tdist
    d = tempfile.mkdtemp()
    ember.distributed.init_process_group("gloo", init_method=f"file://{d}/e", rank=0, world_size=1)
    tdist.init_process_group("gloo", init_method=f"file://{d}/t", rank=0, world_size=1)
    yield
    ember.distributed.destroy_process_group()
    tdist.destroy_process_group()


def _pair():
    """The same nested model in both libraries, deterministic weights."""
    def build(lib):
        m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(),
                              lib.nn.Sequential(lib.nn.Linear(4, 2), lib.nn.Linear(2, 2)))
        with lib.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(lib.arange(p.numel(), dtype=lib.float32).reshape(p.shape) * 0.1 - 0.2 * i)
        return m
    return build(ember), build(torch)


@pytest.mark.filterwarnings("ignore")
def test_fsdp_one_rank_like_torch(one_rank_groups):
    from torch.distributed.fsdp import FullyShardedDataParallel as TFSDP
    from torch.distributed.fsdp.wrap import ModuleWrapPolicy as TPolicy
    em, tm = _pair()
    e = fsdp.FullyShardedDataParallel(em, auto_wrap_policy=fsdp.wrap.ModuleWrapPolicy({nn.Linear}))
    t = TFSDP(tm, auto_wrap_policy=TPolicy({torch.nn.Linear}), device_id=torch.device("cpu"))
    assert repr(e) == repr(t)
    assert [(n, tuple(p.shape)) for n, p in e.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    assert list(e.state_dict()) == list(t.state_dict())
    assert e.sharding_strategy.name == t.sharding_strategy.name == "NO_SHARD"
    eo = ember.optim.SGD(e.parameters(), lr=0.1)
    to = torch.optim.SGD(t.parameters(), lr=0.1)
    x = np.arange(15, dtype=np.float32).reshape(5, 3) / 10
    for _ in range(3):
        for mod, opt, lib in ((e, eo, ember), (t, to, torch)):
            opt.zero_grad()
            mod(lib.tensor(x)).pow(2).sum().backward()
        np.testing.assert_allclose(float(e.clip_grad_norm_(1.0)), float(t.clip_grad_norm_(1.0)),
                                   rtol=1e-5)
        eo.step()
        to.step()
    for (ke, ve), (kt, vt) in zip(e.state_dict().items(), t.state_dict().items()):
        assert ke == kt
        np.testing.assert_allclose(ve.numpy(), vt.numpy(), rtol=1e-5, atol=1e-6)
    with fsdp.FullyShardedDataParallel.summon_full_params(e), TFSDP.summon_full_params(t):
        assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
        assert type(em[0].weight).__name__ == type(tm[0].weight).__name__ == "Parameter"
    assert len(fsdp.FullyShardedDataParallel.fsdp_modules(e)) == len(TFSDP.fsdp_modules(t)) == 4
    assert len(fsdp.FullyShardedDataParallel.fsdp_modules(e, root_only=True)) == 1
    e.load_state_dict(e.state_dict())
    assert e.module is em and e[0] is em[0]  # the wrapped module, its items
    eosd = fsdp.FullyShardedDataParallel.optim_state_dict(e, eo)
    tosd = TFSDP.optim_state_dict(t, to)
    assert [g["params"] for g in eosd["param_groups"]] == [g["params"] for g in tosd["param_groups"]]
    assert list(eosd["state"]) == list(tosd["state"])  # SGD without momentum: no state
    loaded = fsdp.FullyShardedDataParallel.optim_state_dict_to_load(e, eo, eosd)
    assert loaded["param_groups"][0]["params"] == list(range(len(list(e.parameters()))))


@pytest.mark.filterwarnings("ignore")
def test_fsdp_errors(one_rank_groups):
    FSDP = fsdp.FullyShardedDataParallel
    mixed = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2).double())
    with pytest.raises(ValueError, match="uniform dtype"):
        FSDP(mixed)
    frozen = nn.Linear(2, 2)
    frozen.bias.requires_grad_(False)
    with pytest.raises(ValueError, match="uniform `requires_grad`"):
        FSDP(frozen)
    with pytest.raises(NotImplementedError, match="use_orig_params"):
        FSDP(nn.Linear(2, 2), use_orig_params=True)
    with pytest.raises(RuntimeError, match="not a CPU device"):
        FSDP(nn.Linear(2, 2), device_id=0)
    wrapped = FSDP(nn.Sequential(nn.Linear(2, 2)),
                   auto_wrap_policy=fsdp.wrap.ModuleWrapPolicy({nn.Linear}))
    with pytest.raises(NotImplementedError, match="DTensor"):
        FSDP.set_state_dict_type(wrapped, fsdp.StateDictType.SHARDED_STATE_DICT)
    with pytest.raises(RuntimeError, match="root"):
        wrapped[0].clip_grad_norm_(1.0)
    with pytest.raises(ValueError, match="rank0_only"):
        with FSDP.summon_full_params(wrapped, rank0_only=True):
            pass
    with pytest.raises(RuntimeError, match="unexpected keys"):
        wrapped.load_state_dict({"nope": ember.zeros(1)})


def test_wrap_policies_like_torch():
    import torch.distributed.fsdp.wrap as tw
    from ember.distributed.fsdp import wrap as ew
    cases = [(ember.nn.Linear(2, 2), torch.nn.Linear(2, 2)),
             (ember.nn.ModuleList([ember.nn.ReLU()]), torch.nn.ModuleList([torch.nn.ReLU()])),
             (ember.nn.MultiheadAttention(4, 2), torch.nn.MultiheadAttention(4, 2))]
    for em, tm in cases:
        for recurse in (True, False):
            for numel in (0, 10, 10 ** 9):
                kw = dict(recurse=recurse, nonwrapped_numel=numel)
                assert ew.size_based_auto_wrap_policy(em, **kw, min_num_params=10) == \
                    tw.size_based_auto_wrap_policy(tm, **kw, min_num_params=10)
                assert ew.always_wrap_policy(em, **kw) == tw.always_wrap_policy(tm, **kw)
                assert ew.transformer_auto_wrap_policy(em, **kw, transformer_layer_cls={
                    ember.nn.Linear}) == tw.transformer_auto_wrap_policy(
                        tm, **kw, transformer_layer_cls={torch.nn.Linear})
                assert ew.lambda_auto_wrap_policy(em, **kw, lambda_fn=lambda m: True) == \
                    tw.lambda_auto_wrap_policy(tm, **kw, lambda_fn=lambda m: True)
    inner = ember.nn.Linear(2, 2)
    assert ew.wrap(inner) is inner
    with ew.enable_wrap(wrapper_cls=ember.nn.Sequential):
        assert isinstance(ew.wrap(inner), ember.nn.Sequential)


def test_hf_style_isinstance_check():
    """What transformers' is_fsdp_managed_module does on every generate()."""
    import ember.distributed.fsdp as f
    assert not isinstance(nn.Linear(2, 2), f.FullyShardedDataParallel)
    p = subprocess.run([sys.executable, "-c", "import ember.distributed.fsdp"], capture_output=True,
                       env=launch.worker_env(), timeout=60)
    assert p.returncode == 0, p.stderr


OPTION_TYPES = ["BackwardPrefetch", "CPUOffload", "FullOptimStateDictConfig",
                "FullStateDictConfig", "LocalOptimStateDictConfig", "LocalStateDictConfig",
                "MixedPrecision", "OptimStateDictConfig", "ShardedOptimStateDictConfig",
                "ShardedStateDictConfig", "ShardingStrategy", "StateDictConfig",
                "StateDictSettings", "StateDictType"]


@pytest.mark.parametrize("name", OPTION_TYPES)
def test_option_types_like_torch(name):
    """Enum members and dataclass fields (names and defaults) as torch's, reachable from the
    package and from its `api` module; dtypes compared by name."""
    import dataclasses
    import enum
    import torch.distributed.fsdp as tf
    e, t = getattr(fsdp, name), getattr(tf, name)
    assert getattr(fsdp.api, name) is e
    if issubclass(t, enum.Enum):
        assert [(m.name, m.value) for m in e] == [(m.name, m.value) for m in t]
        return
    public = [f for f in dataclasses.fields(t) if not f.name.startswith("_")]
    ours = {f.name: f for f in dataclasses.fields(e)}
    for f in public:
        assert f.name in ours, f.name
        if f.default is not dataclasses.MISSING:
            assert ours[f.name].default == f.default, f.name


def test_flat_parameter_and_module_names():
    """FlatParameter is a Parameter (what optimizers take); the class lives in
    fully_sharded_data_parallel as torch's."""
    p = fsdp.FlatParameter(ember.zeros(3))
    assert isinstance(p, nn.Parameter) and p.requires_grad and p._is_flat_param
    assert fsdp.fully_sharded_data_parallel.FullyShardedDataParallel is fsdp.FullyShardedDataParallel
    import torch.distributed.fsdp as tf
    assert issubclass(tf.FlatParameter, torch.nn.Parameter)
