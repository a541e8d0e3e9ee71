"""ember.nn.functional: torch.nn.functional's functions over ember._C.

Each function only maps PyTorch's arguments (legacy size_average/reduce, inplace=,
dim=None, dtype=) onto one C++ op; the math, its checks and its backward are in C++."""
import warnings

from .. import _C
from .._dtype import int64
from .._grad_mode import no_grad
from ._reduction import legacy_reduction as _legacy_reduction
from ._activations import _inplace
from ._normalization import _verify_batch_size
from ._attention import (scaled_dot_product_attention, multi_head_attention_forward,  # noqa: F401
                         group_norm, rms_norm)
from ._padding_conv import (pad, conv1d, conv_transpose1d, conv_transpose2d,  # noqa: F401
                            max_pool1d, avg_pool1d, adaptive_avg_pool1d, adaptive_max_pool1d,
                            adaptive_max_pool2d, interpolate, upsample, upsample_nearest,
                            upsample_bilinear)
from ._convolution import conv3d, conv_transpose3d, conv_tbc  # noqa: F401
from ._pooling import *  # noqa: F401,F403  (max_pool3d, avg_pool3d, max_unpool2d, lp_pool2d, ...)
from ._pooling import __all__ as _pooling_all
from ._fractional_pool import *  # noqa: F401,F403  (fractional_max_pool2d/3d)
from ._fractional_pool import __all__ as _fractional_pool_all
from ._activations import *  # noqa: F401,F403  (softplus, elu, ..., prelu)
from ._losses import *  # noqa: F401,F403  (smooth_l1_loss, kl_div, ..., pairwise_distance)
from ._dropout import *  # noqa: F401,F403  (dropout1d/2d/3d, alpha_dropout, ...)
from ._dropout import __all__ as _dropout_all
from ._shuffle import (pixel_shuffle, pixel_unshuffle, channel_shuffle,  # noqa: F401
                       native_channel_shuffle)
from ._normalization import instance_norm, local_response_norm  # noqa: F401
from ._embedding_bag import embedding_bag  # noqa: F401
from ._fold import fold, unfold  # noqa: F401
from ._grid_sample import affine_grid, grid_sample  # noqa: F401
from ._ctc_loss import ctc_loss  # noqa: F401
from ._margin_losses import (multi_margin_loss, multilabel_margin_loss,  # noqa: F401
                             multilabel_soft_margin_loss, triplet_margin_loss,
                             triplet_margin_with_distance_loss, pdist)
from ._stochastic_activations import rrelu, rrelu_, gumbel_softmax  # noqa: F401
from ._bilinear import bilinear  # noqa: F401
from ._linear_cross_entropy import linear_cross_entropy  # noqa: F401
from ._grouped_mm import grouped_mm  # noqa: F401

__all__ = [
    "linear", "relu", "relu_", "leaky_relu", "leaky_relu_", "gelu", "tanh", "sigmoid", "silu",
    "relu6", "hardtanh", "softmax", "softmin", "log_softmax", "dropout", "batch_norm",
    "layer_norm", "embedding", "conv2d", "max_pool2d", "max_pool2d_with_indices", "avg_pool2d",
    "adaptive_avg_pool2d", "flatten", "unflatten", "one_hot", "normalize", "cross_entropy",
    "nll_loss", "mse_loss", "l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
]
__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward", "group_norm",
            "rms_norm"]
__all__ += ["pad", "conv1d", "conv_transpose1d", "conv_transpose2d", "max_pool1d", "avg_pool1d",
            "adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_max_pool2d", "interpolate",
            "upsample", "upsample_nearest", "upsample_bilinear"]
__all__ += ["conv3d", "conv_transpose3d", "conv_tbc"] + _pooling_all + _fractional_pool_all
__all__ += ["softplus", "elu", "elu_", "selu", "selu_", "celu", "celu_", "mish", "hardswish",
            "hardsigmoid", "logsigmoid", "softsign", "tanhshrink", "hardshrink", "softshrink",
            "threshold", "threshold_", "glu", "prelu"]
