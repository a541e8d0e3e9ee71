"""ember.Generator: a random stream of its own (torch.Generator), for `generator=` arguments.

The stream is C++ (include/ember/random.h: xoshiro256**, its own state and lock); the random
ops (rand, randn, randint, randperm, normal, bernoulli, multinomial, Tensor.uniform_, ...)
draw from it when given `generator=g`, and from ember.default_generator otherwise. A stream
depends only on its seed and on what was drawn from it; two generators seeded alike give
equal numbers. ember's streams are reproducible for a seed but differ from PyTorch's.
The data utilities (samplers, random_split, DataLoader) seed a NumPy stream from one draw
of the generator (numpy_rng below), so a seed still fixes their order.
"""
from . import _C

_U64 = 1 << 64


class Generator(_C._Generator):
    """A random stream: `g = ember.Generator().manual_seed(42)`; pass it as `generator=g`.

    >>> g = ember.Generator().manual_seed(42)
    >>> a = ember.rand(3, generator=g)
    >>> bool((a == ember.rand(3, generator=ember.Generator().manual_seed(42))).all())
    True
    """

    def __init__(self, device="cpu"):
        from ._device import device as _device
        kind = _device(device).type  # validates as torch.device does
        if kind != "cpu":  # torch's CPU build has no generator for other devices
            raise RuntimeError(f"Cannot get {kind.upper()} generator without ATen_{kind} library "
                               "(ember runs on the CPU only)")
        super().__init__()

    def manual_seed(self, seed):
        """Restarts the stream from `seed` (an int; negative seeds wrap modulo 2**64 as in torch)."""
        seed = int(seed)
        if not -(1 << 63) <= seed < _U64:
            raise RuntimeError(f"Generator.manual_seed: seed {seed} does not fit in 64 bits")
        self._manual_seed(seed % _U64)
        return self

    def set_state(self, new_state):
        """Restores a state from get_state() (an ember.uint8 tensor)."""
        if not isinstance(new_state, _C.Tensor):
            raise TypeError(f"Generator.set_state: expected an ember.uint8 tensor, got "
                            f"{type(new_state).__name__}")
        self._set_state(new_state)
        return self

    def clone_state(self):
        """A new Generator at this one's state (and initial seed): the two streams then draw
        the same numbers independently.

        >>> g = ember.Generator().manual_seed(3)
        >>> c = g.clone_state()
        >>> bool((ember.rand(2, generator=g) == ember.rand(2, generator=c)).all())
        True
        """
        return Generator().set_state(self.get_state())

    def get_offset(self):
        """CUDA's Philox offset: a CPU generator has none (RuntimeError, as torch)."""
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset):
        """CUDA's Philox offset: a CPU generator has none (RuntimeError, as torch)."""
        raise RuntimeError("CPU Generator does not use offset")

    def graphsafe_get_state(self):
        """CUDA graphs' generator state: not for a CPU generator (as torch)."""
        raise NotImplementedError("graphsafe_get_state is not supported in this Generator")

    def graphsafe_set_state(self, state):
        """CUDA graphs' generator state: not for a CPU generator (as torch)."""
        raise NotImplementedError("graphsafe_set_state is not supported in this Generator")

    @property
    def device(self):
        from ._device import CPU
        return CPU

    def __reduce__(self):  # pickling (DataLoader workers, deepcopy) keeps the stream's state
        return _from_state, (self.get_state().tolist(),)

    def __repr__(self):
        return f"<ember.Generator initial_seed={self.initial_seed()}>"


def _from_state(state):
    g = Generator()
    from ._creation import tensor
    from ._dtype import uint8
    return g.set_state(tensor(state, dtype=uint8))


def _make_default():
    g = Generator.__new__(Generator)
    _C._Generator.__init__(g, True)  # shares the C++ global stream (ember.manual_seed)
    return g


default_generator = _make_default()


def numpy_rng(generator):
    """A NumPy stream seeded by one draw from `generator` (None: the default generator), for
    the data utilities: the draw advances the ember stream, so a seed fixes every order."""
    import numpy as np
    if generator is not None and not isinstance(generator, _C._Generator):
        raise TypeError(f"expected generator to be an ember.Generator (got {type(generator).__name__})")
    seed = _C._randint(0, 1 << 62, (), None, generator).item()
    return np.random.Generator(np.random.PCG64(seed))
