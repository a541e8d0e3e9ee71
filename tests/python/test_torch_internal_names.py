"""Names from torch's internals that real programs import (Lightning, among others), each
checked to play the role it plays in torch 2.13."""
import torch

import ember


def test_reduce_op_red_op_type():
    import ember.distributed as dist
    import torch.distributed as tdist
    for name in ("SUM", "AVG", "MAX", "MIN", "PRODUCT"):
        assert getattr(dist.ReduceOp.RedOpType, name) == getattr(dist.ReduceOp, name)
        assert getattr(tdist.ReduceOp.RedOpType, name) == getattr(tdist.ReduceOp, name)


def test_distributed_constants():
    import ember.distributed.constants as ec
    import torch.distributed.constants as tc
    assert ec.default_pg_timeout == tc.default_pg_timeout
    assert ec.default_pg_nccl_timeout is None  # no NCCL (torch's CPU build: None too)
    assert ember.distributed.default_pg_timeout is ec.default_pg_timeout


def test_tensor_meta_is_the_tensor_metaclass():
    assert ember._C._TensorMeta is type(ember.Tensor)
    assert torch._C._TensorMeta is type(torch.Tensor)


def test_optimized_module_is_what_compile_returns():
    import ember._dynamo
    import torch._dynamo
    for lib in (ember, torch):
        assert isinstance(lib.compile(lib.nn.Linear(2, 2)), lib._dynamo.OptimizedModule)
        # accelerate's unwrap_model spells it through eval_frame
        assert lib._dynamo.eval_frame.OptimizedModule is lib._dynamo.OptimizedModule
        assert not isinstance(lib.nn.Linear(2, 2), lib._dynamo.eval_frame.OptimizedModule)


def test_dynamo_and_inductor_load_on_first_use():
    # torch.__getattr__ imports them lazily: `torch._dynamo.config.verbose = True` with no
    # import (einops' tests); a fresh interpreter, since other tests import both
    import subprocess
    import sys
    code = ("import {0}; {0}._dynamo.config.verbose = True; "
            "print({0}._dynamo.config.verbose, {0}._inductor.config.max_autotune, "
            "{0}._dynamo.OptimizedModule.__name__)")
    for lib in ("ember", "torch"):
        out = subprocess.run([sys.executable, "-c", code.format(lib)], capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == ["True", "False", "OptimizedModule"]


def test_dataloader_iterator_classes():
    from ember.utils.data import dataloader as ed
    from torch.utils.data import dataloader as td
    for lib, mod in ((ember, ed), (torch, td)):
        it = iter(lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.ones(4, 2)),
                                            batch_size=2))
        assert isinstance(it, mod._BaseDataLoaderIter)
        assert isinstance(it, mod._SingleProcessDataLoaderIter)
        assert not isinstance(it, mod._MultiProcessingDataLoaderIter)
        assert issubclass(mod._MultiProcessingDataLoaderIter, mod._BaseDataLoaderIter)


def test_batchnorm_base():
    from ember.nn.modules.batchnorm import _BatchNorm
    from torch.nn.modules.batchnorm import _BatchNorm as _TBatchNorm
    for cls, base, lib in ((ember.nn.BatchNorm2d, _BatchNorm, ember),
                           (torch.nn.BatchNorm2d, _TBatchNorm, torch)):
        assert issubclass(cls, base) and issubclass(lib.nn.SyncBatchNorm, base)


def test_script_types_have_no_instances():
    import ember.jit
    assert ember.ScriptModule is ember.jit.ScriptModule and ember.ScriptFunction is ember.jit.ScriptFunction
    m = ember.nn.Linear(2, 2)
    assert ember.jit.script(m) is m and not isinstance(ember.jit.script(m), ember.ScriptModule)
    assert not isinstance(torch.nn.Linear(2, 2), torch.ScriptModule)  # torch: unscripted, the same
    import pytest
    with pytest.raises(RuntimeError, match="TorchScript"):
        ember.jit.ScriptModule()


def test_event_list_table_signature_and_totals():
    import inspect

    from ember.autograd.profiler import EventList
    from torch.autograd.profiler import EventList as TEventList
    assert list(inspect.signature(EventList.table).parameters) == \
        list(inspect.signature(TEventList.table).parameters)  # Lightning validates kwargs by it
    with ember.profiler.profile() as p:
        ember.ones(3, 3).sum()
    events = p.key_averages()
    assert isinstance(events, EventList) and events.key_averages() is events
    assert events.self_cpu_time_total > 0
    text = events.table(sort_by="cpu_time_total", row_limit=2, header="my ops",
                        max_name_column_width=8)
    assert text.splitlines()[0] == "my ops" and "sum" in text


