"""ember.distributions: probability distributions with PyTorch's API (torch.distributions),
in Python on ember ops and autograd; one file per concept, as PyTorch lays them out.

    from ember.distributions import Categorical
    m = Categorical(logits=scores)
    action = m.sample()
    loss = -m.log_prob(action) * reward
"""
from . import constraints, transforms
from .bernoulli import Bernoulli
from .categorical import Categorical
from .cauchy import Cauchy
from .constraint_registry import biject_to, transform_to
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .relaxed_bernoulli import LogitRelaxedBernoulli, RelaxedBernoulli
from .relaxed_categorical import ExpRelaxedCategorical, RelaxedOneHotCategorical
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .uniform import Uniform

__all__ = [
    "Bernoulli", "Categorical", "Cauchy", "Distribution", "ExponentialFamily", "Exponential",
    "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "Laplace",
    "LogNormal", "LogisticNormal", "LogitRelaxedBernoulli", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Pareto", "RelaxedBernoulli",
    "RelaxedOneHotCategorical", "TransformedDistribution", "Uniform", "biject_to",
    "kl_divergence", "register_kl", "transform_to",
]
__all__.extend(transforms.__all__)