__all__ += ["smooth_l1_loss", "huber_loss", "kl_div", "soft_margin_loss", "margin_ranking_loss",
            "hinge_embedding_loss", "cosine_embedding_loss", "poisson_nll_loss",
            "gaussian_nll_loss", "cosine_similarity", "pairwise_distance"]
__all__ += _dropout_all
__all__ += ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle",
            "instance_norm", "local_response_norm", "embedding_bag", "fold", "unfold"]
__all__ += ["affine_grid", "grid_sample", "ctc_loss", "multi_margin_loss",
            "multilabel_margin_loss", "multilabel_soft_margin_loss", "triplet_margin_loss",
            "triplet_margin_with_distance_loss", "pdist", "rrelu", "rrelu_", "gumbel_softmax",
            "bilinear", "linear_cross_entropy", "hardtanh_", "grouped_mm"]


# ---- arguments --------------------------------------------------------------------------
# ---- linear layers and activations ---------------------------------------------------------
def linear(input, weight, bias=None):
    """input @ weight.T + bias, in one BLAS call.

    >>> w, b = ember.tensor([[1.0, 1.0], [0.0, 2.0]]), ember.tensor([0.5, 0.0])
    >>> ember.nn.functional.linear(ember.tensor([[1.0, 2.0]]), w, b)
    tensor([[3.5000, 4.0000]])
    """
    try:
        return _C.linear(input, weight, bias)
    except NotImplementedError:
        if not (isinstance(input, _C.Tensor) and _C._is_sparse(input)):
            raise
    # A sparse COO input (PyG's sparse node features): sparse @ dense, strided result, as torch.
    if input.dim() != 2:
        raise RuntimeError(f"linear: a sparse input must be 2-d, got {input.dim()} dims (torch: "
                           f"reshape is not implemented for sparse tensors)")
    out = input @ weight.t()
    return out if bias is None else out + bias


def relu(input, inplace=False):
    """relu(input, inplace=False) -> Tensor

    max(0, x), elementwise; in place with inplace=True.

    >>> ember.nn.functional.relu(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([0.0000, 0.0000, 0.0000, 1.5000])"""
    return input.relu_() if inplace else _C.relu(input)


def relu_(input):
    """relu_(input) -> Tensor

    In-place relu: overwrites input with max(0, x) and returns it.

    >>> x = ember.tensor([-2.0, 0.0, 1.5])
    >>> _ = ember.nn.functional.relu_(x); x
    tensor([0.0000, 0.0000, 1.5000])
    """
    return input.relu_()


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """leaky_relu(input, negative_slope=0.01, inplace=False) -> Tensor

    x where x >= 0, negative_slope * x elsewhere.

    >>> ember.nn.functional.leaky_relu(ember.tensor([-2.0, -0.5, 0.0, 1.5]), 0.1)
    tensor([-0.2000, -0.0500,  0.0000,  1.5000])"""
    if inplace:
        return _C.leaky_relu_(input, negative_slope)
    return _C.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """leaky_relu_(input, negative_slope=0.01) -> Tensor

    In-place leaky_relu: input becomes max(0, x) + negative_slope * min(0, x).

    >>> x = ember.tensor([-2.0, 3.0])
    >>> ember.nn.functional.leaky_relu_(x, 0.5) is x, x
    (True, tensor([-1.,  3.]))
    """
    return leaky_relu(input, negative_slope, True)


def gelu(input, approximate="none"):
    """gelu(input, approximate='none') -> Tensor

    x * Phi(x) (approximate='tanh': the tanh approximation).

    >>> ember.nn.functional.gelu(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-0.0455, -0.1543,  0.0000,  1.3998])"""
    return _C.gelu(input, approximate)


def tanh(input):
    """tanh(input) -> Tensor

    The hyperbolic tangent, elementwise.

    >>> ember.nn.functional.tanh(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-0.9640, -0.4621,  0.0000,  0.9051])"""
    return _C.tanh(input)


