"""torch.nn.utils.weight_norm (deprecated in torch for parametrizations.weight_norm): the
weight becomes name_g (norms) and name_v (direction) parameters, and a forward pre-hook
recomputes module.<name> = g * v / ||v|| before each call."""
import warnings

from ..parameter import Parameter
from ._reparam_hooks import find_pre_hook, remove_pre_hook
from .parametrizations import _norm_except_dim, _weight_norm

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


class WeightNorm:
    """The forward pre-hook (and what remove_weight_norm looks for)."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"),
                            self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        if find_pre_hook(module, WeightNorm, name)[1] is not None:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                               f"parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g",
                                  Parameter(_norm_except_dim(weight, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Splits module.<name> into <name>_g and <name>_v (FutureWarning, as torch).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     m = ember.nn.utils.weight_norm(ember.nn.Linear(2, 2))
    >>> sorted(name for name, _ in m.named_parameters())
    ['bias', 'weight_g', 'weight_v']
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Folds <name>_g and <name>_v back into one parameter <name>.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     m = ember.nn.utils.weight_norm(ember.nn.Linear(2, 2))
    >>> m = ember.nn.utils.remove_weight_norm(m)
    >>> sorted(name for name, _ in m.named_parameters())
    ['bias', 'weight']
    """
    return remove_pre_hook(module, WeightNorm, name,
                           "weight_norm of '{name}' not found in {module}")
