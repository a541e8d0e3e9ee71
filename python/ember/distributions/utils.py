"""Helpers shared by the distributions: broadcasting parameters, probs <-> logits, lazy
properties, lower-triangle <-> vector."""
from numbers import Number

import ember

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix", "euler_constant"]

euler_constant = 0.57721566490153286060  # Euler Mascheroni Constant


def broadcast_all(*values):
    """Broadcast numbers and tensors to one shape; numbers become tensors of the first tensor's
    dtype (or the default dtype), as torch.distributions.utils.broadcast_all."""
    if not all(isinstance(v, (ember.Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if all(isinstance(v, ember.Tensor) for v in values):
        return ember.broadcast_tensors(*values)
    dtype = ember.get_default_dtype()
    for v in values:
        if isinstance(v, ember.Tensor):
            dtype = v.dtype
            break
    return ember.broadcast_tensors(*(v if isinstance(v, ember.Tensor) else ember.tensor(v, dtype=dtype)
                               for v in values))


def _standard_normal(shape, dtype):
    return ember.randn(ember.Size(shape), dtype=dtype)


def _uniform(shape, dtype, low=0.0):
    """Uniform draws on [low, 1) of the given shape (low > 0 keeps a log finite)."""
    u = ember.rand(ember.Size(shape), dtype=dtype)
    return u if low == 0.0 else u.clamp(min=low)


def _random_op(name):
    """A sampling op of ember's C++ core that torch names with a leading underscore
    (_standard_gamma, _sample_dirichlet): on ember if exported there, else on ember._C."""
    return getattr(ember, name, None) or getattr(ember._C, name)


def _standard_gamma(concentration):
    """Gamma(concentration, 1) draws, reparameterized (the op's backward is the implicit
    gradient)."""
    return _random_op("_standard_gamma")(concentration)


def _sum_rightmost(value, dim):
    """Sum out the rightmost `dim` dimensions of value."""
    if dim == 0:
        return value
    return value.flatten(value.dim() - dim).sum(-1)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return ember.sigmoid(logits)
    return ember.softmax(logits, -1)


def clamp_probs(probs):
    eps = ember.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ember.log(ps_clamped) - ember.log1p(-ps_clamped)
    return ember.log(ps_clamped)


def _log1mexp(x):
    """log(1 - exp(x)) for x <= 0, accurate on both sides of -log 2."""
    return ember.where(x > -0.6931471805599453, ember.log(-ember.expm1(x)),
                       ember.log1p(-ember.exp(x)))


def xlogy(x, y):
    """x * log(y) with 0 where x == 0 (composed until ember has xlogy)."""
    if hasattr(ember, "xlogy"):
        return ember.xlogy(x, y)
    return ember.where(x == 0, ember.zeros_like(x * y), x * ember.log(y))


class lazy_property:
    """A property computed on first access and then stored on the instance (the parameter a
    distribution was not given: probs from logits or the other way round)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with ember.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy_property looks like on the class: documented like a property."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


class _CategoricalParams:
    """For a distribution built on a Categorical (self._categorical): its logits, probs and
    param_shape are the Categorical's."""

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape


class _RelaxedParams:
    """For a relaxed distribution built as a transform of its base: temperature, logits and
    probs are the base distribution's."""

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class _BinaryProbsLogits:
    """The two parameterizations of a success probability, each computed lazily from the other
    (Bernoulli, Geometric, Binomial, NegativeBinomial, LogitRelaxedBernoulli)."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle (diagonal offset `diag`) of the trailing n x n matrices, row by row."""
    n = mat.shape[-1]
    if not (-n <= diag < n):
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows = ember.arange(n).unsqueeze(-1)
    cols = ember.arange(n)
    mask = (cols <= rows + diag).reshape(-1)
    index = ember.nonzero(mask).reshape(-1)
    return mat.reshape(tuple(mat.shape[:-2]) + (n * n,)).index_select(-1, index)


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of tril_matrix_to_vec: zeros above the diagonal `diag`."""
    m = vec.shape[-1]
    # the number of entries on or below diagonal `diag` of an n x n matrix, solved for n
    n = round((-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2)
    rows = ember.arange(n).unsqueeze(-1)
    cols = ember.arange(n)
    mask = (cols <= rows + diag).reshape(-1)
    index = ember.nonzero(mask).reshape(-1)
    if index.numel() != m:
        raise ValueError(f"vec_to_tril_matrix: the last dimension {m} is not a triangular number "
                         f"for diag {diag}")
    flat = vec.new_zeros(tuple(vec.shape[:-1]) + (n * n,))
    flat = flat.scatter(-1, index.expand(tuple(vec.shape[:-1]) + (m,)), vec)
    return flat.reshape(tuple(vec.shape[:-1]) + (n, n))