def sigmoid(input):
    """sigmoid(input) -> Tensor

    1 / (1 + exp(-x)), elementwise.

    >>> ember.nn.functional.sigmoid(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([0.1192, 0.3775, 0.5000, 0.8176])"""
    return _C.sigmoid(input)


def silu(input, inplace=False):
    """silu(input, inplace=False) -> Tensor

    x * sigmoid(x), elementwise.

    >>> ember.nn.functional.silu(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-0.2384, -0.1888,  0.0000,  1.2264])"""
    if inplace:
        return _inplace("silu_", input, _C.silu)
    return _C.silu(input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False) -> Tensor

    x clamped to [min_val, max_val].

    >>> ember.nn.functional.hardtanh(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-1.0000, -0.5000,  0.0000,  1.0000])"""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if isinstance(input, _C.Tensor) and not input.is_floating_point():
        min_val, max_val = int(min_val), int(max_val)  # torch's int kernel: bounds truncated
    return input.clamp_(min_val, max_val) if inplace else _C.clamp(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place hardtanh: input clamped to [min_val, max_val].

    >>> x = ember.tensor([-2.0, 0.5, 2.0])
    >>> ember.nn.functional.hardtanh_(x) is x, x
    (True, tensor([-1.0000,  0.5000,  1.0000]))
    """
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"hardtanh_(): argument 'input' must be Tensor, not {type(input).__name__}")
    return hardtanh(input, min_val, max_val, True)


def assert_int_or_pair(arg, arg_name, message):
    """torch's argument check: an int, or a sequence of two; else AssertionError with
    message.format(arg_name)."""
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


def relu6(input, inplace=False):
    """relu6(input, inplace=False) -> Tensor

    min(max(0, x), 6).

    >>> ember.nn.functional.relu6(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([0.0000, 0.0000, 0.0000, 1.5000])"""
    return hardtanh(input, 0.0, 6.0, inplace)


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  "include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(input, dim=None, _stacklevel=3, dtype=None) -> Tensor

    exp(x) / sum(exp(x)) along dim.

    >>> ember.nn.functional.softmax(ember.tensor([1.0, 2.0, 3.0]), dim=0)
    tensor([0.0900, 0.2447, 0.6652])"""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return _C.softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmin(input, dim=None, _stacklevel=3, dtype=None) -> Tensor

    softmax(-x) along dim.

    >>> ember.nn.functional.softmin(ember.tensor([1.0, 2.0, 3.0]), dim=0)
    tensor([0.6652, 0.2447, 0.0900])"""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return _C.softmax(-input, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log_softmax(input, dim=None, _stacklevel=3, dtype=None) -> Tensor

    log(softmax(x)) along dim, computed stably.

    >>> ember.nn.functional.log_softmax(ember.tensor([1.0, 2.0, 3.0]), dim=0)
    tensor([-2.4076, -1.4076, -0.4076])"""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _C.log_softmax(input, dim, dtype)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes elements with probability p and scales the rest by 1/(1-p) when training.
    Draws from ember's generator, so the mask differs from PyTorch's for the same seed.

    >>> ember.nn.functional.dropout(ember.ones(4), 0.5, training=False)
    tensor([1., 1., 1., 1.])
    >>> sorted(set(ember.nn.functional.dropout(ember.ones(8), 0.5).tolist()))
    [0.0, 2.0]
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training:
        return input
    if inplace:
        return _inplace("dropout_", input, lambda x: _C.dropout(x, p, True))
    return _C.dropout(input, p, training)


# ---- normalization and embedding ---------------------------------------------------------
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalizes (N, C, *) per channel; in training, by the batch statistics, updating
    running_mean/running_var in place (when given) with `momentum`.

    >>> x = ember.tensor([[1.0, 2.0], [3.0, 6.0]])
    >>> ember.nn.functional.batch_norm(x, ember.zeros(2), ember.ones(2), training=True)
    tensor([[-1.0000, -1.0000],
            [ 1.0000,  1.0000]])
    """
    if training:
        _verify_batch_size(input.shape)
    return _C.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05) -> Tensor

    (x - mean) / sqrt(var + eps) over the last len(normalized_shape) dims, then weight and
    bias.

    >>> ember.nn.functional.layer_norm(ember.tensor([[1.0, 2.0, 3.0]]), (3,))
    tensor([[-1.2247,  0.0000,  1.2247]])"""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return _C.layer_norm(input, tuple(normalized_shape), weight, bias, eps)


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """Rescales, in place, the rows of weight that input picks whose norm exceeds max_norm
    (torch.embedding_renorm_). A row picked twice is written twice with the same value."""
    with no_grad():
        idx = input.reshape(-1)
        rows = weight.index_select(0, idx)
        norms = rows.norm(norm_type, 1, True)
        scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight.index_put_((idx,), rows * scale)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of weight picked by integer indices. sparse=True is accepted and gives the same
    (dense) gradient values: ember has no sparse tensors.

    >>> weight = ember.tensor([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    >>> ember.nn.functional.embedding(ember.tensor([2, 0]), weight)
    tensor([[2., 2.],
            [0., 0.]])
    """
    if padding_idx is not None:
        n = weight.size(0)
        if padding_idx > 0 and padding_idx >= n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -n:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx += n
    if scale_grad_by_freq:
        raise NotImplementedError("embedding: scale_grad_by_freq=True is not supported by ember")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return _C.embedding(input, weight, padding_idx)


