"""Fuzzer, as torch.utils.benchmark.Fuzzer: benchmark inputs drawn at random from specifications
(FuzzedParameter for numbers, FuzzedTensor for tensors whose sizes, strides and layout use them).

Parameters come from a NumPy RandomState seeded with `seed`, so a seed gives the same sizes,
steps and layouts as torch's Fuzzer; the tensors' values come from ember's generator (seeded
from the same state), which draws other numbers than torch's."""
import functools
import itertools

from ...._creation import rand, randint
from ...._dtype_info import finfo, iinfo
from ...._dtype import bool as _bool, float32 as _float32
from ....random import manual_seed

__all__ = ["Fuzzer", "FuzzedParameter", "ParameterAlias", "FuzzedTensor"]

_DISTRIBUTIONS = ("loguniform", "uniform")


class FuzzedParameter:
    """FuzzedParameter(name, minval=None, maxval=None, distribution=None, strict=False)

    A number drawn for each set of inputs: "loguniform" or "uniform" between minval and maxval
    (integers when both are ints), or a dict {value: probability}. A strict parameter keeps its
    first draw while the Fuzzer redraws the others to meet constraints.

    >>> import numpy as np
    >>> from ember.utils.benchmark import FuzzedParameter
    >>> p = FuzzedParameter("n", minval=4, maxval=4, distribution="uniform")
    >>> p.name, p.sample(np.random.RandomState(0))
    ('n', 4)
    """

    def __init__(self, name, minval=None, maxval=None, distribution=None, strict=False):
        self._name = name
        self._minval = minval
        self._maxval = maxval
        self._distribution = self._check_distribution(distribution)
        self.strict = strict

    @property
    def name(self):
        return self._name

    def sample(self, state):
        if self._distribution == "loguniform":
            return self._loguniform(state)
        if self._distribution == "uniform":
            return self._uniform(state)
        return self._custom_distribution(state)

    def _check_distribution(self, distribution):
        where = f"FuzzedParameter({self._name!r})"
        if not isinstance(distribution, dict):
            if distribution not in _DISTRIBUTIONS:
                raise ValueError(f"{where}: Unknown distribution: {distribution}")
            return distribution
        if any(p < 0 for p in distribution.values()):
            raise ValueError(f"{where}: Probabilities cannot be negative")
        if abs(sum(distribution.values()) - 1) > 1e-5:
            raise ValueError(f"{where}: Distribution is not normalized")
        if self._minval is not None or self._maxval is not None:
            raise ValueError(f"{where}: When passing a custom distribution, 'minval' and "
                             "'maxval' must be None")
        return distribution

    def _loguniform(self, state):
        import numpy as np
        value = int(2 ** state.uniform(low=np.log2(self._minval), high=np.log2(self._maxval)))
        return min(max(value, self._minval), self._maxval)

    def _uniform(self, state):
        if isinstance(self._minval, int) and isinstance(self._maxval, int):
            return int(state.randint(low=self._minval, high=self._maxval + 1))
        return state.uniform(low=self._minval, high=self._maxval)

    def _custom_distribution(self, state):
        import numpy as np
        index = state.choice(np.arange(len(self._distribution)),
                             p=tuple(self._distribution.values()))
        return list(self._distribution)[index]


class ParameterAlias:
    """ParameterAlias(alias_to)

    A parameter value (in a FuzzedParameter's distribution) that takes another parameter's
    value, e.g. to make two sizes sometimes equal. Chains are allowed, cycles are not.

    >>> from ember.utils.benchmark import ParameterAlias
    >>> ParameterAlias("x_len")
    ParameterAlias[alias_to: x_len]
    """

    def __init__(self, alias_to):
        self.alias_to = alias_to

    def __repr__(self):
        return f"ParameterAlias[alias_to: {self.alias_to}]"


def dtype_size(dtype):
    if dtype == _bool:
        return 1
    if dtype.is_floating_point or dtype.is_complex:
        return finfo(dtype).bits // 8
    return iinfo(dtype).bits // 8


def prod(values, base=1):
    """The product in Python integers (a NumPy product could overflow into a negative size)."""
    return functools.reduce(lambda x, y: int(x) * int(y), values, base)


