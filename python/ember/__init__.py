"""ember: a deep-learning tensor library with a small C++ core and PyTorch's API.

    import ember as torch
    x = torch.randn(64, 1000)
"""
from . import _C
from . import _dtype
globals().update({n: getattr(_dtype, n) for n in _dtype.PLANNED})  # complex32, float8_*, ...
from ._dtype import complex64, cfloat, complex128, cdouble, bfloat16, float16, half  # noqa: F401
from ._dtype import (dtype, float32, float, float64, double, int64, long, int32, int, int16, short,
                     int8, uint8, uint16, uint32, uint64, bool,
                     get_default_dtype, set_default_dtype, set_default_tensor_type)
from ._tensor import Tensor, Size, device
_C._add_numpy_names()  # axis= for dim=, keepdims= for keepdim=, ... as torch (numpy_names.cpp)
from math import e, inf, nan, pi  # noqa: E402,F401  (torch.pi, torch.e, ...: `from torch import pi`)
newaxis = None  # torch.newaxis, NumPy's: x[:, torch.newaxis]
_C._TensorMeta = type(Tensor)  # torch._C._TensorMeta: the metaclass of Tensor (Lightning names it)
from ._device import get_default_device, set_default_device
from ._creation import (tensor, as_tensor, empty, zeros, ones, full, rand, randn, randint, randperm,
                        arange, linspace, eye, empty_like, zeros_like, ones_like, full_like,
                        rand_like, randn_like, randint_like, from_numpy, from_dlpack, manual_seed,
                        initial_seed)
from ._legacy_types import (FloatTensor, DoubleTensor, LongTensor, IntTensor, ShortTensor,
                            CharTensor, ByteTensor, BoolTensor, HalfTensor, BFloat16Tensor)
from ._grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled
from . import autograd
from .autograd.anomaly_mode import (is_anomaly_enabled, is_anomaly_check_nan_enabled,
                                    set_anomaly_enabled)
from .func import vmap  # torch.vmap is torch.func.vmap
from ._functions import *  # noqa: F401,F403  (the op functions: add, exp, sum, matmul, ...)
from . import optim, return_types
from . import special
from . import nn
# torch._C._nn: of torch's C++ nn functions, the argument parser of .to() that programs call
# (Lightning's DeviceDtypeModuleMixin); ember's ops are its functions (ember.nn.functional).
_C._nn = __import__("types").ModuleType("ember._C._nn")
_C._nn._parse_to = nn.modules.module.parse_to


def _log_api_usage_once(event):
    """torch._C._log_api_usage_once: torch hands `event` to a registered API-usage logger;
    ember keeps no usage log (libraries call it when their objects are made: Lightning)."""


_C._log_api_usage_once = _log_api_usage_once


def _get_tracing_state():
    """torch._C._get_tracing_state: the active tracer's state, None outside torch.jit.trace.
    ember's jit.trace records nothing, so there is never one (pyro asks before each
    data-dependent check that it skips while tracing)."""
    return None


_C._get_tracing_state = _get_tracing_state
_C._LinAlgError = _C.LinAlgError  # torch._C._LinAlgError is torch.linalg.LinAlgError
from ._generator import Generator, default_generator
from . import random
from .random import manual_seed, seed, initial_seed, get_rng_state, set_rng_state
_standard_gamma = _C._standard_gamma  # torch's private sampling entry points (distributions use them)
_standard_gamma_grad = _C._standard_gamma_grad
_sample_dirichlet = _C._sample_dirichlet
from ._compile import compile
from ._precision_and_determinism import (get_float32_matmul_precision,
                                         set_float32_matmul_precision,
                                         use_deterministic_algorithms,
                                         are_deterministic_algorithms_enabled,
                                         is_deterministic_algorithms_warn_only_enabled,
                                         get_deterministic_debug_mode, set_deterministic_debug_mode)
from .amp.autocast_mode import (autocast, is_autocast_enabled, get_autocast_dtype,
                                set_autocast_enabled, set_autocast_dtype, is_autocast_cache_enabled,
                                set_autocast_cache_enabled, clear_autocast_cache,
                                autocast_increment_nesting, autocast_decrement_nesting,
                                is_autocast_cpu_enabled, set_autocast_cpu_enabled,
                                get_autocast_cpu_dtype, set_autocast_cpu_dtype)
