"""ember.Generator: an explicit random stream for the data utilities (shuffling, random_split,
samplers), as torch.Generator is used there.

It wraps NumPy's PCG64. A seed gives the same stream on every run, but ember's streams differ
from PyTorch's: `Generator().manual_seed(0)` shuffles differently in ember and in torch.
The global stream (ember.manual_seed) is the C++ generator in include/ember/random.h; a data
utility given no generator draws one seed from it, so ember.manual_seed(s) makes it reproducible.
"""
import os

from . import _C


class _LazyNumpy:  # NumPy loads when a Generator is first used, not with `import ember`
    def __getattr__(self, name):
        import numpy
        return getattr(numpy, name)


np = _LazyNumpy()

_DEFAULT_SEED = 67280421310721  # torch.Generator().initial_seed()
_U64 = 1 << 64
_STATE_BYTES = 56  # seed, PCG64 state and increment (128 bits each), has_uint32, uinteger


class Generator:
    """A random stream: `g = ember.Generator().manual_seed(42)`; pass it as `generator=g`."""

    def __init__(self, device="cpu"):
        from ._device import device as _device
        kind = _device(device).type  # validates as torch.device does
        if kind != "cpu":  # torch's CPU build has no generator for other devices
            raise RuntimeError(f"Cannot get {kind.upper()} generator without ATen_{kind} library "
                               "(ember runs on the CPU only)")
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        """Restarts the stream from `seed` (an int; negative seeds wrap modulo 2**64 as in torch)."""
        seed = int(seed)
        if not -(1 << 63) <= seed < _U64:
            raise RuntimeError(f"Generator.manual_seed: seed {seed} does not fit in 64 bits")
        self._seed = seed % _U64
        self._rng = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def seed(self):
        """Seeds from the operating system's entropy and returns the seed used."""
        s = int.from_bytes(os.urandom(8), "little") >> 1
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    @property
    def device(self):
        from ._device import CPU
        return CPU

    def get_state(self):
        """The state as an ember.uint8 tensor (restore it with set_state)."""
        st = self._rng.bit_generator.state
        parts = [(self._seed, 8), (st["state"]["state"], 16), (st["state"]["inc"], 16),
                 (st["has_uint32"], 8), (st["uinteger"], 8)]
        raw = b"".join(int(v).to_bytes(n, "little") for v, n in parts)
        return _C._from_numpy(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state):
        if not isinstance(new_state, _C.Tensor) or new_state.numel() != _STATE_BYTES \
                or str(new_state.dtype) != "ember.uint8":
            raise RuntimeError(f"Generator.set_state: expected an ember.uint8 tensor of {_STATE_BYTES} "
                               "bytes from Generator.get_state()")
        raw = new_state.contiguous().numpy().tobytes()
        field = [int.from_bytes(raw[a:b], "little") for a, b in ((0, 8), (8, 24), (24, 40), (40, 48), (48, 56))]
        self.manual_seed(field[0])
        self._rng.bit_generator.state = {"bit_generator": "PCG64",
                                         "state": {"state": field[1], "inc": field[2]},
                                         "has_uint32": field[3], "uinteger": field[4]}
        return self

    def __repr__(self):
        return f"<ember.Generator initial_seed={self._seed}>"


def numpy_rng(generator):
    """The NumPy stream behind `generator`; with None, a fresh stream seeded by one draw from the
    global ember stream (as torch's samplers draw a seed from the default generator)."""
    if generator is None:
        seed = _C.randint(0, 1 << 62, (), None).item()
        return np.random.Generator(np.random.PCG64(seed))
    if not isinstance(generator, Generator):
        raise TypeError(f"expected generator to be an ember.Generator (got {type(generator).__name__})")
    return generator._rng