def test_version_names_the_torch_api_and_ember_release():
    import subprocess
    import sys

    from ember.torch_version import TorchVersion
    assert ember.__version__ == "2.13.0+ember.0.1.0" and isinstance(ember.__version__, TorchVersion)
    assert ember.__version__ >= "2.0" and ember.__version__ >= (1, 12)  # programs' gates pass
    assert ember.version.ember_version == "0.1.0"
    assert ember.version.torch_api_version == torch.__version__.split("+")[0]
    out = subprocess.run([sys.executable, "-m", "ember", "--version"], capture_output=True,
                         text=True, timeout=60)
    assert out.stdout.strip() == "ember 0.1.0 (torch 2.13.0 API)"


def test_emit_nvtx_as_torch_cpu_build():
    import pytest
    for lib in (ember, torch):
        with lib.autograd.profiler.emit_nvtx(enabled=False):
            lib.ones(2) + 1
        with pytest.raises(AssertionError, match="CUDA"):
            with lib.autograd.profiler.emit_nvtx():
                pass


def test_parse_to_like_torch():
    cases = [(("cpu",), {}), ((None,),  {"dtype": "float64"}), (("cpu", "float16"), {}),
             (("tensor_int32",), {}), ((), {"dtype": "float64", "non_blocking": True}),
             ((), {"memory_format": "channels_last"})]

    def resolve(lib, v):
        if v == "tensor_int32":
            return lib.ones(1, dtype=lib.int32)
        return getattr(lib, v) if v in ("float64", "float16", "channels_last") else v
    for args, kw in cases:
        out = []
        for lib in (ember, torch):
            a = [resolve(lib, x) for x in args]
            k = {key: resolve(lib, v) for key, v in kw.items()}
            if args == (None,):
                a = []
            out.append([str(x).replace("torch.", "").replace("ember.", "")
                        for x in lib._C._nn._parse_to(*a, **k)])
        assert out[0] == out[1], (args, kw, out)


def test_names_pyro_imports():
    # pyro 1.9: torch.serialization.MAP_LOCATION (its ParamStore.load annotation), STORAGE,
    # torch._C._get_tracing_state (asked before data-dependent checks), jit.TracerWarning
    # (filtered around jit.trace), torch._C._LinAlgError (caught by its HMC integrator)
    import typing
    import warnings
    import ember.jit
    import ember.serialization as es
    import torch.serialization as ts
    for lib, ser in ((torch, ts), (ember, es)):
        assert lib._C._get_tracing_state() is None
        assert lib._C._LinAlgError is lib.linalg.LinAlgError
        assert issubclass(lib.jit.TracerWarning, Warning)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            warnings.filterwarnings("ignore", category=lib.jit.TracerWarning)
            warnings.warn("x", lib.jit.TracerWarning)
        assert seen == []
        args = typing.get_args(ser.MAP_LOCATION)
        assert lib.device in args and str in args and type(None) in args
        assert set(typing.get_args(ser.STORAGE)) >= {lib.UntypedStorage, lib.TypedStorage}
    import pytest
    for lib in (torch, ember):
        with pytest.raises(lib._C._LinAlgError, match="positive-definite"):
            lib.linalg.cholesky(-lib.eye(2))


# ---- what transformers 5.24 imports at load time (its distributed, generation, masking and
# flex-attention helpers), each checked against torch 2.13 ----------------------------------

def test_compute_local_shape_and_global_offset_as_torch():
    """Every placement sequence of Replicate, Shard(0), Shard(-1 as last), _StridedShard(0, 2)
    on 1-d and 2-d meshes, every coordinate, even and uneven and empty shapes: 900 cases."""
    import itertools
    from torch.distributed.tensor import _utils as tu, placement_types as tp
    from ember.distributed.tensor import _utils as eu, placement_types as ep

    def placements(lib, code, ndim):
        return [lib.Replicate() if k == 0 else lib.Shard(0) if k == 1 else lib.Shard(ndim - 1)
                if k == 2 else lib._StridedShard(0, split_factor=2) for k in code]
    cases = 0
    for shape in [(8, 6), (7, 5), (3, 2), (0, 4), (5,)]:
        for mesh in [(2,), (3,), (2, 2), (2, 3)]:
            for code in itertools.product(range(4), repeat=len(mesh)):
                for coord in itertools.product(*[range(m) for m in mesh]):
                    want = tu._compute_local_shape_and_global_offset(
                        shape, mesh, list(coord), placements(tp, code, len(shape)))
                    got = eu._compute_local_shape_and_global_offset(
                        shape, mesh, list(coord), placements(ep, code, len(shape)))
                    assert got == want, (shape, mesh, code, coord)
                    cases += 1
    assert cases == 900


