"""Devices on a CPU-only library: each name of ember.{device, cuda, accelerator, backends, mps,
version} called on ember and on torch 2.13's CPU build, comparing the result (or the exception's
type and message) and the warnings, name by name."""
import pickle
import re
import warnings

import pytest
import torch

import ember

# (expression, how to compare). `m` is ember or torch. "same": result or exception type and
# message, and the warnings; "type": the result, or the exception's type only (ember's message
# says more than torch's, e.g. instead of a dispatcher dump).
CASES = [
    # ---- version
    ("m.version.cuda", "same"), ("m.version.hip", "same"), ("m.version.debug", "same"),
    ("m.version.xpu", "same"), ("m.version.rocm", "same"),
    ("isinstance(m.version.git_version, str)", "same"),
    ("m.__version__ == m.version.__version__", "same"),
    # ---- device: naming any device works
    ("m.device('cuda')", "same"), ("m.device('cuda', 0)", "same"), ("m.device('cuda:1')", "same"),
    ("m.device('mps')", "same"), ("m.device('cpu:0')", "same"), ("m.device('cpu', 0)", "same"),
    ("m.device('meta')", "same"), ("m.device(type='cuda', index=1)", "same"),
    ("m.device('cuda', None)", "same"), ("m.device(m.device('cuda:1'))", "same"),
    ("str(m.device('cuda:1'))", "same"), ("str(m.device('cpu'))", "same"),
    ("m.device('cuda:1').index", "same"), ("m.device('cuda').index", "same"),
    ("m.device('cuda:1').type", "same"), ("m.device('cpu').index", "same"),
    ("m.device('cpu') == m.device('cpu:0')", "same"), ("m.device('cpu') == 'cpu'", "same"),
    ("m.device('cuda:0') == m.device('cuda', 0)", "same"),
    ("hash(m.device('cuda:0')) == hash(m.device('cuda', 0))", "same"),
    ("len({m.device('cpu'), m.device('cpu'), m.device('cuda')})", "same"),
    ("m.device('foo')", "same"), ("m.device('CUDA')", "same"), ("m.device('cuda:-1')", "same"),
    ("m.device('cuda:x')", "same"), ("m.device('cuda:')", "same"), ("m.device(' cuda')", "same"),
    ("m.device('cuda:01')", "same"), ("m.device('cuda', -1)", "same"),
    ("m.device('cuda', 'a')", "same"), ("m.device('cuda', True)", "same"),
    ("m.device('cpu:0', 1)", "same"), ("m.device(3)", "same"), ("m.device(None)", "type"),
    # ---- using a device: only the CPU
    ("m.zeros(2, device='cpu').device", "same"), ("m.zeros(2, device='cpu:0').device", "same"),
    ("m.zeros(2, device=m.device('cpu', 0)).device", "same"),
    ("m.zeros(2, device='cpu:1').device", "same"),
    ("m.zeros(2, device='cuda')", "same"), ("m.zeros(2, device='cuda:0')", "same"),
    ("m.zeros(2, device=m.device('cuda'))", "same"), ("m.zeros(2, device=0)", "same"),
    ("m.zeros(2, device='mps')", "type"), ("m.zeros(2, device='xla')", "type"),
    ("m.zeros(2, device='abc')", "same"),
    ("m.ones(2).to('cuda')", "same"), ("m.ones(2).to(device='cuda:0')", "same"),
    ("m.ones(2).to(0)", "same"), ("m.ones(2).to('mps')", "type"), ("m.ones(2).to('xla')", "type"),
    ("m.ones(2).to('cpu', non_blocking=True)", "same"), ("m.ones(2).to('cpu:1')", "same"),
    ("m.ones(2).to('cpu', m.float64)", "same"), ("m.ones(2).to(m.float64, True)", "same"),
    ("m.ones(2).cuda()", "same"), ("m.ones(2).cuda(non_blocking=True)", "same"),
    ("m.ones(2).cuda(0)", "same"), ("m.ones(2).cuda('cpu')", "same"),
    ("m.ones(2).cuda('cuda:0')", "same"),
    ("m.ones(2).cpu()", "same"), ("m.ones(2).is_cuda", "same"), ("m.ones(2).is_cpu", "same"),
    ("m.ones(2).is_mps", "same"), ("m.ones(2).is_meta", "same"),
    ("m.ones(2).get_device()", "same"), ("m.ones(2).device", "same"),
    ("m.ones(2).is_pinned()", "same"), ("m.ones(2).pin_memory()", "same"),
    ("m.ones(2).copy_(m.full((2,), 3.0), non_blocking=True)", "same"),
    ("m.get_default_device()", "same"),
    ("m.Generator(device='cpu').device", "same"), ("m.Generator(device='cpu:1').device", "same"),
    ("m.Generator(device=0)", "same"), ("m.Generator(device='abc')", "same"),
    ("m.Generator(device='cuda')", "type"), ("m.Generator(device='mps')", "type"),
    ("m.nn.Linear(2, 2).cuda()", "same"), ("m.nn.Linear(2, 2).to('cuda')", "same"),
    ("m.nn.Linear(2, 2).to(device='cuda')", "same"), ("m.nn.Linear(2, 2).to('mps')", "type"),
    ("m.nn.Linear(2, 2).to('cpu', non_blocking=True).weight.shape", "same"),
    ("m.nn.Linear(2, 2).cpu().weight.device", "same"),
    ("m.nn.Linear(2, 2, device='cuda')", "same"),
    ("m.nn.Linear(2, 2, device='cpu').weight.device", "same"),
    ("m.zeros(2, pin_memory=True)", "same"), ("m.empty(2, pin_memory=True)", "same"),
    ("m.ones(2, pin_memory=False)", "same"), ("m.tensor([1.0], pin_memory=True)", "same"),
    ("m.full((2,), 1.0, pin_memory=True)", "same"), ("m.arange(2, pin_memory=True)", "same"),
    ("m.nn.Linear(2, 2).cuda(0)", "same"), ("m.nn.Linear(2, 2).to(0)", "same"),
    ("m.nn.Linear(2, 2).cuda('cpu')", "same"),
    ("m.nn.Linear(2, 2).to('cuda:0', m.float64)", "same"),
    ("m.nn.Module().cuda()", "same"), ("m.nn.Module().to('cuda')", "same"),
    ("m.nn.Module().to('abc')", "same"), ("m.nn.Module().to(0)", "same"),
    # ---- accelerator
    ("m.accelerator.is_available()", "same"), ("m.accelerator.device_count()", "same"),
    ("m.accelerator.current_accelerator()", "same"),
    ("m.accelerator.current_accelerator(check_available=True)", "same"),
    ("m.accelerator.current_device_index()", "same"),
    ("m.accelerator.current_device_idx()", "same"),
    ("m.accelerator.set_device_index(0)", "same"), ("m.accelerator.set_device_idx(0)", "same"),
    ("m.accelerator.synchronize()", "same"), ("m.accelerator.current_stream()", "same"),
    ("m.accelerator.empty_cache()", "same"), ("m.accelerator.empty_host_cache()", "same"),
    ("m.accelerator.memory_allocated()", "same"), ("m.accelerator.max_memory_allocated()", "same"),
    ("m.accelerator.memory_reserved()", "same"), ("m.accelerator.max_memory_reserved()", "same"),
    ("m.accelerator.memory_stats()", "same"), ("m.accelerator.get_memory_info()", "same"),
    ("m.accelerator.reset_peak_memory_stats()", "same"),
    ("m.accelerator.reset_accumulated_memory_stats()", "same"),
    ("m.accelerator.get_device_capability()", "same"),
    ("m.accelerator.set_stream(None)", "type"),
    ("m.accelerator.device_index(None).__enter__()", "same"),
    ("m.accelerator.device_index(0).__enter__()", "same"),
    # ---- cuda
    ("m.cuda.is_available()", "same"), ("m.cuda.device_count()", "same"),
    ("m.cuda.is_initialized()", "same"), ("m.cuda.is_bf16_supported()", "same"),
    ("m.cuda.is_bf16_supported(False)", "same"), ("m.cuda.is_tf32_supported()", "same"),
    ("m.cuda.get_arch_list()", "same"), ("m.cuda.get_gencode_flags()", "same"),
    ("m.cuda.has_half", "same"), ("m.cuda.has_magma", "same"),
    ("m.cuda.default_generators", "same"),
    ("m.cuda.init()", "same"), ("m.cuda.current_device()", "same"),
    ("m.cuda.synchronize()", "same"), ("m.cuda.synchronize('cpu')", "same"),
    ("m.cuda.get_device_name()", "same"), ("m.cuda.get_device_name(0)", "same"),
    ("m.cuda.get_device_capability()", "same"), ("m.cuda.get_device_properties(0)", "same"),
    ("m.cuda.initial_seed()", "same"), ("m.cuda.get_rng_state()", "same"),
    ("m.cuda.mem_get_info()", "same"), ("m.cuda.ipc_collect()", "same"),
    ("m.cuda.current_stream()", "same"), ("m.cuda.default_stream()", "same"),
    ("m.cuda.can_device_access_peer(0, 1)", "same"),
    ("m.cuda.set_per_process_memory_fraction(0.5)", "same"),
    ("m.cuda.get_sync_debug_mode()", "same"), ("m.cuda.set_sync_debug_mode(0)", "same"),
    ("m.cuda.manual_seed(0)", "same"), ("m.cuda.manual_seed_all(0)", "same"),
    ("m.cuda.manual_seed('x')", "same"), ("m.cuda.seed()", "same"), ("m.cuda.seed_all()", "same"),
    ("m.cuda.set_rng_state(m.zeros(2, dtype=m.uint8))", "same"),
    ("m.cuda.get_rng_state_all()", "same"), ("m.cuda.set_rng_state_all([])", "same"),
    ("m.cuda.empty_cache()", "same"), ("m.cuda.memory_allocated()", "same"),
    ("m.cuda.memory_allocated(0)", "same"), ("m.cuda.max_memory_allocated()", "same"),
    ("m.cuda.memory_reserved()", "same"), ("m.cuda.max_memory_reserved()", "same"),
    ("dict(m.cuda.memory_stats())", "same"), ("m.cuda.memory_stats_as_nested_dict()", "same"),
    ("m.cuda.memory_cached()", "same"), ("m.cuda.max_memory_cached()", "same"),
    ("m.cuda.reset_peak_memory_stats()", "type"),
    ("m.cuda.reset_accumulated_memory_stats()", "type"),
    ("m.cuda.set_device(0)", "type"), ("m.cuda.set_device('cuda:0')", "type"),
    ("m.cuda.set_device(-1)", "same"), ("m.cuda.set_device(None)", "same"),
    ("m.cuda.set_device('cpu')", "same"), ("m.cuda.set_device('cuda')", "same"),
    ("m.cuda.device(0).idx", "same"), ("m.cuda.device('cuda:0').idx", "same"),
    ("m.cuda.device('cuda').idx", "same"), ("m.cuda.device('cpu')", "same"),
    ("m.cuda.device(0).__enter__()", "same"), ("m.cuda.device(-1).__enter__()", "same"),
    ("m.cuda.device(None).__enter__()", "same"),
    ("m.cuda.device_of(m.zeros(1)).idx", "same"),
    ("m.cuda.device_of(m.zeros(1)).__enter__()", "same"),
    ("m.cuda.stream(None).__enter__()", "same"),
    ("m.cuda.Stream()", "same"), ("m.cuda.Event()", "same"),
    ("m.cuda.Event(enable_timing=True)", "same"),
    ("m.cuda.FloatTensor(2)", "same"), ("m.cuda.LongTensor([1])", "same"),
    ("m.cuda.BoolTensor()", "same"), ("isinstance(m.ones(2), m.cuda.FloatTensor)", "same"),
    ("issubclass(m.cuda.OutOfMemoryError, RuntimeError)", "same"),
    ("m.cuda.nvtx.range_push('a')", "same"), ("m.cuda.nvtx.range_pop()", "same"),
    ("m.cuda.nvtx.mark('a')", "same"), ("m.cuda.nvtx.range('a').__enter__()", "same"),
    ("m.cuda.nvtx.range_start('a')", "same"), ("m.cuda.nvtx.range_end(1)", "same"),
    # ---- mps
    ("m.mps.is_available()", "same"), ("m.mps.device_count()", "same"),
    ("m.mps.manual_seed(0)", "same"), ("m.mps.manual_seed('a')", "type"),
    ("m.mps.seed()", "same"), ("m.mps.get_rng_state()", "same"),
    ("m.mps.synchronize()", "same"), ("m.mps.empty_cache()", "same"),
    ("m.mps.current_allocated_memory()", "same"), ("m.mps.driver_allocated_memory()", "same"),
    ("m.mps.recommended_max_memory()", "same"),
    ("m.mps.set_per_process_memory_fraction(0.5)", "same"),
    # ---- backends
    ("m.backends.cudnn.enabled", "same"), ("m.backends.cudnn.benchmark", "same"),
    ("m.backends.cudnn.deterministic", "same"), ("m.backends.cudnn.allow_tf32", "same"),
    ("m.backends.cudnn.benchmark_limit", "same"), ("m.backends.cudnn.fp32_precision", "same"),
    ("m.backends.cudnn.is_available()", "same"), ("m.backends.cudnn.version()", "same"),
    ("m.backends.cudnn.is_acceptable(m.zeros(1))", "same"),
    ("m.backends.cuda.matmul.allow_tf32", "same"),
    ("m.backends.cuda.matmul.allow_fp16_reduced_precision_reduction", "same"),
    ("m.backends.cuda.matmul.allow_bf16_reduced_precision_reduction", "same"),
    ("m.backends.cuda.matmul.allow_fp16_accumulation", "same"),
    ("m.backends.cuda.matmul.fp32_precision", "same"), ("m.backends.cuda.matmul.foo", "same"),
    ("m.backends.cuda.is_built()", "same"), ("m.backends.cuda.flash_sdp_enabled()", "same"),
    ("m.backends.cuda.mem_efficient_sdp_enabled()", "same"),
    ("m.backends.cuda.math_sdp_enabled()", "same"),
    ("m.backends.cuda.cudnn_sdp_enabled()", "same"),
    ("m.backends.cuda.is_flash_attention_available()", "same"),
    ("m.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()", "same"),
    ("list(m.backends.cuda.SDPBackend.__members__)", "same"),
    ("m.backends.cuda.SDPBackend.MATH.value", "same"),
    ("m.backends.mps.is_available()", "same"), ("m.backends.mps.is_built()", "same"),
    ("m.backends.mps.is_macos13_or_newer()", "same"),
    ("m.backends.mps.is_macos_or_newer(13, 0)", "same"),
    ("m.backends.mkldnn.enabled", "same"), ("m.backends.mkldnn.deterministic", "same"),
    ("m.backends.mkldnn.allow_tf32", "same"),
    ("m.backends.opt_einsum.is_available()", "same"), ("m.backends.opt_einsum.enabled", "same"),
    ("m.backends.opt_einsum.strategy", "same"), ("m.backends.opt_einsum.get_opt_einsum()", "same"),
    ("m.backends.cpu.get_cpu_capability()", "same"), ("m.backends.openmp.is_available()", "same"),
    ("m.backends.fp32_precision", "same"),
]

