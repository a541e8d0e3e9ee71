"""torch.nn.utils.fusion: folds an eval-mode BatchNorm into the conv or linear layer before
it (w' = w * gamma / sqrt(var + eps) per output channel, b' = (b - mean) * that + beta)."""
import copy

from ... import _C
from ..._creation import zeros_like, ones_like
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _check_eval(layer, bn):
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of `conv` computing conv followed by bn (both in eval mode).

    >>> conv, bn = ember.nn.Conv2d(1, 2, 1).eval(), ember.nn.BatchNorm2d(2).eval()
    >>> fused = ember.nn.utils.fuse_conv_bn_eval(conv, bn)
    >>> x = ember.ones(1, 1, 2, 2)
    >>> ember.allclose(fused(x), bn(conv(x)))
    True
    """
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean,
                                                    bn.running_var, bn.eps, bn.weight, bn.bias,
                                                    transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The fused (weight, bias) Parameters; output channels are dim 0 (dim 1 if transpose).

    >>> w, b = ember.nn.utils.fuse_conv_bn_weights(ember.ones(2, 1, 1, 1), None, ember.zeros(2),
    ...     ember.full((2,), 4.0), 0.0, ember.ones(2), ember.zeros(2))
    >>> w.flatten().tolist(), b.tolist()
    ([0.5, 0.5], [0.0, 0.0])
    """
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    conv_b = zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = zeros_like(bn_rm) if bn_b is None else bn_b
    rsqrt = _C.rsqrt(bn_rv + bn_eps)
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.dim() - 2)
    fused_w = (conv_w * (bn_w * rsqrt).reshape(shape)).to(dtype=w_dtype)
    fused_b = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of `linear` computing linear followed by bn (both in eval mode).

    >>> linear, bn = ember.nn.Linear(3, 2).eval(), ember.nn.BatchNorm1d(2).eval()
    >>> fused = ember.nn.utils.fuse_linear_bn_eval(linear, bn)
    >>> x = ember.ones(4, 3)
    >>> ember.allclose(fused(x), bn(linear(x)))
    True
    """
    _check_eval(linear, bn)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
            f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean,
                                                      bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The fused (weight, bias) Parameters of a linear layer followed by a BatchNorm.

    >>> w, b = ember.nn.utils.fuse_linear_bn_weights(ember.eye(2), ember.zeros(2),
    ...     ember.zeros(2), ember.full((2,), 4.0), 0.0, ember.ones(2), ember.ones(2))
    >>> w.tolist(), b.tolist()
    ([[0.5, 0.0], [0.0, 0.5]], [1.0, 1.0])
    """
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    linear_b = zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * _C.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
