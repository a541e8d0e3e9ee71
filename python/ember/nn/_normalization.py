"""instance_norm and local_response_norm: compositions of batch_norm, pad and avg_pool1d,
as torch builds them (ATen's instance_norm; torch.nn.functional.local_response_norm)."""
from .. import _C
from .. import _creation as _cr
from .._grad_mode import no_grad
from ._padding_conv import pad, avg_pool1d
from ..autograd.function import Function as _Function

__all__ = ["instance_norm", "local_response_norm"]


def _verify_batch_size(size):
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{size}")


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
    statistics become the mean over the batch of the N updated copies.

    >>> ember.nn.functional.instance_norm(ember.tensor([[[1.0, 3.0], [2.0, 2.0]]]))
    tensor([[[-1.0000,  1.0000],
             [ 0.0000,  0.0000]]])
    """
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
    window zero-padded by size // 2 before and (size - 1) // 2 after each channel.

    >>> ember.nn.functional.local_response_norm(ember.ones(1, 3, 1, 1), 2).flatten()
    tensor([1.0000, 0.9999, 0.9999])
    """
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


# ---- CrossMapLRN2d (torch.nn.modules._functions.CrossMapLRN2d) --------------------------------
# torch's legacy implementation slides a running sum over the channels; its window is not the
# symmetric one of local_response_norm (channel 0 stays in every window past the first
# pre_pad, and the backward accumulates over [c - ipp, c + size - 1 - ipp]). ember computes
# the same windows in closed form from cumulative sums, forward and backward, so that results
# and gradients equal torch's.
def _window_sum(x, hi, lo):
    """Per channel c, the sum of x over channels (lo[c], hi[c]] (index tensors; lo = -1: from
    channel 0), from one cumulative sum."""
    cs = x.cumsum(1)
    zero = _cr.zeros_like(cs.narrow(1, 0, 1))
    padded = _C.cat([zero, cs], 1)  # padded[:, j + 1] = sum of x[:, :j + 1]
    return padded.index_select(1, hi + 1) - padded.index_select(1, lo + 1)


class _CrossMapLRN2d(_Function):
    @staticmethod
    def forward(ctx, input, size, alpha, beta, k):
        c = input.shape[1]
        ch = _cr.arange(c)
        pre_pad = int((size - 1) / 2 + 1)
        hi = _C.clamp(ch + pre_pad - 1, max=c - 1)
        lo = _C.where(ch > pre_pad, ch - pre_pad, -1)  # channels 1 .. c - pre_pad leave ...
        sq = input * input
        total = _window_sum(sq, hi, lo)
        # ... but channel 0 never does: add it back where it was taken out
        total = total + _C.where((ch > pre_pad).reshape(1, c, 1, 1), sq.narrow(1, 0, 1), 0.0)
        scale = total * (alpha / size) + k
        output = input * scale.pow(-beta)
        ctx.save_for_backward(input, output, scale)
        ctx.size, ctx.alpha, ctx.beta = size, alpha, beta
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output, scale = ctx.saved_tensors
        size, c = ctx.size, input.shape[1]
        ipp = int(size - (size - 1) / 2)
        ch = _cr.arange(c)
        hi = _C.clamp(ch + size - 1 - ipp, max=c - 1)
        lo = _C.clamp(ch - ipp - 1, min=-1)
        hi = _C.maximum(hi, lo)  # an empty window sums to 0
        accum = _window_sum(grad_output * output / scale, hi, lo)
        coef = 2 * ctx.alpha * ctx.beta / size
        return scale.pow(-ctx.beta) * grad_output - coef * input * accum, None, None, None, None


def cross_map_lrn2d(input, size, alpha=1e-4, beta=0.75, k=1):
    """torch's CrossMapLRN2d function: input / (k + alpha / size * window sum of squares)^beta
    over channels, 4-d input only."""
    if input.dim() != 4:
        raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
    return _CrossMapLRN2d.apply(input, size, alpha, beta, k)
