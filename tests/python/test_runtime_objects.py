"""torch's runtime names in ember, compared with torch 2.13 where both answer: Stream/Event on
the CPU, futures, the exception types, build and path queries, device modules (xpu, mtia),
TorchVersion, types/functional, hub from a local directory, ThroughputBenchmark, the file
record reader/writer (files read by the other library), init_num_threads, set_flush_denormal."""
import os
import threading

import numpy as np
import pytest
import torch

import ember


def test_stream_and_event_on_cpu():
    s, e = ember.Stream(), ember.Event()
    assert s.query() and e.query() and s.device == ember.device("cpu") and s == ember.Stream()
    assert repr(s) == repr(torch.Stream()) and repr(e) == repr(torch.Event())
    assert s.synchronize() is None and e.synchronize() is None and e.wait() is None
    with s:
        pass
    for call in (lambda: s.record_event(), lambda: e.record(), lambda: s.wait_stream(ember.Stream())):
        with pytest.raises(RuntimeError, match="cpu backend doesn't support events"):
            call()
    with pytest.raises(ValueError, match="enable_timing=True"):
        e.elapsed_time(ember.Event())
    with pytest.raises(RuntimeError):
        ember.Stream("cuda")


def test_futures():
    f = ember.futures.Future()
    assert not f.done()
    chained = f.then(lambda fut: fut.wait() + 1)
    seen = []
    f.add_done_callback(lambda fut: seen.append(fut.value()))
    threading.Timer(0.01, lambda: f.set_result(3)).start()
    assert f.wait() == 3 and chained.wait() == 4 and seen == [3]
    with pytest.raises(RuntimeError, match="only be marked completed once"):
        f.set_result(4)
    g = ember.futures.Future()
    g.set_exception(ValueError("bad"))
    with pytest.raises(ValueError, match="bad"):
        g.wait()
    bad = ember.futures.Future()
    after = bad.then(lambda fut: 1 / 0)
    bad.set_result(1)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        after.wait()
    a, b = ember.futures.Future(), ember.futures.Future()
    both = ember.futures.collect_all([a, b])
    a.set_result(1)
    assert not both.done()
    b.set_result(2)
    assert [x.wait() for x in both.wait()] == [1, 2] and ember.futures.wait_all([a, b]) == [1, 2]
    with pytest.raises(AssertionError, match="not an Exception"):
        ember.futures.Future().set_exception(3)
    # torch.Future is the class futures.Future extends: isinstance holds either way.
    assert isinstance(ember.futures.Future(), ember.Future)
    assert isinstance(torch.futures.Future(), torch.Future)


def test_exception_types_and_queries():
    for name in ("OutOfMemoryError", "AcceleratorError", "FatalError"):
        assert [c.__name__ for c in getattr(ember, name).__mro__[1:]] == \
            [c.__name__ for c in getattr(torch, name).__mro__[1:]]
    assert ember.compiled_with_cxx11_abi() in (True, False)
    assert ember.get_file_path("a", "b") == os.path.join(os.path.dirname(os.path.dirname(ember.__file__)), "a", "b")
    assert ember.get_device_module() is ember.cpu and ember.get_device_module("cuda:0") is ember.cuda
    assert ember.get_device_module(ember.device("cpu")) is ember.cpu
    with pytest.raises(RuntimeError, match="Invalid value of device"):
        ember.get_device_module(3)
    assert ember.is_distributed(ember.ones(2)) is False and torch.is_distributed(torch.ones(2)) is False
    assert ember.thread_safe_generator() is None
    assert ember.prepare_multiprocessing_environment("/tmp") is None
    t = ember.arange(4.0)
    assert torch.from_dlpack(ember.to_dlpack(t)).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert ember.from_dlpack(ember.to_dlpack(t)).tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(TypeError, match="must be Tensor"):
        ember.to_dlpack(3)

    class K:
        @ember.classproperty
        def name(cls):
            return cls.__name__
    assert K.name == "K" and K().name == "K"


def test_xpu_and_mtia_as_torch_without_them():
    for mod in ("xpu", "mtia"):
        e, t = getattr(ember, mod), getattr(torch, mod)
        assert e.is_available() is t.is_available() is False and e.device_count() == t.device_count() == 0
        assert e.memory_allocated() == t.memory_allocated() and e.is_bf16_supported() == t.is_bf16_supported()
        assert e.manual_seed(0) is None
        for call in ("current_device", "init"):
            with pytest.raises(Exception) as te:
                getattr(t, call)()
            with pytest.raises(type(te.value)):
                getattr(e, call)()
    with pytest.raises(AssertionError, match="XPU"):
        ember.ones(2).xpu()
    with pytest.raises(AssertionError, match="MTIA"):
        ember.ones(2).mtia()