def test_shard_sizes_and_strided_shard_as_torch():
    from torch.distributed.tensor import placement_types as tp
    from ember.distributed.tensor import placement_types as ep
    for lib in (tp, ep):
        s = lib._StridedShard(0, split_factor=2)
        assert repr(s) == "_StridedShard(dim=0, sf=2)" and str(s) == "_S(0, 2)"
        assert s == lib._StridedShard(0, sf=2) and s != lib.Shard(0) and not isinstance(s, lib.Shard)
        assert hash(s) == hash(lib._StridedShard(0, sf=2)) and not s.is_shard()
    for n in range(0, 10):
        for chunks in (1, 2, 3, 4):
            for r in range(chunks):
                assert ep.Shard.local_shard_size_and_offset(n, chunks, r) == \
                    tuple(int(v) for v in tp.Shard.local_shard_size_and_offset(n, chunks, r))
                for mode in (0, 1, 2):
                    assert ep._StridedShard(0, split_factor=2).local_shard_size_and_offset(n, chunks, r, mode) \
                        == tp._StridedShard(0, split_factor=2).local_shard_size_and_offset(n, chunks, r, mode)


def test_dtensor_refuses_a_strided_shard_it_cannot_lay_out(tmp_path):
    import pytest
    import ember.distributed as dist
    from ember.distributed.tensor import distribute_tensor
    from ember.distributed.tensor.placement_types import _StridedShard
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/s", rank=0, world_size=1)
    try:
        mesh = dist.init_device_mesh("cpu", (1,))
        with pytest.raises(NotImplementedError, match="distribute_tensor.*_StridedShard"):
            distribute_tensor(ember.ones(4), mesh, [_StridedShard(0, split_factor=2)])
    finally:
        dist.destroy_process_group()


def test_finfo_of_float8_and_complex_dtypes_as_torch():
    import pytest
    for name in ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
                 "float8_e8m0fnu", "complex32", "complex64", "complex128"):
        e, t = ember.finfo(getattr(ember, name)), torch.finfo(getattr(torch, name))
        for k in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
            assert getattr(e, k) == getattr(t, k), (name, k)
        assert e.dtype == str(t.dtype) and repr(e) == repr(t)
    with pytest.raises(TypeError, match="floating point"):
        ember.finfo(ember.float4_e2m1fn_x2)


def test_transform_getitem_to_index_under_vmap_as_torch():
    """transformers' mask builder: vmap over four index vectors of a function that indexes a
    padding mask with the (0-d, batched) tensors, inside TransformGetItemToIndex."""
    results = []
    for lib in (torch, ember):
        mode = __import__(f"{lib.__name__}._dynamo._trace_wrapped_higher_order_op",
                          fromlist=["x"]).TransformGetItemToIndex
        pad = lib.tensor([[1, 1, 0], [1, 1, 1]], dtype=lib.bool)
        f = lambda b, h, q, kv: (kv <= q) & pad[b, kv]  # noqa: E731
        for dims in [(None, None, None, 0), (None, None, 0, None), (None, 0, None, None),
                     (0, None, None, None)]:
            f = lib.vmap(f, in_dims=dims)
        t = lib.arange(6).reshape(2, 3)
        with mode():
            plain = (t[lib.tensor(1)], t[lib.tensor([1, 0]), lib.tensor([2, 2])], t[0], t[:, 1])
            results.append([f(lib.arange(2), lib.arange(1), lib.arange(3), lib.arange(3))]
                           + list(plain))
    for t, e in zip(*results):
        assert e.tolist() == t.tolist()


def test_cuda_graph_names_raise_as_torchs_cpu_build():
    import pytest
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="dummy base class CUDAGraph"):
            lib.cuda.CUDAGraph()
        with pytest.raises(RuntimeError, match="requires CUDA"):
            lib.cuda.graph(None)
        with pytest.raises(RuntimeError, match="dummy base class CUDAGraph"):
            lib.cuda.make_graphed_callables(lambda x: x, (lib.ones(1),))