# ---- convolution and pooling ---------------------------------------------------------------
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    2-d convolution of (N, C_in, H, W) with weight (C_out, C_in / groups, kH, kW).

    >>> ember.nn.functional.conv2d(ember.ones(1, 1, 3, 3), ember.ones(1, 1, 2, 2))
    tensor([[[[4., 4.],
              [4., 4.]]]])"""
    return _C.conv2d(input, weight, bias, stride, padding, dilation, groups)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
        return_indices=False) -> Tensor

    The maximum over kernel_size windows (return_indices=True: and where it was).

    >>> ember.nn.functional.max_pool2d(ember.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 5.,  7.],
             [13., 15.]]])"""
    return _C.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False) -> (Tensor, Tensor)

    max_pool2d returning (values, indices); indices are flat over H * W.

    >>> x = ember.tensor([[[1.0, 3.0], [2.0, 0.0]]])
    >>> ember.nn.functional.max_pool2d_with_indices(x, 2)
    (tensor([[[3.]]]), tensor([[[1]]]))
    """
    return _C.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
        count_include_pad=True, divisor_override=None) -> Tensor

    The mean over kernel_size windows.

    >>> ember.nn.functional.avg_pool2d(ember.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 2.5000,  4.5000],
             [10.5000, 12.5000]]])"""
    return _C.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                         divisor_override)


def adaptive_avg_pool2d(input, output_size):
    """adaptive_avg_pool2d(input, output_size) -> Tensor

    The mean into an output_size grid, whatever the input's size.

    >>> ember.nn.functional.adaptive_avg_pool2d(ember.arange(16.0).reshape(1, 4, 4), 1)
    tensor([[[7.5000]]])"""
    return _C.adaptive_avg_pool2d(input, output_size)


def flatten(input, start_dim=0, end_dim=-1):
    """flatten(input, start_dim=0, end_dim=-1) -> Tensor

    input with dims start_dim..end_dim merged into one (a view when it can be).

    >>> ember.nn.functional.flatten(ember.zeros(2, 3, 4), 1).shape
    ember.Size([2, 12])"""
    return _C.flatten(input, start_dim, end_dim)


def unflatten(input, dim, sizes):
    """unflatten(input, dim, sizes) -> Tensor

    input with dim split into sizes (one may be -1).

    >>> ember.nn.functional.unflatten(ember.zeros(2, 12), 1, (3, 4)).shape
    ember.Size([2, 3, 4])"""
    return _C.unflatten(input, dim, sizes)