def test_torch_version_types_functional():
    from ember.torch_version import TorchVersion
    v = TorchVersion("2.13.0+cpu")
    assert v > (2, 1) and v >= "2.13" and v < "2.14.0a0" and v == (2, 13, 0) and v > "1.10.0"
    assert TorchVersion("1.10.0a") < "1.10.0" and isinstance(ember.torch_version.__version__, str)
    assert ember.types.Number is not None and ember.types.Device is not None
    assert ember.functional.einsum is ember.einsum and "unravel_index" in ember.functional.__all__


def test_hub_local(tmp_path):
    (tmp_path / "hubconf.py").write_text(
        "dependencies = ['numpy']\n"
        "import ember\n"
        "def tiny(n=2):\n    '''A linear layer.'''\n    return ember.nn.Linear(n, 1)\n"
        "def _private():\n    pass\n")
    assert ember.hub.list(str(tmp_path), source="local") == ["tiny"]
    assert ember.hub.help(str(tmp_path), "tiny", source="local") == "A linear layer."
    assert ember.hub.load(str(tmp_path), "tiny", 3, source="local").weight.shape == (1, 3)
    with pytest.raises(RuntimeError, match="Cannot find callable"):
        ember.hub.load(str(tmp_path), "nope", source="local")
    with pytest.raises(ValueError, match="Unknown source"):
        ember.hub.load(str(tmp_path), "tiny", source="ftp")
    (tmp_path / "needs").mkdir()
    (tmp_path / "needs" / "hubconf.py").write_text("dependencies = ['no_such_pkg_ember']\ndef m():\n    pass\n")
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_pkg_ember"):
        ember.hub.load(str(tmp_path / "needs"), "m", source="local")
    # load_state_dict_from_url: a file:// URL stands in for the network; then the cached copy
    src = tmp_path / "w.pt"
    torch.save({"w": torch.arange(3.0)}, src)
    sd = ember.hub.load_state_dict_from_url(src.as_uri(), model_dir=str(tmp_path / "ckpt"))
    assert sd["w"].tolist() == [0.0, 1.0, 2.0] and (tmp_path / "ckpt" / "w.pt").exists()
    ember.hub.set_dir(str(tmp_path / "hubdir"))
    assert ember.hub.get_dir() == str(tmp_path / "hubdir")
    ember.hub.set_dir(torch.hub.get_dir())
    with pytest.raises(RuntimeError, match="invalid hash"):
        ember.hub.download_url_to_file(src.as_uri(), str(tmp_path / "x.pt"), hash_prefix="0000")


def test_throughput_benchmark():
    m = ember.nn.Linear(3, 2)
    b = ember.ThroughputBenchmark(m)
    with pytest.raises(RuntimeError, match="add_input"):
        b.benchmark(ember.BenchmarkConfig())
    b.add_input(ember.randn(4, 3))
    assert b.run_once(ember.ones(1, 3)).shape == (1, 2)
    c = ember.BenchmarkConfig()
    assert (c.num_calling_threads, c.num_warmup_iters, c.num_iters) == (1, 1, 100)
    c.num_calling_threads, c.num_iters = 2, 20
    s = b.benchmark(c)
    assert isinstance(s, ember.BenchmarkExecutionStats) and s.num_iters == 20 and s.latency_avg_ms > 0
    with pytest.raises(TypeError, match="No constructor"):
        ember.BenchmarkExecutionStats()


def test_file_records_both_ways(tmp_path):
    w = ember.PyTorchFileWriter(str(tmp_path / "e.pt"))
    assert w.archive_name() == "e"
    w.write_record("data.pkl", b"abc", 3)
    w.write_record("blob", np.arange(4, dtype=np.float32).tobytes(), 16)
    with pytest.raises(RuntimeError):
        w.write_record("blob", b"x", 1)
    w.write_end_of_file()
    r = torch.PyTorchFileReader(str(tmp_path / "e.pt"))  # torch reads ember's records
    assert r.get_record("data.pkl") == b"abc" and r.get_record_offset("blob") % 64 == 0
    assert sorted(r.get_all_records()) == sorted(["data.pkl", "blob", "version", "byteorder",
                                                  ".data/serialization_id"])
    tw = torch.PyTorchFileWriter(str(tmp_path / "t.pt"))
    tw.write_record("x", b"hello", 5)
    tw.write_end_of_file()
    er = ember.PyTorchFileReader(str(tmp_path / "t.pt"))  # and ember reads torch's
    tr = torch.PyTorchFileReader(str(tmp_path / "t.pt"))
    assert er.get_record("x") == b"hello" and er.get_all_records() == tr.get_all_records()
    assert er.get_record_offset("x") == tr.get_record_offset("x") and er.serialization_id() == tr.serialization_id()
    st = ember.PyTorchFileReader(str(tmp_path / "e.pt")).get_storage_from_record("blob", 4, ember.float32)
    assert st.tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match="file not found"):
        er.get_record("nope")
    with pytest.raises(RuntimeError, match="does not match expected size"):
        er.get_storage_from_record("x", 2, ember.float32)


