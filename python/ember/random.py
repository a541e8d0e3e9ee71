"""ember.random, as torch.random: the default generator's seed and state, and fork_rng.
The streams are C++ (include/ember/random.h); see ember.Generator."""
import contextlib

from ._generator import Generator, default_generator

__all__ = ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "fork_rng",
           "default_generator", "Generator"]


def manual_seed(seed):
    """Seeds the default generator and returns it (torch.manual_seed).

    >>> ember.manual_seed(7).initial_seed()
    7
    >>> ember.manual_seed(0).initial_seed()
    0
    """
    return default_generator.manual_seed(seed)


def seed():
    """Seeds the default generator from the OS's entropy and returns the seed.

    >>> s = ember.seed()
    >>> s == ember.initial_seed()
    True
    >>> ember.manual_seed(0).initial_seed()
    0
    """
    return default_generator.seed()


def initial_seed():
    """initial_seed() -> int

    The seed the default generator was last seeded with.

    >>> ember.manual_seed(42).initial_seed(), ember.initial_seed()
    (42, 42)
    >>> ember.manual_seed(0).initial_seed()
    0
    """
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as an ember.uint8 tensor.

    >>> state = ember.get_rng_state()
    >>> state.dtype, state.dim()
    (ember.uint8, 1)
    """
    return default_generator.get_state()


def set_rng_state(new_state):
    """set_rng_state(new_state) -> None

    Restores the default generator's state from a get_rng_state() tensor.

    >>> state = ember.get_rng_state()
    >>> a = ember.rand(2)
    >>> ember.set_rng_state(state)
    >>> ember.equal(a, ember.rand(2))
    True
    """
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    """Restores the default generator's state on exit: draws inside the block do not change
    the stream outside it. (There is no accelerator, so `devices` has nothing to fork.)"""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