# ---- small compositions of existing ops ------------------------------------------------------
def one_hot(tensor, num_classes=-1):
    """(*, num_classes) int64 with a 1 at each index (num_classes=-1: max + 1).

    >>> ember.nn.functional.one_hot(ember.tensor([0, 2]), num_classes=3)
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    if tensor.dtype != int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() > 0:
        if bool(tensor.min() < 0):
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = int(tensor.max()) + 1
        elif bool(tensor.max() >= num_classes):
            raise RuntimeError("Class values must be smaller than num_classes.")
    elif num_classes == -1:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    classes = _C.arange(0, num_classes, 1, int64)
    return (tensor.unsqueeze(-1) == classes).long()


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p along dim, eps).

    >>> ember.nn.functional.normalize(ember.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    denom = _C.clamp(input.norm(p, dim, True), eps).expand_as(input)
    return input / denom


# ---- losses ---------------------------------------------------------------------------------
def _size_warning(input, target):
    # stacklevel 4: the caller of mse_loss / l1_loss (through _pointwise_loss)
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=4)


def _weighted(loss, weight, reduction):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _pointwise_loss(fused, elementwise, input, target, size_average, reduce, reduction, weight):
    """mse_loss and l1_loss: the fused C++ loss, or with `weight` the weighted elementwise
    loss reduced by `_weighted`."""
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if weight is not None:
        if weight.shape != input.shape:
            raise ValueError("Weights and input must have the same size.")
        return _weighted(elementwise(input - target) * weight, weight, reduction)
    return fused(input, target, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """mse_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None) ->
        Tensor

    The mean (reduction='mean'), sum or elementwise value of (input - target)^2.

    >>> ember.nn.functional.mse_loss(ember.tensor([1.0, 2.0]), ember.tensor([0.0, 0.0]))
    tensor(2.5000)"""
    return _pointwise_loss(_C.mse_loss, lambda d: d.square(), input, target, size_average,
                           reduce, reduction, weight)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """l1_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None) ->
        Tensor

    The mean (reduction='mean'), sum or elementwise value of |input - target|.

    >>> ember.nn.functional.l1_loss(ember.tensor([1.0, -2.0]), ember.tensor([0.0, 0.0]))
    tensor(1.5000)"""
    return _pointwise_loss(_C.l1_loss, lambda d: d.abs(), input, target, size_average, reduce,
                           reduction, weight)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """log_softmax + nll_loss in one C++ op; target holds class indices or probabilities.

    >>> logits = ember.tensor([[0.0, 0.0], [0.0, 2.0]])
    >>> ember.nn.functional.cross_entropy(logits, ember.tensor([0, 1]))
    tensor(0.4100)
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return _C.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
        reduction='mean') -> Tensor

    -input[n, target[n]] averaged over n (weights and ignore_index as torch).

    >>> logp = ember.tensor([[-0.1, -2.3], [-1.2, -0.4]])
    >>> ember.nn.functional.nll_loss(logp, ember.tensor([0, 1]))
    tensor(0.2500)"""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return _C.nll_loss(input, target, weight, ignore_index, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
        reduction='mean') -> Tensor

    -(t log(p) + (1 - t) log(1 - p)), averaged; logs clamped at -100 as torch.

    >>> ember.nn.functional.binary_cross_entropy(ember.tensor([0.9, 0.2]), ember.tensor([1.0, 0.0]))
    tensor(0.1643)"""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         "size.")
    if weight is not None and weight.shape != input.shape:
        weight = weight.expand(input.shape)
    return _C.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
        reduction='mean', pos_weight=None) -> Tensor

    binary_cross_entropy(sigmoid(input), target), computed stably (pos_weight as torch).

    >>> logits = ember.tensor([2.0, -1.0])
    >>> ember.nn.functional.binary_cross_entropy_with_logits(logits, ember.tensor([1.0, 0.0]))
    tensor(0.2201)"""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    return _C.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)

