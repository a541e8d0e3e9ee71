"""The shuffle switch and seed shared by the iterable and the map-style Shuffler."""
import random


class _SeededShuffle:
    """set_shuffle / set_seed, and a reseed per iteration: the seed set_seed gave (once), else
    one drawn from ember's global RNG, so DataLoader workers and manual_seed reproduce."""

    def _init_shuffle(self):
        self._enabled = True
        self._seed = None
        self._rng = random.Random()

    def set_shuffle(self, shuffle=True):
        self._enabled = shuffle
        return self

    def set_seed(self, seed):
        self._seed = seed
        return self

    def _reseed(self):
        if self._enabled:
            if self._seed is None:  # drawn from ember's generator, as torch's
                from ...._creation import empty
                from ...._dtype import int64
                self._seed = int(empty((), dtype=int64).random_().item())
            self._rng.seed(self._seed)
            self._seed = None

    # The generator pickles as its state (DataLoader workers get a copy of the pipe).
    def __getstate__(self):
        state = dict(self.__dict__)
        state["_rng"] = self._rng.getstate()
        return state

    def __setstate__(self, state):
        rng_state = state.pop("_rng")
        self.__dict__.update(state)
        self._rng = random.Random()
        self._rng.setstate(rng_state)
