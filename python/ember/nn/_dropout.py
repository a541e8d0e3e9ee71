"""The dropout family beyond F.dropout: channel-wise (dropout1d/2d/3d), alpha dropout
(keeps SELU's mean and variance) and its channel-wise form, as ATen's _dropout_impl.

The noise is one Bernoulli(1 - p) draw per element, or per (sample, channel) with the
shape (N, C, 1, ..., 1) broadcast over the spatial dims. It comes from ember's generator,
so the mask differs from PyTorch's for the same seed; its structure and scaling are the same."""
import warnings

from .._creation import rand, zeros

__all__ = ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "alpha_dropout_",
           "feature_alpha_dropout", "feature_alpha_dropout_"]

_SELU_ALPHA = 1.7580993408473766  # -SELU's negative saturation value / scale


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _noise(input, p, feature):
    """Bernoulli(1 - p) in input's dtype: per element, or (N, C, 1, ...) when feature."""
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    else:
        shape = tuple(input.shape)
    return (rand(shape, dtype=input.dtype) < 1.0 - p).to(input.dtype)


def _dropout_impl(input, p, training, inplace, feature, alpha):
    """input * noise / (1 - p), or for alpha dropout input * a * noise + b with a and b
    chosen so that SELU's zero mean and unit variance are kept. Eval mode, p = 0 and
    empty inputs give input itself (as ATen)."""
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        zero = zeros((), dtype=input.dtype)
        return input.mul_(zero) if inplace else input * zero
    noise = _noise(input, p, feature)
    if not alpha:
        noise = noise / (1.0 - p)
        return input.mul_(noise) if inplace else input * noise
    a = 1.0 / ((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p)) ** 0.5
    b = (noise - 1.0) * (_SELU_ALPHA * a) + _SELU_ALPHA * a * p
    noise = noise * a
    if inplace:
        return input.mul_(noise).add_(b)
    return input * noise + b


def feature_dropout(input, p, train, inplace=False):
    """torch.feature_dropout: whole channels of (N, C, *) zeroed, the rest scaled by 1/(1-p)."""
    return _dropout_impl(input, p, train, inplace, True, False)


def _unbatched(input, p, training, inplace, batched_dim):
    """Channel-wise dropout of a (C, *) input as the one-sample batch (1, C, *). In place,
    the view of input is written and input itself is returned."""
    if input.dim() == batched_dim:
        return _dropout_impl(input, p, training, inplace, True, False)
    out = _dropout_impl(input.unsqueeze(0), p, training, inplace, True, False)
    return input if inplace else out.squeeze(0)


def _warn_rank(name, ndim, spatial):
    """torch's deprecation warning when a channel-wise dropout over `spatial` dims gets an
    input that is neither (C, *spatial) nor (N, C, *spatial); it points at name's caller."""
    if ndim not in (spatial + 1, spatial + 2):
        warnings.warn(
            f"{name}: Received a {ndim}-D input to {name}, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            f"and silence this warning, please use dropout instead. Note that {name} "
            f"exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, "
            "a channel dimension, and an optional batch dimension "
            f"(i.e. {spatial + 1}D or {spatial + 2}D inputs).",
            stacklevel=3)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, L) or (C, L) with probability p.

    >>> y = ember.nn.functional.dropout1d(ember.ones(1, 8, 2), 0.5)
    >>> sorted(set(y.flatten().tolist()))
    [0.0, 2.0]
    """
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs).")
    return _unbatched(input, p, training, inplace, 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, H, W) with probability p. As torch 2.13, a 3-d input
    is read as (N, C, L) (1-d channel-wise dropout) with a warning; other ranks warn.

    >>> y = ember.nn.functional.dropout2d(ember.ones(1, 8, 2, 2), 0.5)
    >>> sorted(set(y.flatten().tolist()))
    [0.0, 2.0]
    """
    _check_p(p)
    ndim = input.dim()
    _warn_rank("dropout2d", ndim, 2)
    if ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _dropout_impl(input, p, training, inplace, True, False)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) with probability p.

    >>> ember.nn.functional.dropout3d(ember.ones(1, 2, 1, 1, 1), 0.5, training=False).flatten()
    tensor([1., 1.])
    """
    _check_p(p)
    _warn_rank("dropout3d", input.dim(), 3)
    return _unbatched(input, p, training, inplace, 5)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout(input, p=0.5, training=False, inplace=False) -> Tensor

    Dropout for SELU networks: dropped elements become SELU's saturation value and an
    affine map keeps the mean and variance. The identity unless training.

    >>> x = ember.tensor([[-1.0, 0.0, 2.0]])
    >>> ember.nn.functional.alpha_dropout(x, 0.5)  # not training: x itself
    tensor([[-1.,  0.,  2.]])
    >>> ember.nn.functional.alpha_dropout(x, 0.5, training=True).shape
    ember.Size([1, 3])
    """
    return _dropout_impl(input, p, training, inplace, False, True)


def alpha_dropout_(input, p=0.5, training=False):
    """alpha_dropout_(input, p=0.5, training=False) -> Tensor

    In-place alpha_dropout: overwrites input and returns it.

    >>> x = ember.tensor([-1.0, 0.0, 2.0])
    >>> ember.nn.functional.alpha_dropout_(x, 0.5, training=True) is x
    True
    """
    return alpha_dropout(input, p, training, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """feature_alpha_dropout(input, p=0.5, training=False, inplace=False) -> Tensor

    Alpha dropout of whole channels of (N, C, *). The identity unless training.

    >>> ember.nn.functional.feature_alpha_dropout(ember.ones(2, 3, 4), 0.5, training=True).shape
    ember.Size([2, 3, 4])
    """
    return _dropout_impl(input, p, training, inplace, True, True)


def feature_alpha_dropout_(input, p=0.5, training=False):
    """feature_alpha_dropout_(input, p=0.5, training=False) -> Tensor

    In-place feature_alpha_dropout: overwrites input and returns it.

    >>> x = ember.ones(2, 3, 4)
    >>> ember.nn.functional.feature_alpha_dropout_(x, 0.5, training=True) is x
    True
    """
    return feature_alpha_dropout(input, p, training, True)
