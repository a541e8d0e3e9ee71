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