# Where ember answers differently on purpose (docs/devices.md): it links neither oneDNN nor MKL.
DIFFERENT = [("m.backends.mkldnn.is_available()", False, True),
             ("m.backends.mkl.is_available()", False, True)]


def _normalize(text):
    text = re.sub(r" \(Triggered internally at [^)]*\)$", "", text)  # where torch's C++ warned
    return text.replace("torch.", "ember.").replace("'torch'", "'ember'")


def outcome(expr, m, env=None):
    """('ok', repr) or ('raise', type name, message), and the warnings as (category, message)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            got = ("ok", _normalize(repr(eval(expr, {"m": m, **(env or {})}))))
        except Exception as e:
            got = ("raise", type(e).__name__, _normalize(str(e)))
    return got, [(w.category.__name__, _normalize(str(w.message))) for w in caught
                 if not str(w.message).startswith("`torch.jit")]


@pytest.mark.parametrize("expr,how", CASES, ids=[c[0] for c in CASES])
def test_same_answer_as_torch(expr, how):
    got, got_warnings = outcome(expr, ember)
    want, want_warnings = outcome(expr, torch)
    if how == "same":
        assert got == want
        assert got_warnings == want_warnings
    else:
        assert got[:2] == want[:2]
        assert [c for c, _ in got_warnings] == [c for c, _ in want_warnings]


@pytest.mark.parametrize("expr,ember_answer,torch_answer", DIFFERENT)
def test_documented_differences(expr, ember_answer, torch_answer):
    assert eval(expr, {"m": ember}) == ember_answer
    assert eval(expr, {"m": torch}) == torch_answer


def test_device_pickles_and_keeps_identity_fields():
    for spec in ("cpu", "cuda:1", "mps", "cpu:0"):
        d = pickle.loads(pickle.dumps(ember.device(spec)))
        assert (d, d.type, d.index) == (ember.device(spec), torch.device(spec).type,
                                        torch.device(spec).index)
    with pytest.raises(AttributeError):
        ember.device("cuda").type = "cpu"


def test_every_creation_function_takes_device():
    """device='cpu' works and device='cuda' raises torch's AssertionError, for every creation
    function and *_like / new_* method."""
    t = ember.ones(2, 3)
    calls = {
        "empty": lambda d: ember.empty(2, device=d), "zeros": lambda d: ember.zeros(2, device=d),
        "ones": lambda d: ember.ones(2, device=d), "rand": lambda d: ember.rand(2, device=d),
        "randn": lambda d: ember.randn(2, device=d),
        "full": lambda d: ember.full((2,), 1.0, device=d),
        "randint": lambda d: ember.randint(0, 5, (2,), device=d),
        "randperm": lambda d: ember.randperm(3, device=d),
        "arange": lambda d: ember.arange(3, device=d),
        "linspace": lambda d: ember.linspace(0, 1, 3, device=d),
        "eye": lambda d: ember.eye(2, device=d), "tensor": lambda d: ember.tensor([1.0], device=d),
        "as_tensor": lambda d: ember.as_tensor([1.0], device=d),
        "empty_like": lambda d: ember.empty_like(t, device=d),
        "zeros_like": lambda d: ember.zeros_like(t, device=d),
        "ones_like": lambda d: ember.ones_like(t, device=d),
        "rand_like": lambda d: ember.rand_like(t, device=d),
        "randn_like": lambda d: ember.randn_like(t, device=d),
        "full_like": lambda d: ember.full_like(t, 2.0, device=d),
        "randint_like": lambda d: ember.randint_like(t, 0, 5, device=d),
        "new_zeros": lambda d: t.new_zeros(2, device=d),
        "new_ones": lambda d: t.new_ones(2, device=d),
        "new_empty": lambda d: t.new_empty(2, device=d),
        "new_full": lambda d: t.new_full((2,), 1.0, device=d),
        "new_tensor": lambda d: t.new_tensor([1.0], device=d),
    }
    for name, call in calls.items():
        for d in ("cpu", "cpu:0", ember.device("cpu"), None):
            assert call(d).device == ember.device("cpu"), name
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            call("cuda")
        op = name.removeprefix("new_").removesuffix("_like")
        with pytest.raises(NotImplementedError, match=f"^{op}: .*'mps'"):
            call("mps")


def test_new_methods_keep_requires_grad_and_dtype():
    t = ember.ones(2, dtype=ember.float64)
    for got, want in ((t.new_zeros(3, requires_grad=True), torch.ones(2, dtype=torch.float64)
                       .new_zeros(3, requires_grad=True)),
                      (t.new_full((2,), 5.0, requires_grad=True),
                       torch.ones(2, dtype=torch.float64).new_full((2,), 5.0, requires_grad=True))):
        assert got.requires_grad == want.requires_grad and str(got.dtype)[6:] == str(want.dtype)[6:]
        assert got.tolist() == want.tolist()


@pytest.fixture
def default_device_restored():
    yield
    ember.set_default_device(None)
    torch.set_default_device(None)


def test_set_default_device(default_device_restored):
    for m in (ember, torch):
        m.set_default_device("cuda")  # accepted, as torch; using it fails
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            m.get_default_device()
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            m.zeros(2)
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            m.tensor([1.0])
        m.set_default_device(None)
        assert str(m.get_default_device()) == "cpu" and m.zeros(2).shape == (2,)
        m.set_default_device("cpu")
        assert str(m.zeros(2).device) == "cpu"
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        ember.set_default_device("abc")
    with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
        ember.set_default_device(5)


def test_device_as_context_manager(default_device_restored):
    with ember.device("cuda"):
        with pytest.raises(AssertionError):
            ember.zeros(2)
    assert ember.zeros(2).device == ember.device("cpu")
    with ember.device("cpu") as d:
        assert d == ember.device("cpu") and ember.ones(1).device.type == "cpu"


def test_failed_move_leaves_tensor_and_module_unchanged():
    t = ember.arange(4.0)
    with pytest.raises(AssertionError):
        t.to("cuda", ember.float64)
    assert t.dtype == ember.float32 and t.tolist() == [0.0, 1.0, 2.0, 3.0]
    lin = ember.nn.Linear(2, 2)
    w = lin.weight.detach().clone()
    with pytest.raises(AssertionError):
        lin.to("cuda", ember.float64)
    assert lin.weight.dtype == ember.float32 and bool((lin.weight == w).all())


def test_flags_store_what_programs_set():
    saved = (ember.backends.cudnn.benchmark, ember.backends.cudnn.deterministic,
             ember.backends.cuda.matmul.allow_tf32)
    try:
        ember.backends.cudnn.benchmark = True
        ember.backends.cudnn.deterministic = True
        ember.backends.cuda.matmul.allow_tf32 = True
        assert (ember.backends.cudnn.benchmark, ember.backends.cudnn.deterministic,
                ember.backends.cuda.matmul.allow_tf32) == (True, True, True)
        with pytest.raises(AttributeError, match="Unknown attribute foo"):
            ember.backends.cuda.matmul.foo = 1
        with ember.backends.cudnn.flags(enabled=False):
            assert ember.backends.cudnn.enabled is False
        assert ember.backends.cudnn.enabled is True
    finally:
        (ember.backends.cudnn.benchmark, ember.backends.cudnn.deterministic,
         ember.backends.cuda.matmul.allow_tf32) = saved


def test_sdp_flags_and_deprecated_sdp_kernel():
    b = ember.backends.cuda
    b.enable_flash_sdp(False)
    try:
        assert b.flash_sdp_enabled() is False
        with pytest.warns(FutureWarning, match="sdp_kernel\\(\\)` is deprecated"):
            with b.sdp_kernel(enable_math=False):
                assert b.math_sdp_enabled() is False
        assert b.math_sdp_enabled() is True
    finally:
        b.enable_flash_sdp(True)


def test_programs_that_pick_a_device_run_on_cpu():
    """The idiom of pytorch/examples: choose cuda/mps when available, else cpu."""
    for m in (ember, torch):
        use_accel = m.cuda.is_available() or m.backends.mps.is_available()
        dev = m.device("cuda" if m.cuda.is_available() else "cpu")
        model = m.nn.Linear(3, 1).to(dev)
        x = m.ones(4, 3).to(dev, non_blocking=True)
        if use_accel:
            x = x.pin_memory()
        assert model(x).shape == (4, 1) and str(dev) == "cpu"
        assert m.accelerator.current_accelerator() is None


CPU_CASES = [
    "m.cpu.is_available()", "m.cpu.is_initialized()", "m.cpu.device_count()",
    "m.cpu.current_device()", "m.cpu.synchronize()", "m.cpu.set_device('cuda')",
    "type(m.cpu.current_stream()).__name__", "m.cpu.stream(None).__enter__()",
    "m.cpu.Event().query()", "m.cpu.amp.autocast(enabled=False)._enabled",
    "m.cpu.amp.autocast().fast_dtype", "m.cpu.amp.GradScaler().is_enabled()",
    "m.cpu.amp.GradScaler().state_dict()",
]


@pytest.mark.parametrize("expr", CPU_CASES)
def test_cpu_module_as_torch(expr):
    assert outcome(expr, ember) == outcome(expr, torch)


def test_cpu_stream_context_swaps_the_current_stream():
    s = ember.cpu.Stream()
    with ember.cpu.stream(s):
        assert ember.cpu.current_stream() is s
    assert ember.cpu.current_stream() is not s


def test_dataloader_pin_memory_warns_as_torch():
    from ember.utils.data import DataLoader, TensorDataset
    from torch.utils.data import DataLoader as TDataLoader, TensorDataset as TTensorDataset
    for dl in (DataLoader(TensorDataset(ember.arange(4.0)), batch_size=2, pin_memory=True),
               TDataLoader(TTensorDataset(torch.arange(4.0)), batch_size=2, pin_memory=True)):
        with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no "
                                             "accelerator is found"):
            assert [b[0].tolist() for b in dl] == [[0.0, 1.0], [2.0, 3.0]]


# Global switches programs set for speed or reproducibility (stored, as torch): each sequence
# runs on a fresh state and is restored after.
FLAG_SEQUENCES = [
    ["m.get_float32_matmul_precision()", "m.set_float32_matmul_precision('high')",
     "m.get_float32_matmul_precision()", "m.set_float32_matmul_precision('foo')",
     "m.get_float32_matmul_precision()", "m.set_float32_matmul_precision(3)",
     "m.set_float32_matmul_precision('medium')", "m.get_float32_matmul_precision()"],
    ["m.are_deterministic_algorithms_enabled()", "m.use_deterministic_algorithms(True)",
     "m.are_deterministic_algorithms_enabled()", "m.get_deterministic_debug_mode()",
     "m.is_deterministic_algorithms_warn_only_enabled()",
     "m.use_deterministic_algorithms(True, warn_only=True)", "m.get_deterministic_debug_mode()",
     "m.use_deterministic_algorithms(False, warn_only=True)",
     "m.is_deterministic_algorithms_warn_only_enabled()", "m.get_deterministic_debug_mode()",
     "m.use_deterministic_algorithms('x')", "m.use_deterministic_algorithms(True, warn_only='x')",
     "m.set_deterministic_debug_mode('warn')", "m.get_deterministic_debug_mode()",
     "m.set_deterministic_debug_mode('error')", "m.are_deterministic_algorithms_enabled()",
     "m.set_deterministic_debug_mode(True)", "m.get_deterministic_debug_mode()",
     "m.set_deterministic_debug_mode(5)", "m.set_deterministic_debug_mode('foo')",
     "m.set_deterministic_debug_mode(1.5)", "m.set_deterministic_debug_mode(0)",
     "m.get_deterministic_debug_mode()"],
]


@pytest.mark.parametrize("sequence", FLAG_SEQUENCES, ids=["matmul_precision", "deterministic"])
def test_global_flags_as_torch(sequence):
    try:
        for expr in sequence:
            assert outcome(expr, ember) == outcome(expr, torch), expr
    finally:
        for m in (ember, torch):
            m.set_float32_matmul_precision("highest")
            m.use_deterministic_algorithms(False)
