"""BatchNorm1d, BatchNorm2d, LayerNorm and LocalResponseNorm."""
from ... import _C
from ..._creation import zeros, ones, tensor
from ..._dtype import int64
from ..._grad_mode import no_grad
from .. import functional as F
from .module import Module
from .utils import _affine_parameters, _normalized_shape, _reset_affine

__all__ = ["BatchNorm1d", "BatchNorm2d", "LayerNorm", "LocalResponseNorm", "CrossMapLRN2d"]


class _BatchNorm(Module):
    """Normalizes each channel of (N, C, *) by the batch statistics in training (updating
    running_mean / running_var with `momentum`, or their cumulative average when momentum
    is None) and by the running statistics in eval mode."""

    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _affine_parameters(self, (num_features,), affine, bias, device, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype, device=device))
            self.register_buffer("running_var", ones(num_features, dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return ("{num_features}, eps={eps}, momentum={momentum}, affine={affine}, "
                "bias={use_bias}, track_running_stats={track_running_stats}".format(
                    **self.__dict__, use_bias=self.bias is not None))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # Checkpoints from before num_batches_tracked existed (version < 2) load as PyTorch's.
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                                   else tensor(0, dtype=int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, input):
        self._check_input_dim(input)
        if self.training:
            F._verify_batch_size(input.shape)  # before num_batches_tracked moves
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_stats = not self.training or self.track_running_stats
        return _C.batch_norm(input, self.running_mean if use_stats else None,
                             self.running_var if use_stats else None, self.weight, self.bias,
                             bn_training, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """BatchNorm over (N, C) or (N, C, L) inputs.

    >>> ember.nn.BatchNorm1d(3)(ember.randn(8, 3)).shape
    ember.Size([8, 3])"""

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """BatchNorm over (N, C, H, W) inputs.

    >>> ember.nn.BatchNorm2d(3)(ember.randn(2, 3, 4, 4)).shape
    ember.Size([2, 3, 4, 4])"""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """BatchNorm over (N, C, D, H, W) inputs.

    >>> ember.nn.BatchNorm3d(2)(ember.ones(2, 2, 1, 2, 2)).shape
    ember.Size([2, 2, 1, 2, 2])
    """

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


__all__ += ["BatchNorm3d"]


class LayerNorm(Module):
    """Normalizes over the trailing dims normalized_shape; weight ones, bias zeros.

    >>> ember.nn.LayerNorm(3)(ember.tensor([[1.0, 2.0, 3.0]]))
    tensor([[-1.2247,  0.0000,  1.2247]], grad_fn=<NativeLayerNormBackward0>)"""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _normalized_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, self.normalized_shape, elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return _C.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class LocalResponseNorm(Module):
    """Normalizes each element by the mean square of `size` neighbouring channels (AlexNet):
    x / (k + alpha * mean(x^2)) ^ beta.

    >>> ember.nn.LocalResponseNorm(2)(ember.ones(1, 3, 1, 1)).shape
    ember.Size([1, 3, 1, 1])
    """

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


# torch.nn.modules.normalization holds these too: the same classes at torch's path (pickles name it).
class CrossMapLRN2d(Module):
    """torch's legacy cross-channel LRN over 4-d input: input / (k + alpha / size * sum of
    squares over a channel window)^beta, with torch's own windows (see
    ember.nn._normalization.cross_map_lrn2d).

    >>> ember.nn.CrossMapLRN2d(3)(ember.ones(1, 4, 2, 2)).shape
    ember.Size([1, 4, 2, 2])
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        from .._normalization import cross_map_lrn2d
        return cross_map_lrn2d(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


from .group_rms_norm import GroupNorm, RMSNorm  # noqa: E402