from .amp.grad_scaler import GradScaler
from .futures import Future  # torch.Future: the class torch.futures.Future extends
from ._memory_format import (memory_format, contiguous_format, channels_last, channels_last_3d,
                             preserve_format)
from .serialization import save, load
from ._shared_memory import install_hook as _install_shared_memory_hook
from ._drop_in import install_as_torch

# Tensors sent through multiprocessing travel in shared memory (ember/_shared_memory.py); the
# reducer is registered when multiprocessing is first imported, so `import ember` stays light.
_install_shared_memory_hook()

from .torch_version import __version__  # noqa: E402  ("2.13.0+ember.0.1.0": docs/devices.md)
promote_types = _C.promote_types
can_cast = _C.can_cast
get_num_threads = _C.get_num_threads
set_num_threads = _C.set_num_threads
result_type = _C.result_type

# torch's top-level names for functions implemented in ember.nn.functional (torch.conv1d,
# torch.selu, torch.kl_div, ...), with torch's top-level signatures. Where those differ from F's
# (the losses take `reduction` as an int, adaptive_max_pool1d also returns the indices,
# group_norm takes cudnn_enabled) a thin wrapper translates; elsewhere F's trailing extras
# (inplace, return_indices) are harmless.
from .nn import functional as _F  # noqa: E402
from .nn._convolution import convolution  # noqa: E402

conv1d = _F.conv1d
conv_transpose1d = _F.conv_transpose1d
conv_transpose2d = _F.conv_transpose2d
conv_transpose3d = _F.conv_transpose3d
conv_tbc = _F.conv_tbc
max_pool1d_with_indices = _F.max_pool1d_with_indices
max_pool1d = _F.max_pool1d
avg_pool1d = _F.avg_pool1d
adaptive_avg_pool1d = _F.adaptive_avg_pool1d
prelu = _F.prelu
selu = _F.selu
selu_ = _F.selu_
celu = _F.celu
celu_ = _F.celu_
relu_ = _F.relu_
threshold = _F.threshold
threshold_ = _F.threshold_
hardshrink = _F.hardshrink
pairwise_distance = _F.pairwise_distance
cosine_similarity = _F.cosine_similarity
rms_norm = _F.rms_norm
alpha_dropout = _F.alpha_dropout
alpha_dropout_ = _F.alpha_dropout_
feature_alpha_dropout = _F.feature_alpha_dropout
feature_alpha_dropout_ = _F.feature_alpha_dropout_
pixel_shuffle = _F.pixel_shuffle
pixel_unshuffle = _F.pixel_unshuffle
channel_shuffle = _F.channel_shuffle
native_channel_shuffle = _F.native_channel_shuffle
bilinear = _F.bilinear
pdist = _F.pdist
rrelu = _F.rrelu
rrelu_ = _F.rrelu_
from .nn._grid_sample import (affine_grid_generator, grid_sampler,  # noqa: E402,F401
                              grid_sampler_2d, grid_sampler_3d)
from .nn._ctc_loss import ctc_loss_aten as ctc_loss  # noqa: E402,F401
from .nn._margin_losses import triplet_margin_loss_aten as triplet_margin_loss  # noqa: E402,F401
from .nn._embedding_bag import embedding_bag_aten as embedding_bag  # noqa: E402,F401