class FuzzedTensor:
    """FuzzedTensor(name, size, steps=None, probability_contiguous=0.5, min_elements=None,
    max_elements=None, max_allocation_bytes=None, dim_parameter=None, roll_parameter=None,
    dtype=ember.float32, cuda=False, tensor_constructor=None)

    A tensor drawn for each set of inputs: size (and steps, which slice a larger tensor) name
    parameters or give ints; with probability 1 - probability_contiguous its memory order is
    permuted; sets of parameters that break min/max_elements or max_allocation_bytes are
    redrawn. tensor_constructor(size=, dtype=, **params) replaces ember.rand / randint.

    >>> from ember.utils.benchmark import FuzzedTensor, Fuzzer
    >>> fuzzer = Fuzzer(parameters=[], tensors=[FuzzedTensor("x", size=(2, 3),
    ...                                                      probability_contiguous=1)], seed=0)
    >>> tensors, properties, params = next(fuzzer.take(1))
    >>> tensors["x"].shape, properties["x"]["is_contiguous"]
    (ember.Size([2, 3]), True)
    """

    def __init__(self, name, size, steps=None, probability_contiguous=0.5, min_elements=None,
                 max_elements=None, max_allocation_bytes=None, dim_parameter=None,
                 roll_parameter=None, dtype=_float32, cuda=False, tensor_constructor=None):
        if cuda:
            raise ValueError(f"FuzzedTensor({name!r}): cuda=True, but ember runs on the CPU "
                             "only")
        self._name = name
        self._size = size
        self._steps = steps
        self._probability_contiguous = probability_contiguous
        self._min_elements = min_elements
        self._max_elements = max_elements
        self._max_allocation_bytes = max_allocation_bytes
        self._dim_parameter = dim_parameter
        self._dtype = dtype
        self._tensor_constructor = tensor_constructor

    @property
    def name(self):
        return self._name

    @staticmethod
    def default_tensor_constructor(size, dtype, **kwargs):
        if dtype.is_floating_point or dtype.is_complex:
            return rand(size=size, dtype=dtype)
        return randint(1, 127, size=size, dtype=dtype)

    def _make_tensor(self, params, state):
        import numpy as np
        size, steps, allocation_size = self._get_size_and_steps(params)
        constructor = self._tensor_constructor or self.default_tensor_constructor
        raw = constructor(size=allocation_size, dtype=self._dtype, **params)
        dim = len(size)
        order = np.arange(dim)
        if state.rand() > self._probability_contiguous:
            while dim > 1 and np.all(order == np.arange(dim)):
                order = state.permutation(raw.dim())
            # Laid out in a permuted order, then viewed back in the original one.
            raw = raw.permute(tuple(order)).contiguous().permute(tuple(np.argsort(order)))
        tensor = raw[tuple(slice(0, n * step, step) for n, step in zip(size, steps))]
        properties = {"numel": int(tensor.numel()), "order": order, "steps": steps,
                      "is_contiguous": tensor.is_contiguous(), "dtype": str(self._dtype)}
        return tensor, properties

    def _get_size_and_steps(self, params):
        dim = params[self._dim_parameter] if self._dim_parameter is not None else len(self._size)

        def resolve(values):
            values = tuple(params.get(v, v) for v in values)[:dim]
            return values + (1,) * (dim - len(values))
        size, steps = resolve(self._size), resolve(self._steps or ())
        return size, steps, tuple(n * step for n, step in zip(size, steps))

    def satisfies_constraints(self, params):
        size, _, allocation_size = self._get_size_and_steps(params)
        elements = prod(size)
        allocation_bytes = prod(allocation_size, base=dtype_size(self._dtype))

        def above(left, right):
            return left is not None and right is not None and left > right
        return not (above(elements, self._max_elements) or above(self._min_elements, elements)
                    or above(allocation_bytes, self._max_allocation_bytes))


class Fuzzer:
    """Fuzzer(parameters, tensors, constraints=None, seed=None)

    Draws sets of parameters (redrawing until every constraint(params) is true, params the
    dict of values, and the tensors' limits hold) and builds the tensors from them. take(n) yields n
    triples (tensors, tensor_properties, params), each a dict keyed by name.

    >>> from ember.utils.benchmark import Fuzzer, FuzzedParameter, FuzzedTensor
    >>> fuzzer = Fuzzer(
    ...     parameters=[FuzzedParameter("k", minval=1, maxval=16, distribution="loguniform")],
    ...     tensors=[FuzzedTensor("x", size=("k", 3))], seed=0)
    >>> [(params["k"], tensors["x"].shape[1]) for tensors, _, params in fuzzer.take(3)]
    [(7, 3), (3, 3), (2, 3)]
    """

    def __init__(self, parameters, tensors, constraints=None, seed=None):
        import numpy as np
        if seed is None:
            seed = int(np.random.RandomState().randint(0, 2 ** 32 - 1, dtype=np.int64))
        self._seed = seed
        self._parameters = Fuzzer._unpack(parameters, FuzzedParameter)
        self._tensors = Fuzzer._unpack(tensors, FuzzedTensor)
        self._constraints = constraints or ()
        overlap = {p.name for p in self._parameters} & {t.name for t in self._tensors}
        if overlap:
            raise ValueError(f"Duplicate names in parameters and tensors: {overlap}")
        self._rejections = 0
        self._total_generated = 0

    @staticmethod
    def _unpack(values, cls):
        return tuple(itertools.chain.from_iterable([v] if isinstance(v, cls) else v
                                                   for v in values))

    def take(self, n):
        import numpy as np
        state = np.random.RandomState(self._seed)
        manual_seed(int(state.randint(low=0, high=2 ** 63, dtype=np.int64)))
        for _ in range(n):
            params = self._generate(state)
            tensors, properties = {}, {}
            for t in self._tensors:
                tensors[t.name], properties[t.name] = t._make_tensor(params, state)
            yield tensors, properties, params

    @property
    def rejection_rate(self):
        return self._rejections / self._total_generated if self._total_generated else 0.0

    def _generate(self, state):
        strict = {}
        for _ in range(1000):
            candidate = {}
            for p in self._parameters:
                if p.strict and p.name in strict:
                    candidate[p.name] = strict[p.name]
                else:
                    candidate[p.name] = p.sample(state)
                    if p.strict:
                        strict[p.name] = candidate[p.name]
            candidate = self._resolve_aliases(candidate)
            self._total_generated += 1
            if all(f(candidate) for f in self._constraints) and \
                    all(t.satisfies_constraints(candidate) for t in self._tensors):
                return candidate
            self._rejections += 1
        raise ValueError("Failed to generate a set of valid parameters.")

    @staticmethod
    def _resolve_aliases(params):
        params = dict(params)
        pending = sum(isinstance(v, ParameterAlias) for v in params.values())
        while pending:
            for key, value in params.items():
                if isinstance(value, ParameterAlias):
                    params[key] = params[value.alias_to]
            left = sum(isinstance(v, ParameterAlias) for v in params.values())
            if left == pending:
                raise ValueError(f"ParameterAlias cycle detected\n{params}")
            pending = left
        return params