def test_init_num_threads_and_flush_denormal():
    n = ember.get_num_threads()
    seen = []

    def worker():
        ember.init_num_threads()
        seen.append(ember.get_num_threads())
    ember.set_num_threads(1)
    try:
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert seen == [1]
    finally:
        ember.set_num_threads(n)
    tiny = ember.tensor([1e-40], dtype=ember.float32)
    try:
        assert ember.set_flush_denormal(True) is torch.set_flush_denormal(True) is True
        assert (tiny * 1.0).item() == 0.0
        big = ember.full((100000,), 1e-40)  # large enough to run on the pool's threads too
        assert (big * 1.0).abs().max().item() == 0.0
    finally:
        ember.set_flush_denormal(False)
        torch.set_flush_denormal(False)
    assert (tiny * 1.0).item() != 0.0


def test_config_show_and_parallel_info_describe_embers_build():
    # torch.__config__'s two texts, in torch's layout; the values are ember's own build.
    shown, info = ember.__config__.show(), ember.__config__.parallel_info()
    assert shown.startswith("ember built with:\n") and torch.__config__.show().startswith(
        "PyTorch built with:\n")
    settings = shown.split("Build settings: ")[1]
    assert "USE_MKL=OFF" in settings and "USE_CUDA=0" in settings  # ember links no MKL
    assert f"COMMIT_SHA={ember._C.build_info()['git_revision']}" in settings
    assert f"at::get_num_threads() : {ember.get_num_threads()}" in info
    assert "Environment variables:" in info and "OMP_NUM_THREADS : " in info


def test_tensor_str_names_as_torch():
    from ember import _tensor_str as e_ts
    from torch import _tensor_str as t_ts
    for arr in (np.arange(6.0).reshape(2, 3), np.arange(5), np.zeros((0, 2), np.float32),
                np.arange(3000.0)):
        for indent in (0, 7):
            assert e_ts._tensor_str(ember.tensor(arr), indent) == \
                t_ts._tensor_str(torch.tensor(arr), indent)
    for suffixes, force in ((["dim_size=3"], False), (["a=1", "b=2"], True), (["x" * 90], False)):
        assert e_ts._add_suffixes("Index([1, 2]", suffixes, 6, force) == \
            t_ts._add_suffixes("Index([1, 2]", suffixes, 6, force)
    assert e_ts.PRINT_OPTS.threshold == t_ts.PRINT_OPTS.threshold == 1000


def test_rpc_is_absent_as_in_a_build_without_it():
    from ember.distributed import rpc
    assert rpc.is_available() is False and not hasattr(rpc, "api")
    assert not hasattr(rpc, "init_rpc")


def test_fx_compatibility_decorator_as_torch():
    from torch.fx._compatibility import compatibility as t_compat
    for compat in (ember.fx._symbolic_trace.compatibility, t_compat):
        for flag in (True, False):
            def f():
                """Doc."""
            assert compat(is_backward_compatible=flag)(f) is f
            assert f.__doc__.startswith("Doc.")
            assert ("guaranteed" in f.__doc__) == flag and ("experimental" in f.__doc__) != flag


_INTEROP = """
import sys
lib = __import__(sys.argv[1])
out = [lib.get_num_interop_threads() >= 1]
for v in (0, 1.5, True, 3, 4):
    try:
        lib.set_num_interop_threads(v)
        out.append(("ok", lib.get_num_interop_threads()))
    except RuntimeError as e:
        out.append(("RuntimeError", str(e)))
print(out)
"""


def test_interop_threads_set_once_as_torch():
    import subprocess
    import sys
    got = [subprocess.run([sys.executable, "-c", _INTEROP, lib], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}).stdout
           for lib in ("ember", "torch")]
    assert got[0] == got[1] and "('ok', 3)" in got[0] and "cannot set number" in got[0]


def test_warn_always_switch_and_disable_torch_function_names():
    for lib in (ember, torch):
        before = lib.is_warn_always_enabled()
        try:
            lib.set_warn_always(True)
            assert lib.is_warn_always_enabled() is True
            with pytest.raises(RuntimeError, match="expects a bool, but got int"):
                lib.set_warn_always(1)
        finally:
            lib.set_warn_always(before)

    class Sub(ember.Tensor):
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func)
            with ember.DisableTorchFunctionSubclass():
                return func(*args, **(kwargs or {}))

    s = ember.ones(2).as_subclass(Sub)
    s + 1
    n = len(Sub.calls)
    assert n >= 1
    with ember.DisableTorchFunctionSubclass():
        s + 1
    with ember.DisableTorchFunction():
        s + 1
    assert len(Sub.calls) == n
    assert ember.DisableTorchFunction is ember._C.DisableTorchFunction


def test_future_is_generic_as_torch():
    # captum annotates with torch.futures.Future[Tensor]
    assert ember.futures.Future[ember.Tensor].__origin__ is ember.futures.Future
    f = ember.futures.Future()
    f.set_result(3)
    assert f.wait() == 3
