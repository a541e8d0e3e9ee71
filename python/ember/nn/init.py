"""ember.nn.init: torch.nn.init's initialisers. Each fills its tensor in place under
no_grad (so it works on Parameters) and returns it; the random ones draw from ember's
global generator, or from `generator` (an ember.Generator) when one is given."""
import math
import warnings

from .._grad_mode import no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_",
           "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_",
           # torch's deprecated names without the trailing underscore
           "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
           "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity: 1 (linear, conv, sigmoid), 5/3 (tanh),
    sqrt(2) (relu), sqrt(2 / (1 + slope^2)) (leaky_relu), 3/4 (selu).

    >>> ember.nn.init.calculate_gain("tanh"), ember.nn.init.calculate_gain("relu")
    (1.6666666666666667, 1.4142135623730951)
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return tensor.size(1) * receptive_field_size, tensor.size(0) * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills tensor with values drawn from U(a, b).

    >>> w = ember.nn.init.uniform_(ember.empty(1000), a=-2.0, b=2.0)
    >>> bool(w.min() >= -2.0), bool(w.max() < 2.0)
    (True, True)
    """
    with no_grad():
        tensor.uniform_(a, b, generator=generator)
    return tensor


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills tensor with values drawn from N(mean, std^2).

    >>> ember.nn.init.normal_(ember.empty(3), mean=2.0, std=0.0)
    tensor([2., 2., 2.])
    """
    with no_grad():
        tensor.normal_(mean, std, generator=generator)
    return tensor


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """N(mean, std^2) truncated to [a, b], by inverse-CDF sampling: u ~ U(cdf(a), cdf(b)),
    x = mean + std * sqrt(2) * erfinv(2u - 1), clamped to [a, b] against rounding at the ends.

    >>> w = ember.nn.init.trunc_normal_(ember.empty(1000), a=-1.0, b=1.0)
    >>> bool(w.min() >= -1.0), bool(w.max() <= 1.0)
    (True, True)
    """
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    lo = norm_cdf((a - mean) / std)
    hi = norm_cdf((b - mean) / std)
    uniform_(tensor, 2 * lo - 1, 2 * hi - 1, generator)  # erfinv's argument, in [-1, 1]
    with no_grad():
        tensor.erfinv_()
        tensor.mul_(std * math.sqrt(2.0))
        tensor.add_(mean)
        tensor.clamp_(min=a, max=b)
    return tensor


def constant_(tensor, val):
    """constant_(tensor, val) -> Tensor

    Fills tensor with val in place, without recording the fill for autograd.

    >>> ember.nn.init.constant_(ember.empty(2, 2), 0.5)
    tensor([[0.5000, 0.5000],
            [0.5000, 0.5000]])
    """
    with no_grad():
        tensor.fill_(val)
    return tensor


def ones_(tensor):
    """ones_(tensor) -> Tensor

    Fills tensor with ones in place, without recording the fill for autograd.

    >>> ember.nn.init.ones_(ember.empty(3))
    tensor([1., 1., 1.])
    """
    with no_grad():
        tensor.fill_(1.0)
    return tensor


def zeros_(tensor):
    """zeros_(tensor) -> Tensor

    Fills tensor with zeros in place, without recording the fill for autograd.

    >>> ember.nn.init.zeros_(ember.ones(3))
    tensor([0., 0., 0.])
    """
    with no_grad():
        tensor.zero_()
    return tensor