def embedding_renorm_(input, indices, max_norm, norm_type):
    """torch.embedding_renorm_: rescales in place the rows of input (an embedding weight) that
    indices pick whose norm_type-norm exceeds max_norm, to max_norm / (norm + 1e-7); returns
    input.

    >>> w = ember.tensor([[3.0, 4.0], [0.3, 0.4]])
    >>> ember.embedding_renorm_(w, ember.tensor([0, 1]), 1.0, 2.0)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    for x, arg in ((input, "input"), (indices, "indices")):
        if not isinstance(x, Tensor):
            raise TypeError(f"embedding_renorm_(): argument '{arg}' must be Tensor, not "
                            f"{type(x).__name__}")
    if input.dim() != 2:
        raise RuntimeError(f"embedding_renorm_: expected a 2-d weight, got shape "
                           f"{list(input.shape)}")
    if indices.is_floating_point():
        raise RuntimeError(f"embedding_renorm_: expected integer indices, got {indices.dtype}")
    _F._embedding_renorm_(input, indices, max_norm, norm_type)
    return input


def constant_pad_nd(input, pad, value=0):
    """torch.constant_pad_nd: F.pad in 'constant' mode (negative pads crop).

    >>> ember.constant_pad_nd(ember.tensor([1, 2]), (1, 2), -1)
    tensor([-1,  1,  2, -1, -1])
    """
    return _F.pad(input, pad, "constant", value)


def _tensor_prelu(self, weight):
    """prelu(weight) -> Tensor

    Tensor.prelu: F.prelu(self, weight).

    >>> ember.tensor([[-2.0, 1.0]]).prelu(ember.tensor([0.5]))
    tensor([[-1.,  1.]])
    """
    if not isinstance(weight, Tensor):
        raise TypeError(f"prelu(): argument 'weight' must be Tensor, not {type(weight).__name__}")
    return _F.prelu(self, weight)


def _tensor_hardshrink(self, lambd=0.5):
    """hardshrink(lambd=0.5) -> Tensor

    Tensor.hardshrink: F.hardshrink(self, lambd).

    >>> ember.tensor([-1.0, 0.2, 2.0]).hardshrink()
    tensor([-1.,  0.,  2.])
    """
    return _F.hardshrink(self, lambd)


_tensor_prelu.__name__ = "prelu"
_tensor_hardshrink.__name__ = "hardshrink"
Tensor.prelu = _tensor_prelu
Tensor.hardshrink = _tensor_hardshrink


def feature_dropout(input, p, train):
    """feature_dropout(input, p, train) -> Tensor

    Dropout of whole channels (dim 1) with probability p when train, as F.dropout2d/3d; input
    itself when not train.

    >>> ember.feature_dropout(ember.ones(2, 3, 4), 0.5, False).equal(ember.ones(2, 3, 4))
    True
    """
    from .nn._dropout import feature_dropout
    return feature_dropout(input, p, train)


def feature_dropout_(input, p, train):
    """feature_dropout_(input, p, train) -> Tensor

    The in-place form of feature_dropout: returns input.

    >>> x = ember.ones(2, 3, 4)
    >>> ember.feature_dropout_(x, 0.0, True) is x
    True
    """
    from .nn._dropout import feature_dropout
    return feature_dropout(input, p, train, True)


def dropout_(input, p, train):
    """dropout_(input, p, train) -> Tensor

    The in-place form of dropout (F.dropout(input, p, train, inplace=True)): returns input.

    >>> x = ember.ones(4)
    >>> ember.dropout_(x, 0.5, False)
    tensor([1., 1., 1., 1.])
    """
    return _F.dropout(input, p, train, True)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                  cudnn_enabled):
    """torch.instance_norm's argument order (F.instance_norm's is running stats first).

    >>> x = ember.tensor([[[1.0, 3.0]]])
    >>> ember.instance_norm(x, None, None, None, None, True, 0.1, 0.0, False)
    tensor([[[-1.,  1.]]])
    """
    return _F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                            momentum, eps)

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}  # torch's at::Reduction enum
# torch's stubs give these losses reduction=1 (mean), but torch's binding applies 0 (none) when
# it is omitted (torch.kl_div(a, b) is elementwise, checked on torch 2.13): ember does the same.


def _reduction(fn, reduction):
    import builtins  # ember.int and ember.bool (dtypes) shadow the builtins in this module
    if isinstance(reduction, builtins.bool) or not isinstance(reduction, builtins.int):
        raise TypeError(f"{fn}(): argument 'reduction' must be int (0: none, 1: mean, 2: sum), "
                        f"not {type(reduction).__name__}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{fn}(): {reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def adaptive_max_pool1d(input, output_size):
    """torch.adaptive_max_pool1d returns (output, indices).

    >>> ember.adaptive_max_pool1d(ember.tensor([[[1.0, 5.0, 2.0, 4.0]]]), 2)
    (tensor([[[5., 4.]]]), tensor([[[1, 3]]]))
    """
    return _F.adaptive_max_pool1d(input, output_size, return_indices=True)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True) -> Tensor

    F.group_norm with torch's top-level argument order (cudnn_enabled is ignored).

    >>> ember.group_norm(ember.tensor([[1.0, 3.0, 5.0, 7.0]]), 2, eps=0.0)
    tensor([[-1.,  1., -1.,  1.]])
    """
    return _F.group_norm(input, num_groups, weight, bias, eps)


