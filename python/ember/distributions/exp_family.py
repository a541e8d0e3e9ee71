"""ExponentialFamily: distributions with density exp(<t(x), theta> - F(theta) + k(x)); the
entropy and the KL divergence between two members follow from the log normalizer F by autograd
(the Bregman divergence of F)."""
import ember
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """ExponentialFamily(batch_shape=ember.Size([]), event_shape=ember.Size([]), validate_args=None)

    The base class of exponential-family distributions p(x) = h(x) exp(<theta, t(x)> -
    F(theta)): subclasses give _natural_params and _log_normalizer, from which entropy() is
    derived.

    >>> D = ember.distributions
    >>> isinstance(D.Poisson(ember.tensor(2.0)), D.ExponentialFamily)
    True
    """

    @property
    def _natural_params(self):
        """The natural parameters theta, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """F(theta)."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """E[k(x)]."""
        raise NotImplementedError

    def entropy(self):
        """H = F(theta) - <theta, grad F(theta)> - E[k(x)], the gradient by autograd."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = ember.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np, g in zip(nparams, gradients):
            result = result - (np * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
