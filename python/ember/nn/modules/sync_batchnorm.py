"""SyncBatchNorm: batch norm whose training statistics span every process of a group.

In one process (or with ember.distributed not initialized, or in eval mode) it is BatchNorm
over any (N, C, *) input. In training with an initialized group of more than one process, the
per-channel sum, sum of squares and count are all_reduced so every rank normalizes with the
global mean and (biased) variance, and the backward all_reduces the two per-channel sums the
input's gradient needs (torch's sync_batch_norm does the same with CUDA kernels; torch's CPU
build refuses; ember does it on the CPU with Gloo). weight's and bias's gradients stay local
sums, for DistributedDataParallel to average, as torch."""
from ... import _C
from ... import _creation as _cr
from ..._grad_mode import no_grad
from ...autograd.function import Function
from .normalization import _BatchNorm

__all__ = ["SyncBatchNorm"]


def _dist():
    from ... import distributed
    return distributed


def _channel_sums(x, *tensors):
    """Per-channel sums over every dim but 1 of each tensor."""
    dims = [0] + list(range(2, x.dim()))
    return [t.sum(dims) for t in tensors]


class _SyncBatchNormFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, group):
        dist = _dist()
        c = input.shape[1]
        count = input.numel() // c
        s, ss = _channel_sums(input, input, input * input)
        stats = _C.cat([s, ss, _cr.full((1,), float(count), dtype=input.dtype)])
        dist.all_reduce(stats, group=group)
        total = float(stats[2 * c])
        if total <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got "
                             f"{int(total)} across the group (input size {list(input.shape)})")
        mean = stats[:c] / total
        var = _C.clamp(stats[c:2 * c] / total - mean * mean, min=0.0)
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean * momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(var * (momentum * total / (total - 1)))
        shape = [1, c] + [1] * (input.dim() - 2)
        invstd = (var + eps).rsqrt()
        xhat = (input - mean.reshape(shape)) * invstd.reshape(shape)
        out = xhat
        if weight is not None:
            out = out * weight.reshape(shape)
        if bias is not None:
            out = out + bias.reshape(shape)
        ctx.save_for_backward(xhat, invstd, weight)
        ctx.total, ctx.group, ctx.has_bias = total, group, bias is not None
        return out

    @staticmethod
    def backward(ctx, grad_out):
        xhat, invstd, weight = ctx.saved_tensors
        c = xhat.shape[1]
        shape = [1, c] + [1] * (xhat.dim() - 2)
        sum_dy, sum_dy_xhat = _channel_sums(xhat, grad_out, grad_out * xhat)
        grad_weight = sum_dy_xhat if weight is not None else None
        grad_bias = sum_dy.clone() if ctx.has_bias else None
        both = _C.cat([sum_dy, sum_dy_xhat])
        _dist().all_reduce(both, group=ctx.group)
        mean_dy = (both[:c] / ctx.total).reshape(shape)
        mean_dy_xhat = (both[c:] / ctx.total).reshape(shape)
        scale = invstd if weight is None else invstd * weight
        grad_input = (grad_out - mean_dy - xhat * mean_dy_xhat) * scale.reshape(shape)
        return grad_input, grad_weight, grad_bias, None, None, None, None, None


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over (N, C, *) whose training statistics are synchronized across the
    processes of process_group (default: the whole world) when ember.distributed is
    initialized with more than one process.

    >>> ember.nn.SyncBatchNorm(2)(ember.ones(4, 2, 3)).shape
    ember.Size([4, 2, 3])
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        dist = _dist()
        need_sync = self.training and dist.is_initialized() and \
            dist.get_world_size(self.process_group) > 1
        if not need_sync:
            return super().forward(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        rm = self.running_mean if self.track_running_stats else None
        rv = self.running_var if self.track_running_stats else None
        # the running statistics are updated in place inside the function (its forward runs
        # without autograd)
        return _SyncBatchNormFunction.apply(input, self.weight, self.bias, rm, rv, self.eps,
                                            factor, self.process_group)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """A copy of module's tree with every BatchNorm*d replaced by a SyncBatchNorm sharing its
        parameters and buffers (instance norms are left alone, as torch)."""
        from .instancenorm import _InstanceNorm
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group)
            if module.affine:
                with no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out