def kl_div(input, target, reduction=0, *, log_target=False):
    """kl_div(input, target, reduction=0, *, log_target=False) -> Tensor

    F.kl_div with torch's integer reduction (0: none, the default here, 1: mean, 2: sum).

    >>> ember.kl_div(ember.tensor([0.0, 0.0]), ember.tensor([0.5, 0.5]))
    tensor([-0.3466, -0.3466])
    """
    reduction = _reduction("kl_div", reduction)
    if reduction != "mean":
        return _F.kl_div(input, target, reduction=reduction, log_target=log_target)
    import warnings  # F warns that 'mean' is not 'batchmean'; torch.kl_div does not
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return _F.kl_div(input, target, reduction="mean", log_target=log_target)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0) -> Tensor

    F.cosine_embedding_loss with torch's integer reduction (0: none, 1: mean, 2: sum).

    >>> ember.cosine_embedding_loss(ember.tensor([[1.0, 0.0]]), ember.tensor([[0.0, 1.0]]), ember.tensor([1]))
    tensor([1.])
    """
    return _F.cosine_embedding_loss(input1, input2, target, margin,
                                    reduction=_reduction("cosine_embedding_loss", reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """hinge_embedding_loss(input, target, margin=1.0, reduction=0) -> Tensor

    F.hinge_embedding_loss with torch's integer reduction (0: none, 1: mean, 2: sum).

    >>> ember.hinge_embedding_loss(ember.tensor([0.2, 2.0]), ember.tensor([-1, 1]))
    tensor([0.8000, 2.0000])
    """
    return _F.hinge_embedding_loss(input, target, margin,
                                   reduction=_reduction("hinge_embedding_loss", reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0) -> Tensor

    F.margin_ranking_loss with torch's integer reduction (0: none, 1: mean, 2: sum).

    >>> ember.margin_ranking_loss(ember.tensor([1.0, 2.0]), ember.tensor([2.0, 1.0]), ember.tensor([1, 1]), 0.0, 2)
    tensor(1.)
    """
    return _F.margin_ranking_loss(input1, input2, target, margin,
                                  reduction=_reduction("margin_ranking_loss", reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """poisson_nll_loss(input, target, log_input, full, eps, reduction) -> Tensor

    F.poisson_nll_loss with every argument positional and torch's integer reduction
    (0: none, 1: mean, 2: sum).

    >>> ember.poisson_nll_loss(ember.tensor([0.0, 1.0]), ember.tensor([1.0, 2.0]), True, False, 1e-8, 0)
    tensor([1.0000, 0.7183])
    """
    return _F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                               reduction=_reduction("poisson_nll_loss", reduction))


def is_tensor(obj):
    """is_tensor(obj) -> bool

    True when obj is an ember Tensor (or a subclass).

    >>> ember.is_tensor(ember.ones(1)), ember.is_tensor([1.0])
    (True, False)
    """
    return isinstance(obj, Tensor)


# torch's everyday functions composed in Python from the C++ ops (comparisons, elementwise
# composites and aliases, shape/join, statistics, contractions, dtype limits): each module lists
# its FUNCTIONS and Tensor METHODS; a name ember already has (a C++ op) is never replaced.
from . import (_comparison, _pointwise, _reshaping, _statistics, _contraction,  # noqa: E402
               _dtype_info, _index_grids, _scans, _complex, linalg)
from ._printing import set_printoptions  # noqa: E402,F401

for _name, _prop in _complex.PROPERTIES.items():  # Tensor.real/.imag/.H/.mH
    setattr(Tensor, _name, _prop)
for _module in (_comparison, _pointwise, _reshaping, _statistics, _contraction, _dtype_info,
                _index_grids, _scans, _complex, linalg):
    globals().update({n: f for n, f in _module.FUNCTIONS.items() if n not in globals()})
    for _name, _fn in _module.METHODS.items():
        if not hasattr(Tensor, _name):
            setattr(Tensor, _name, _fn)


# torch's ATen-level recurrent functions (torch.lstm, gru_cell, ...) and normalization functions
# (native_batch_norm, batch_norm_stats, ...), the ones nn's layers call underneath.
from . import _rnn_functions, _native_normalization  # noqa: E402
for _module in (_rnn_functions, _native_normalization):
    globals().update({n: f for n, f in _module.FUNCTIONS.items() if n not in globals()})

# torch's in-place `_` forms and `*_copy` forms (one table each), the view scatters, storages
# and what-a-tensor-is attributes (layout, dim_order, ...): after the loop above, so the
# tables may name methods it added.
from . import _inplace_and_copy, _view_scatter, _storage, _tensor_attributes  # noqa: E402

for _module in (_inplace_and_copy, _view_scatter, _storage, _tensor_attributes):
    globals().update({n: f for n, f in _module.FUNCTIONS.items() if n not in globals()})
    for _name, _fn in _module.METHODS.items():
        if not hasattr(Tensor, _name):
            setattr(Tensor, _name, _fn)


def _assert(condition, message):
    """torch._assert: `assert condition, message` as a function, so that traced code (fx's
    concrete_args checks) can record it as a call."""
    assert condition, message


def __getattr__(name):
    if name in ("ScriptModule", "ScriptFunction"):  # torch's top-level names of jit's types
        from . import jit
        return getattr(jit, name)
    # These load on first use, so `import ember` stays light.
    if name in ("utils", "datasets", "profiler", "examples", "distributed", "distributions",
                "multiprocessing",
                "accelerator", "amp", "backends", "compiler", "cpu", "cuda", "jit", "mps", "onnx",
                "version", "vision", "testing", "nested", "func", "futures", "hub", "masked", "sparse", "types",
                "torch_version", "functional", "xpu", "mtia", "fx", "ops", "library", "__config__",
                "_dynamo", "_inductor",  # torch loads these two lazily too (einops' tests)
                "quasirandom"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# torch.fft, torch.signal.windows, the window functions and stft / istft (fft.py, signal/,
# _windows.py, _stft.py).
from . import fft, signal, _windows, _stft  # noqa: E402,F401
for _module in (_windows, _stft):
    globals().update({n: f for n, f in _module.FUNCTIONS.items() if n not in globals()})
    for _name, _fn in getattr(_module, "METHODS", {}).items():
        if not hasattr(Tensor, _name):
            setattr(Tensor, _name, _fn)


# torch's numeric functions beyond the core ops (C++ behind the first three: reductions by index,
# float bits, histograms), integration and differences, scatter writes, the old norm names,
# low-rank SVD, lobpcg, eager control flow; and runtime objects (streams and events, exception
# types, build queries, ThroughputBenchmark, the file record reader/writer, the Sym* names).
from . import (_scatter_reduce, _float_bits, _histogram, _calculus, _scatter_writes,  # noqa: E402
               _matrix_norms, _lowrank, _lobpcg, _control_flow, _streams, _runtime_info,
               _throughput_benchmark, _symbolic)
from .serialization.file_records import PyTorchFileReader, PyTorchFileWriter  # noqa: E402,F401
for _module in (_scatter_reduce, _float_bits, _histogram, _calculus, _scatter_writes, _matrix_norms,
                _lowrank, _lobpcg, _control_flow, _streams, _runtime_info, _throughput_benchmark,
                _symbolic):
    globals().update({n: f for n, f in _module.FUNCTIONS.items() if n not in globals()})
    for _name, _fn in _module.METHODS.items():
        if not hasattr(Tensor, _name):
            setattr(Tensor, _name, _fn)

# Sparse COO tensors (ember.sparse_coo_tensor, Tensor.to_sparse, ...; docs/sparse.md): last, as it
# wraps Tensor.transpose/t and replaces the strided-only layout/is_sparse answers.
from . import _sparse_tensor  # noqa: E402
from . import overrides  # noqa: E402,F401  (the __torch_function__ protocol)
from .overrides import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: E402,F401
_sparse_tensor.install(Tensor, globals())