def test_assume_constant_result_marks_and_returns_the_function():
    for lib in (torch, ember):
        f = lib._dynamo.assume_constant_result(lambda: 3)
        assert f() == 3 and f._dynamo_marked_constant is True


def test_fsdp2_policies_as_torch_and_fully_shard_refuses():
    import dataclasses
    import pytest
    import torch.distributed.fsdp as tf
    import ember.distributed.fsdp as ef
    import ember.distributed._composable.fsdp as ecf
    for name in ("MixedPrecisionPolicy", "OffloadPolicy", "CPUOffloadPolicy"):
        e, t = getattr(ef, name), getattr(tf, name)
        assert [(f.name, f.default) for f in dataclasses.fields(e)] == \
            [(f.name, f.default) for f in dataclasses.fields(t)]
        assert e.__dataclass_params__.frozen == t.__dataclass_params__.frozen
    assert issubclass(ef.CPUOffloadPolicy, ef.OffloadPolicy)
    assert ef.MixedPrecisionPolicy(param_dtype=ember.bfloat16).param_dtype is ember.bfloat16
    with pytest.raises(NotImplementedError, match="fully_shard: ember has no FSDP2"):
        ecf.fully_shard(ember.nn.Linear(2, 2))
    with pytest.raises(NotImplementedError, match="FSDPModule"):
        ef.FSDPModule()
    from ember.distributed.checkpoint.hf_storage import HuggingFaceStorageReader, HuggingFaceStorageWriter
    for cls in (HuggingFaceStorageReader, HuggingFaceStorageWriter):
        with pytest.raises(NotImplementedError, match="no distributed checkpoint"):
            cls("/tmp/x")


# ---- what kornia, pytorch-ignite and MONAI reach for at import ----------------------------

def test_backend_names_and_tables_as_torch():
    import torch.distributed as tdist
    import ember.distributed as edist
    for name in ("GLOO", "NCCL", "MPI", "UCC", "XCCL", "FAKE", "UNDEFINED"):
        assert getattr(edist.Backend, name) == getattr(tdist.Backend, name)
    assert edist.Backend.backend_list == tdist.Backend.backend_list
    # (torch's tables grow when a test registers its fake backend: compare ember's entries)
    for table in ("default_device_backend_map", "backend_capability"):
        mine, theirs = getattr(edist.Backend, table), getattr(tdist.Backend, table)
        assert mine == {k: theirs[k] for k in mine}, table
    assert not edist.is_nccl_available()


def test_symbolic_size_names_on_concrete_values_as_torch():
    import numpy as np
    import pytest
    for a, b in [(2, 3.0), (2, 3), (np.int64(4), 2), (1.5, np.float32(2.5))]:
        for fn in ("sym_max", "sym_min"):
            e, t = getattr(ember, fn)(a, b), getattr(torch, fn)(a, b)
            assert e == t and type(e) is type(t), (fn, a, b)
    assert (ember.sym_int(-3.7), ember.sym_float(3), ember.sym_not(0), ember.sym_sqrt(4),
            ember.sym_sum([1.5, 2])) == (torch.sym_int(-3.7), torch.sym_float(3), torch.sym_not(0),
                                         torch.sym_sqrt(4), torch.sym_sum([1.5, 2]))
    assert ember.sym_ite(True, 1, 2) == torch.sym_ite(True, 1, 2) == 1
    for lib in (torch, ember):
        assert not isinstance(3, lib.SymInt) and not isinstance(2.0, lib.SymFloat)
        with pytest.raises(AssertionError):
            lib.sym_max("a", 1)
        with pytest.raises(AssertionError):
            lib.sym_ite(True, 1, 2.0)
    with pytest.raises(TypeError, match="SymInt: ember's sizes are concrete"):
        ember.SymInt(3)


