"""torch's ATen-level normalization functions, the ones nn layers and SyncBatchNorm call
underneath: native_batch_norm, native_layer_norm, native_group_norm (each returning its
statistics beside the output), native_dropout (output and mask), native_norm, norm_except_dim,
and the pieces of synchronized batch norm (batch_norm_stats, _elemt, _gather_stats(_with_counts),
_backward_reduce, _backward_elemt, _update_stats). All are compositions of ember ops; the
outputs carry gradients through those ops, the statistics are returned detached (torch marks
them non-differentiable).

Where ember differs: torch runs native_norm only on sparse tensors and the batch_norm_* pieces
other than batch_norm_update_stats only on CUDA (its dense CPU build raises
NotImplementedError); ember has one dense CPU layout and runs them there with the semantics of
torch's CUDA kernels (docs/compatibility.md)."""
from . import _C
from ._creation import empty, ones
from ._dtype import bool as _bool

Tensor = _C.Tensor


def _check_tensor(x, op, arg="input", optional=False):
    if optional and x is None:
        return
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{arg}' must be Tensor, not {type(x).__name__}")


def _channel_dims(input, op):
    if input.dim() < 2:
        raise IndexError(f"{op}: expected an input of at least 2 dims (N, C, *), got shape "
                         f"{tuple(input.shape)}")
    return [0] + list(range(2, input.dim()))


def _per_channel(t, input):
    """A (C,) tensor shaped to broadcast against (N, C, *) input."""
    return t.reshape([1, -1] + [1] * (input.dim() - 2))


def _check_channels(op, input, **vectors):
    c = input.size(1)
    for name, v in vectors.items():
        if v is not None and (v.dim() != 1 or v.size(0) != c):
            raise RuntimeError(f"{op}: expected {name} of shape ({c},) (the channels of input "
                               f"{tuple(input.shape)}), got {tuple(v.shape)}")


def batch_norm_stats(input, eps):
    """(mean, invstd) per channel of (N, C, *) input: invstd = 1 / sqrt(biased var + eps).

    >>> mean, invstd = ember.batch_norm_stats(ember.tensor([[1.0, 2.0], [3.0, 6.0]]), 0.0)
    >>> mean, invstd
    (tensor([2., 4.]), tensor([1.0000, 0.5000]))
    """
    _check_tensor(input, "batch_norm_stats")
    dims = _channel_dims(input, "batch_norm_stats")
    x = input.detach()
    mean = x.mean(dims)
    var = x.var(dims, correction=0)
    return mean, _C.rsqrt(var + eps)


def batch_norm_elemt(input, weight, bias, mean, invstd, eps, *, out=None):
    """(input - mean) * invstd * weight + bias, per channel.

    >>> ember.batch_norm_elemt(ember.tensor([[1.0], [3.0]]), ember.ones(1), ember.zeros(1), ember.tensor([2.0]), ember.tensor([1.0]), 1e-5)
    tensor([[-1.],
            [ 1.]])
    """
    op = "batch_norm_elemt"
    for name, t in (("input", input), ("mean", mean), ("invstd", invstd)):
        _check_tensor(t, op, name)
    _check_tensor(weight, op, "weight", True)
    _check_tensor(bias, op, "bias", True)
    _channel_dims(input, op)
    _check_channels(op, input, weight=weight, bias=bias, mean=mean, invstd=invstd)
    y = (input - _per_channel(mean, input)) * _per_channel(invstd, input)
    if weight is not None:
        y = y * _per_channel(weight, input)
    if bias is not None:
        y = y + _per_channel(bias, input)
    if out is not None:
        from ._comparison import _into
        return _into(y, out, op)
    return y