def eye_(tensor):
    """Fills a 2-d tensor with the identity matrix.

    >>> ember.nn.init.eye_(ember.empty(2, 3))
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    from .._creation import eye
    with no_grad():
        tensor.copy_(eye(*tensor.shape))
    return tensor


def dirac_(tensor, groups=1):
    """Fills a {3, 4, 5}-d conv weight with the Dirac delta: in each of `groups` groups, output
    channel d copies input channel d (at the kernel's centre), for as many channels as fit.

    >>> ember.nn.init.dirac_(ember.empty(2, 2, 3)).squeeze()
    tensor([[[0., 1., 0.],
             [0., 0., 0.]],
    <BLANKLINE>
            [[0., 0., 0.],
             [0., 1., 0.]]])
    """
    dimensions = tensor.ndimension()
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    from .._creation import arange
    with no_grad():
        tensor.zero_()
        if min_dim > 0:
            d = arange(min_dim)
            out_idx = ((arange(groups) * out_chans_per_grp).unsqueeze(1) + d).reshape(-1)
            in_idx = d.unsqueeze(0).expand(groups, min_dim).reshape(-1)
            centre = tuple(s // 2 for s in sizes[2:])
            tensor[(out_idx, in_idx) + centre] = 1
    return tensor


def _qr(a):
    """Reduced QR of an m x n matrix (m >= n) by Gram-Schmidt with one re-orthogonalisation per
    column ("twice is enough": orthogonal to rounding even for ill-conditioned a). R's diagonal
    (the column norms) comes out positive, so Q is the unique QR that torch's sign fix yields."""
    from .._creation import zeros
    m, n = a.shape
    q = zeros(m, n, dtype=a.dtype)
    r = zeros(n, n, dtype=a.dtype)
    for j in range(n):
        v = a[:, j]
        if j > 0:
            qj = q[:, :j]
            c1 = qj.t() @ v
            v = v - qj @ c1
            c2 = qj.t() @ v
            v = v - qj @ c2
            r[:j, j] = c1 + c2
        norm = v.norm()
        r[j, j] = norm
        q[:, j] = v / norm
    return q, r


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix, times gain (Saxe et al., 2013): trailing dims are flattened
    to rows x cols, and Q of the QR of a standard normal matrix (transposed when rows < cols) is
    used, its columns' signs fixed by R's diagonal so Q is Haar-distributed.

    >>> q = ember.nn.init.orthogonal_(ember.empty(3, 3))
    >>> ember.allclose(q @ q.T, ember.eye(3), atol=1e-6)
    True
    """
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    from .._creation import empty
    from .._dtype import float64
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    # Drawn and factorised in float64 so a float32 result is orthogonal to float32 rounding.
    flattened = normal_(empty(rows, cols, dtype=float64), 0.0, 1.0, generator)
    if rows < cols:
        flattened = flattened.t()
    with no_grad():
        q, r = _qr(flattened)
        q = q * r.diagonal().sign()
        if rows < cols:
            q = q.t()
        tensor.copy_(q.reshape(tuple(tensor.shape)))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A 2-d matrix with N(0, std^2) entries of which ceil(sparsity * rows) per column, at
    random rows, are zero (Martens, 2010).

    >>> w = ember.nn.init.sparse_(ember.empty(4, 3), sparsity=0.5)
    >>> (w == 0).sum(0)
    tensor([2, 2, 2])
    """
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    from .._creation import randperm, arange
    rows, cols = tensor.shape
    num_zeros = min(math.ceil(sparsity * rows), rows)
    normal_(tensor, 0.0, std, generator)
    if num_zeros <= 0 or cols == 0:
        return tensor
    zero_rows = [randperm(rows, generator=generator)[:num_zeros] for _ in range(cols)]
    from .._functions import cat
    row_idx = cat(zero_rows)
    col_idx = arange(cols).unsqueeze(1).expand(cols, num_zeros).reshape(-1)
    with no_grad():
        tensor[row_idx, col_idx] = 0
    return tensor


def _no_op_if_empty(tensor):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010).

    >>> w = ember.nn.init.xavier_uniform_(ember.empty(2, 4))
    >>> bool(w.abs().max() <= 1.0)
    True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)).

    >>> w = ember.nn.init.xavier_normal_(ember.empty(200, 200))
    >>> round(w.std().item(), 2)
    0.07
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-b, b) with b = gain * sqrt(3 / fan) (He et al., 2015); `a` is leaky_relu's slope.

    >>> w = ember.nn.init.kaiming_uniform_(ember.empty(3, 6), nonlinearity="relu")
    >>> bool(w.abs().max() <= 1.0)
    True
    """
    if _no_op_if_empty(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with std = gain / sqrt(fan).

    >>> w = ember.nn.init.kaiming_normal_(ember.empty(200, 300), nonlinearity="relu")
    >>> round(w.std().item(), 2)
    0.08
    """
    if _no_op_if_empty(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


# The example of each deprecated name's docstring (the call, then what it prints).
_DEPRECATED_EXAMPLES = {
    "uniform": ("uniform(ember.empty(2), 1.0, 1.0)", "tensor([1., 1.])"),
    "normal": ("normal(ember.empty(2), 3.0, 0.0)", "tensor([3., 3.])"),
    "constant": ("constant(ember.empty(2), 0.5)", "tensor([0.5000, 0.5000])"),
    "eye": ("eye(ember.empty(2, 2))", "tensor([[1., 0.],\n        [0., 1.]])"),
    "dirac": ("dirac(ember.empty(1, 1, 3))", "tensor([[[0., 1., 0.]]])"),
    "xavier_uniform": ("xavier_uniform(ember.empty(2, 3)).shape", "ember.Size([2, 3])"),
    "xavier_normal": ("xavier_normal(ember.empty(2, 3)).shape", "ember.Size([2, 3])"),
    "kaiming_uniform": ("kaiming_uniform(ember.empty(2, 3)).shape", "ember.Size([2, 3])"),
    "kaiming_normal": ("kaiming_normal(ember.empty(2, 3)).shape", "ember.Size([2, 3])"),
    "orthogonal": ("orthogonal(ember.empty(2, 3)).shape", "ember.Size([2, 3])"),
    "sparse": ("sparse(ember.empty(2, 3), 0.5).shape", "ember.Size([2, 3])"),
}


def _make_deprecate(meth):
    """torch's old names (uniform, normal, ...): warn, then call the underscore version."""
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
                      FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)

    call, printed = _DEPRECATED_EXAMPLES[old_name]
    deprecated_init.__doc__ = (f"{old_name}(...): deprecated, see nn.init.{new_name}.\n\n"
                               ">>> import warnings\n>>> with warnings.catch_warnings():\n"
                               '...     warnings.simplefilter("ignore")\n'
                               f"...     ember.nn.init.{call}\n{printed}\n")
    deprecated_init.__name__ = old_name
    deprecated_init.__qualname__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