def test_fake_tensor_and_proxy_mode_queries():
    import pytest
    from ember._subclasses.fake_tensor import FakeTensor, FakeTensorMode, is_fake
    from torch._subclasses.fake_tensor import is_fake as t_is_fake
    for x in (3, [1], None):
        assert is_fake(x) is t_is_fake(x) is False
    assert is_fake(ember.ones(2)) is t_is_fake(torch.ones(2)) is False
    assert not isinstance(ember.ones(2), FakeTensor) and issubclass(FakeTensor, ember.Tensor)
    with pytest.raises(NotImplementedError, match="FakeTensorMode"):
        FakeTensorMode()
    from torch.fx.experimental.proxy_tensor import get_proxy_mode
    assert ember.fx.experimental.proxy_tensor.get_proxy_mode() is get_proxy_mode() is None
    from ember.fx.experimental import symbolic_shapes as es
    from torch.fx.experimental import symbolic_shapes as ts
    for g in ("guard_or_false", "guard_or_true", "statically_known_true", "statically_known_false"):
        for v in (True, False):
            assert getattr(es, g)(v) == getattr(ts, g)(v), (g, v)
        for mod in (es, ts):
            with pytest.raises(AssertionError, match="Expected bool"):
                getattr(mod, g)(3)
    assert issubclass(es.GuardOnDataDependentSymNode, RuntimeError)


def test_collate_with_a_type_map_as_torch():
    """torch.utils.data._utils.collate: collate() with default_collate_fn_map, an extended map,
    NumPy leaves and containers (MONAI and Lightning build on it)."""
    import collections
    import numpy as np
    import pytest
    from torch.utils.data._utils import collate as tc
    from ember.utils.data._utils import collate as ec
    Point = collections.namedtuple("Point", "x y")

    def batch(lib):
        return [{"img": lib.ones(2, 2) * i, "label": i, "w": 0.5 * i, "name": f"s{i}",
                 "arr": np.arange(3) + i, "np_scalar": np.float32(i), "pt": Point(i, [i, i + 1])}
                for i in range(3)]

    def flat(x):
        if isinstance(x, dict):
            return {k: flat(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return type(x)(flat(v) for v in x) if not hasattr(x, "_fields") else tuple(flat(v) for v in x)
        if hasattr(x, "numpy"):
            return (str(x.dtype).split(".")[-1], x.tolist())
        return x
    assert flat(ec.collate(batch(ember), collate_fn_map=ec.default_collate_fn_map)) == \
        flat(tc.collate(batch(torch), collate_fn_map=tc.default_collate_fn_map))

    class Box:
        def __init__(self, v):
            self.v = v
    for mod, lib in ((ec, ember), (tc, torch)):
        fn_map = dict(mod.default_collate_fn_map)
        fn_map[Box] = lambda b, *, collate_fn_map=None: sum(x.v for x in b)
        assert mod.collate([(Box(1), 1), (Box(2), 2)], collate_fn_map=fn_map)[0] == 3
        with pytest.raises(TypeError, match="batch must contain tensors"):
            mod.collate([object()], collate_fn_map=mod.default_collate_fn_map)
        with pytest.raises(TypeError, match="batch must contain tensors"):
            mod.collate([np.array(["a"])], collate_fn_map=mod.default_collate_fn_map)
    assert ec.np_str_obj_array_pattern.pattern == tc.np_str_obj_array_pattern.pattern
    import ember.utils.data._utils as eu
    import ember.utils.data._worker as worker
    assert eu.worker is worker and eu.MP_STATUS_CHECK_INTERVAL > 0


def test_drop_in_torch_names_itself(tmp_path):
    """torch.torch is torch (kornia annotates with torch.torch.Tensor)."""
    import subprocess
    import sys
    prog = tmp_path / "prog.py"
    prog.write_text("import torch\nassert torch.torch is torch and torch.torch.Tensor is torch.Tensor\n"
                    "print('ok')\n")
    out = subprocess.run([sys.executable, "-m", "ember", "run", str(prog)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_old_dtensor_module_and_dataloader_typing_aliases_as_torch():
    # opacus imports both at load time
    import typing

    import pytest
    import ember.distributed._tensor as old
    import ember.distributed.tensor as new
    import ember.utils.data.dataloader as edl
    import torch.distributed._tensor as told
    import torch.utils.data.dataloader as tdl
    from ember.distributed._tensor.experimental import implicit_replication
    assert old.DTensor is new.DTensor and old.Shard is new.Shard
    assert {n for n in dir(told) if n[0].isupper()} <= set(dir(old))
    with pytest.raises(NotImplementedError, match="implicit_replication: ember's ops take no DTensor"):
        implicit_replication()
    for name in ("_collate_fn_t", "_worker_init_fn_t"):
        assert typing.get_origin(getattr(edl, name)) is typing.get_origin(getattr(tdl, name))
        assert typing.get_args(getattr(edl, name))[-1] == typing.get_args(getattr(tdl, name))[-1]