def _update_running(running_mean, running_var, momentum, mean, unbiased_var):
    from ._grad_mode import no_grad
    with no_grad():
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean.to(running_mean.dtype), alpha=momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(unbiased_var.to(running_var.dtype),
                                                alpha=momentum)


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var,
                                        momentum, eps, counts):
    """Merges per-process statistics (mean and invstd of shape (world, C), counts (world,))
    into the global (mean, invstd), and updates the running statistics (the unbiased
    variance into running_var), as SyncBatchNorm does after its all_gather.

    >>> rm, rv = ember.zeros(1), ember.ones(1)
    >>> ember.batch_norm_gather_stats_with_counts(ember.zeros(4, 1), ember.tensor([[1.0], [3.0]]), ember.tensor([[1.0], [1.0]]), rm, rv, 0.1, 0.0, ember.tensor([2.0, 2.0]))
    (tensor([2.]), tensor([0.7071]))
    """
    op = "batch_norm_gather_stats_with_counts"
    for name, t in (("input", input), ("mean", mean), ("invstd", invstd), ("counts", counts)):
        _check_tensor(t, op, name)
    if mean.dim() != 2 or tuple(invstd.shape) != tuple(mean.shape) or \
            counts.reshape(-1).size(0) != mean.size(0):
        raise RuntimeError(f"{op}: expected mean and invstd of shape (world, C) and counts of "
                           f"(world,), got {tuple(mean.shape)}, {tuple(invstd.shape)} and "
                           f"{tuple(counts.shape)}")
    n = counts.detach().reshape(-1, 1).to(mean.dtype)
    total = n.sum()
    gmean = (mean.detach() * n).sum(0) / total
    var = _C.reciprocal(invstd.detach() * invstd.detach()) - eps
    m2 = ((var + (mean.detach() - gmean) ** 2) * n).sum(0)
    biased = m2 / total
    _update_running(running_mean, running_var, momentum, gmean, m2 / (total - 1))
    return gmean, _C.rsqrt(biased + eps)


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps,
                            count):
    """batch_norm_gather_stats_with_counts with the same `count` for every process.

    >>> rm, rv = ember.zeros(1), ember.ones(1)
    >>> ember.batch_norm_gather_stats(ember.zeros(4, 1), ember.tensor([[1.0], [3.0]]), ember.tensor([[1.0], [1.0]]), rm, rv, 0.1, 0.0, 2)
    (tensor([2.]), tensor([0.7071]))
    >>> rm
    tensor([0.2000])
    """
    _check_tensor(mean, "batch_norm_gather_stats", "mean")
    counts = ones((mean.size(0) if mean.dim() else 1,), dtype=mean.dtype) * count
    return batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var,
                                               momentum, eps, counts)


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """(mean, biased var) per channel, and running_mean/running_var updated in place with
    `momentum` (the unbiased variance into running_var).

    >>> rm, rv = ember.zeros(1), ember.ones(1)
    >>> ember.batch_norm_update_stats(ember.tensor([[1.0], [3.0]]), rm, rv, 0.5)
    (tensor([2.]), tensor([1.]))
    >>> rm, rv
    (tensor([1.]), tensor([1.5000]))
    """
    op = "batch_norm_update_stats"
    _check_tensor(input, op)
    _check_tensor(running_mean, op, "running_mean", True)
    _check_tensor(running_var, op, "running_var", True)
    dims = _channel_dims(input, op)
    _check_channels(op, input, running_mean=running_mean, running_var=running_var)
    x = input.detach()
    mean = x.mean(dims)
    var = x.var(dims, correction=0)
    n = input.numel() // max(input.size(1), 1)
    _update_running(running_mean, running_var, momentum, mean, var * (n / max(n - 1, 1)))
    return mean, var


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g):
    """Per channel: (sum_dy, sum_dy_xmu, grad_weight, grad_bias) where sum_dy = sum(grad_out),
    sum_dy_xmu = sum(grad_out * (input - mean)), grad_weight = sum_dy_xmu * invstd and
    grad_bias = sum_dy; a part not asked for (input_g, weight_g, bias_g) is None.

    >>> g, x = ember.tensor([[1.0], [2.0]]), ember.tensor([[1.0], [3.0]])
    >>> ember.batch_norm_backward_reduce(g, x, ember.tensor([2.0]), ember.tensor([1.0]), ember.ones(1), True, True, True)
    (tensor([3.]), tensor([1.]), tensor([1.]), tensor([3.]))
    """
    op = "batch_norm_backward_reduce"
    for name, t in (("grad_out", grad_out), ("input", input), ("mean", mean),
                    ("invstd", invstd)):
        _check_tensor(t, op, name)
    _check_tensor(weight, op, "weight", True)
    dims = _channel_dims(input, op)
    if tuple(grad_out.shape) != tuple(input.shape):
        raise RuntimeError(f"{op}: grad_out {tuple(grad_out.shape)} and input "
                           f"{tuple(input.shape)} must have the same shape")
    _check_channels(op, input, mean=mean, invstd=invstd, weight=weight)
    sum_dy = grad_out.sum(dims)
    sum_dy_xmu = (grad_out * (input - _per_channel(mean, input))).sum(dims)
    grad_weight = sum_dy_xmu * invstd if weight_g else None
    grad_bias = sum_dy if bias_g else None
    if not input_g:
        sum_dy = sum_dy_xmu = None
    return sum_dy, sum_dy_xmu, grad_weight, grad_bias


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu, count):
    """grad_input = (grad_out - sum_dy / N - (input - mean) invstd^2 sum_dy_xmu / N) invstd
    weight, N = sum(count) the global number of values per channel.

    >>> g, x = ember.tensor([[1.0], [2.0]]), ember.tensor([[1.0], [3.0]])
    >>> ember.batch_norm_backward_elemt(g, x, ember.tensor([2.0]), ember.tensor([1.0]), ember.ones(1), ember.tensor([3.0]), ember.tensor([1.0]), ember.tensor([2], dtype=ember.int32))
    tensor([[0.],
            [0.]])
    """
    op = "batch_norm_backward_elemt"
    for name, t in (("grad_out", grad_out), ("input", input), ("mean", mean),
                    ("invstd", invstd), ("sum_dy", sum_dy), ("sum_dy_xmu", sum_dy_xmu),
                    ("count", count)):
        _check_tensor(t, op, name)
    _check_tensor(weight, op, "weight", True)
    _channel_dims(input, op)
    _check_channels(op, input, mean=mean, invstd=invstd, weight=weight, sum_dy=sum_dy,
                    sum_dy_xmu=sum_dy_xmu)
    n = count.sum().to(input.dtype)
    scale = invstd if weight is None else invstd * weight
    xmu = input - _per_channel(mean, input)
    proj = _per_channel(invstd * invstd * sum_dy_xmu / n, input)
    return (grad_out - _per_channel(sum_dy / n, input) - xmu * proj) * _per_channel(scale, input)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(output, save_mean, save_invstd): batch norm of (N, C, *) input. In training the batch
    statistics normalize and are returned (running statistics updated when given); in
    evaluation the running statistics normalize and the saved ones are empty.

    >>> out, m, invstd = ember.native_batch_norm(ember.tensor([[1.0], [3.0]]), None, None, None, None, True, 0.1, 0.0)
    >>> out, m
    (tensor([[-1.],
            [ 1.]]), tensor([2.]))
    """
    op = "native_batch_norm"
    _check_tensor(input, op)
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                    ("running_var", running_var)):
        _check_tensor(t, op, name, True)
    _channel_dims(input, op)
    _check_channels(op, input, weight=weight, bias=bias, running_mean=running_mean,
                    running_var=running_var)
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"{op}: running_mean and running_var must be given in evaluation "
                           "mode (training=False)")
    output = _C.batch_norm(input, running_mean, running_var, weight, bias, bool(training),
                           momentum, eps)
    if training:
        mean, invstd = batch_norm_stats(input, eps)
    else:
        mean = empty((0,), dtype=input.dtype)
        invstd = empty((0,), dtype=input.dtype)
    return output, mean, invstd


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(output, mean, rstd): layer norm over the last len(normalized_shape) dims; mean and
    rstd = 1 / sqrt(biased var + eps) keep those dims as size 1.

    >>> out, mean, rstd = ember.native_layer_norm(ember.tensor([[1.0, 3.0]]), [2], None, None, 0.0)
    >>> out, mean
    (tensor([[-1.,  1.]]), tensor([[2.]]))
    """
    op = "native_layer_norm"
    _check_tensor(input, op)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0 or input.dim() < k or tuple(input.shape[input.dim() - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    for name, p in (("weight", weight), ("bias", bias)):
        _check_tensor(p, op, name, True)
        if p is not None and tuple(p.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {list(p.shape)} and normalized_shape = "
                               f"{list(shape)}")
    output = _C.layer_norm(input, shape, weight, bias, eps)
    dims = list(range(input.dim() - k, input.dim()))
    x = input.detach()
    mean = x.mean(dims, keepdim=True)
    rstd = _C.rsqrt(x.var(dims, correction=0, keepdim=True) + eps)
    return output, mean, rstd


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(output, mean, rstd): group norm of input seen as (N, C, HxW) in `group` groups; mean and
    rstd (1 / sqrt(biased var + eps)) of shape (N, group).

    >>> out, mean, rstd = ember.native_group_norm(ember.tensor([[1.0, 3.0, 5.0, 7.0]]), None, None, 1, 4, 1, 2, 0.0)
    >>> out, mean
    (tensor([[-1.,  1., -1.,  1.]]), tensor([[2., 6.]]))
    """
    op = "native_group_norm"
    _check_tensor(input, op)
    if input.numel() != N * C * HxW or input.dim() < 2 or input.size(0) != N or \
            input.size(1) != C:
        raise RuntimeError(f"{op}: input of shape {tuple(input.shape)} is not (N, C, *) with "
                           f"N={N}, C={C}, HxW={HxW}")
    if group <= 0 or C % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(input.shape)} and num_groups={group}")
    for name, p in (("weight", weight), ("bias", bias)):
        _check_tensor(p, op, name, True)
        if p is not None and (p.dim() != 1 or p.size(0) != C):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {list(p.shape)} and "
                               f"input of shape {list(input.shape)}")
    from .nn.functional import group_norm
    output = group_norm(input, group, weight, bias, eps)
    x = input.detach().reshape(N, group, -1)
    mean = x.mean(-1)
    rstd = _C.rsqrt(x.var(-1, correction=0) + eps)
    return output, mean, rstd


def native_dropout(input, p, train):
    """(output, mask): with train (True or None) each element is kept with probability 1 - p
    (mask True) and scaled by 1 / (1 - p) (by 0 when p == 1); otherwise output is a copy of
    input and the mask all True.

    >>> ember.native_dropout(ember.ones(3), 0.5, False)
    (tensor([1., 1., 1.]), tensor([True, True, True]))
    """
    op = "native_dropout"
    _check_tensor(input, op)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{op}: result type Float can't be cast to the desired output type "
                           f"{input.dtype}")
    p = float(p)
    if not 0 <= p <= 1:
        raise RuntimeError(f"{op}: expects p to be in [0, 1], but got p={p}")
    if train is None or train:
        mask = _C.bernoulli(input.detach(), 1 - p).to(_bool)
        scale = 0.0 if p == 1 else 1 / (1 - p)
        return input * mask * scale, mask
    return input.clone(), ones(tuple(input.shape), dtype=_bool)


def native_norm(input, p=2, dim=None, keepdim=False, dtype=None):
    """The p-norm of input, over all elements or over `dim` (keepdim, dtype). torch runs it only
    on sparse tensors (dense raises NotImplementedError); ember computes it on dense ones.

    >>> ember.native_norm(ember.tensor([3.0, 4.0]))
    tensor(5.)
    """
    _check_tensor(input, "native_norm")
    x = input if dtype is None else input.to(dtype)
    if dim is None:
        return x.norm(p)
    return x.norm(p, list(dim), keepdim)


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm of v over every dim but `dim`, keeping v's dims (size 1 except `dim`); the
    norm of all of v for dim == -1 (weight_norm's g).

    >>> ember.norm_except_dim(ember.tensor([[3.0, 4.0], [6.0, 8.0]]), 2, 0)
    tensor([[ 5.],
            [10.]])
    """
    _check_tensor(v, "norm_except_dim", "v")
    if dim == -1:
        return v.norm(pow)
    d = dim + v.dim() if dim < 0 else dim
    if not 0 <= d < v.dim():
        raise IndexError(f"Dimension out of range (expected to be in range of [{-v.dim()}, "
                         f"{v.dim() - 1}], but got {dim})")
    shape = [1] * v.dim()
    shape[d] = v.size(d)
    rows = v.movedim(d, 0).reshape(v.size(d), -1)
    return rows.norm(pow, [1]).reshape(shape)


FUNCTIONS = {
    "native_batch_norm": native_batch_norm, "native_layer_norm": native_layer_norm,
    "native_group_norm": native_group_norm, "native_dropout": native_dropout,
    "native_norm": native_norm, "norm_except_dim": norm_except_dim,
    "batch_norm_stats": batch_norm_stats, "batch_norm_elemt": batch_norm_elemt,
    "batch_norm_gather_stats": batch_norm_gather_stats,
    "batch_norm_gather_stats_with_counts": batch_norm_gather_stats_with_counts,
    "batch_norm_backward_reduce": batch_norm_backward_reduce,
    "batch_norm_backward_elemt": batch_norm_backward_elemt,
    "batch_norm_update_stats": batch_norm_update_stats,
}
