"""instance_norm and local_response_norm: compositions of batch_norm, pad and avg_pool1d,
as torch builds them (ATen's instance_norm; torch.nn.functional.local_response_norm)."""
from .. import _C
from .._grad_mode import no_grad
from ._padding_conv import pad, avg_pool1d

__all__ = ["instance_norm", "local_response_norm"]


def _verify_spatial_size(size):
    n = 1
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{size}")


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalizes each (sample, channel) plane of (N, C, *) by its own statistics: batch_norm
    of the (1, N*C, *) view with the per-channel tensors repeated N times. The running
    statistics become the mean over the batch of the N updated copies."""
    if use_input_stats:
        _verify_spatial_size(input.shape)
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    b, c = input.shape[0], input.shape[1]
    shape = (1, b * c) + tuple(input.shape[2:])

    def rep(t):  # t repeated b times, a new tensor (batch_norm updates running stats in place)
        return None if t is None else t.unsqueeze(0).expand(b, c).reshape(b * c)

    mean_, var_ = rep(running_mean), rep(running_var)
    out = _C.batch_norm(input.contiguous().view(shape), mean_, var_, rep(weight), rep(bias),
                        use_input_stats, momentum, eps)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(mean_.view(b, c).mean(0))
        if running_var is not None:
            running_var.copy_(var_.view(b, c).mean(0))
    return out.view(input.shape)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """input / (k + alpha * mean of input^2 over `size` neighbouring channels) ^ beta, the
    window zero-padded by size // 2 before and (size - 1) // 2 after each channel."""
    dim = input.dim()
    if dim < 3:
        raise ValueError("Expected 3D or higher dimensionality                          "
                         f"input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    sizes = tuple(input.shape)
    n, ch = sizes[0], sizes[1]
    # channels last, one row per (sample, position): an average pool along the channels
    sq = (input * input).reshape(n, ch, -1).transpose(1, 2)
    m = sq.shape[1]
    div = pad(sq.reshape(n * m, 1, ch), (size // 2, (size - 1) // 2))
    div = avg_pool1d(div, size, 1).reshape(n, m, ch).transpose(1, 2).reshape(sizes)
    return input / (div * alpha + k).pow(beta)
