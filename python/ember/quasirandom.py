"""torch.quasirandom: SobolEngine, Sobol' low-discrepancy sequences (BoTorch draws its
candidate points with it), with torch's points bit for bit when unscrambled.

Note [Sobol direction numbers]: a Sobol' sequence is fixed by its direction numbers. torch uses
Joe and Kuo's table for 21,201 dimensions (search criterion D(6)); so does SciPy, which ships it
as `scipy/stats/_sobol_direction_numbers.npz` (the primitive polynomials and the initial m_i).
ember reads that file from an installed SciPy (an optional dependency, `pip install scipy`)
rather than carry a copy of the table; SobolEngine raises ImportError naming it when SciPy is
absent. From the table, each dimension's direction numbers follow Joe and Kuo's recurrence
m_j = 2 a_1 m_{j-1} ^ 4 a_2 m_{j-2} ^ ... ^ 2^s m_{j-s} ^ m_{j-s} (s the polynomial's degree,
a_i its inner coefficients), and V_j = m_j 2^(30 - 1 - j). Point k is the XOR of the V_b over
the set bits b of k's Gray code (k ^ (k >> 1)), XOR the scrambling shift, over 2^30: the
order torch's engine produces them in, one XOR per point.

Scrambling (scramble=True) is Owen's linear matrix scramble plus a digital shift, as torch's:
random lower-triangular binary matrices (unit diagonal) multiply each dimension's direction
numbers' bits, and a random 30-bit shift is XORed in. The random bits come from ember's
generator, whose stream differs from torch's (docs/random.md), so scrambled points differ from
torch's for the same seed; they keep the net's balance (each of 2^m points of draw_base2 in its
own interval of width 2^-m in every dimension)."""
import importlib.util
import os

from ._lazy_numpy import np

__all__ = ["SobolEngine"]

_TABLE = None


def _table():
    """(poly, vinit) of Joe and Kuo's table, read once from SciPy's copy."""
    global _TABLE
    if _TABLE is None:
        spec = importlib.util.find_spec("scipy")
        path = spec and spec.submodule_search_locations and os.path.join(
            spec.submodule_search_locations[0], "stats", "_sobol_direction_numbers.npz")
        if not path or not os.path.exists(path):
            raise ImportError("SobolEngine: ember reads Joe and Kuo's direction numbers from "
                              "SciPy's copy (scipy/stats/_sobol_direction_numbers.npz); install "
                              "scipy (pip install scipy)")
        with np.load(path) as f:
            _TABLE = (f["poly"], f["vinit"])
    return _TABLE


def _direction_numbers(dimension, bits):
    """V (dimension, bits), int64: V[d, j] = m_j 2^(bits - 1 - j) (Note [Sobol direction
    numbers]); the recurrence runs over all dimensions of one degree at once."""
    poly, vinit = _table()
    poly = poly[:dimension].astype(np.int64)
    m = np.zeros((dimension, bits), dtype=np.int64)
    m[0] = 1  # the first dimension: the van der Corput sequence
    degree = np.array([int(p).bit_length() - 1 for p in poly])
    for s in np.unique(degree[1:]):
        rows = np.nonzero(degree == s)[0]
        rows = rows[rows > 0]
        ms = m[rows]
        ms[:, :s] = vinit[rows, :s]
        inner = [((poly[rows] >> (s - i)) & 1).astype(bool) for i in range(1, s)]
        for j in range(s, bits):
            v = ms[:, j - s] ^ (ms[:, j - s] << s)
            for i, a in enumerate(inner, start=1):
                v = np.where(a, v ^ (ms[:, j - i] << i), v)
            ms[:, j] = v
        m[rows] = ms
    return m << (bits - 1 - np.arange(bits, dtype=np.int64))


class SobolEngine:
    r"""An engine for (scrambled) Sobol' sequences of up to 21201 dimensions, with Joe and Kuo's
    direction numbers (search criterion D(6)), as torch.quasirandom.SobolEngine: unscrambled
    points equal torch's. Needs SciPy installed (Note [Sobol direction numbers]).

    Args:
        dimension (int): the dimension of the points.
        scramble (bool): Owen's linear matrix scramble plus a digital shift. Default: False.
        seed (int, optional): seed of the scrambling's random bits (ember's generator: the
            points differ from torch's for the same seed).

    >>> eng = ember.quasirandom.SobolEngine(dimension=3)
    >>> eng.draw(4)
    tensor([[0.0000, 0.0000, 0.0000],
            [0.5000, 0.5000, 0.5000],
            [0.7500, 0.2500, 0.2500],
            [0.2500, 0.7500, 0.7500]])
    """

    MAXBIT = 30
    MAXDIM = 21201

    def __init__(self, dimension, scramble=False, seed=None):
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError(f"Supported range of dimensionality for SobolEngine is "
                             f"[1, {self.MAXDIM}]")
        from . import from_numpy as _from_numpy
        self.seed, self.scramble, self.dimension = seed, scramble, dimension
        self._v = _direction_numbers(dimension, self.MAXBIT)
        self._shift = np.zeros(dimension, dtype=np.int64)
        if scramble:
            self._scramble()
        self.sobolstate = _from_numpy(self._v.copy())
        self.shift = _from_numpy(self._shift.copy())
        self.quasi = self.shift.clone()
        self._first_point = (self.quasi / 2 ** self.MAXBIT).reshape(1, -1)
        self.num_generated = 0

    def _scramble(self):
        from . import randint
        from ._generator import Generator
        g = None
        if self.seed is not None:
            g = Generator()
            g.manual_seed(self.seed)
        d, b = self.dimension, self.MAXBIT
        shift_bits = randint(2, (d, b), generator=g).numpy()
        self._shift = (shift_bits << np.arange(b, dtype=np.int64)).sum(axis=1)
        # lower-triangular with a unit diagonal: nonsingular, so the scramble keeps the net
        ltm = np.tril(randint(2, (d, b, b), generator=g).numpy())
        ltm[:, np.arange(b), np.arange(b)] = 1
        # bit k (from the top, 2^(b-1-k)) of every direction number, then L times those bits
        top = b - 1 - np.arange(b, dtype=np.int64)
        vbits = (self._v[:, :, None] >> top[None, None, :]) & 1        # (d, j, k)
        new_bits = np.einsum("dlk,djk->djl", ltm, vbits) & 1            # (d, j, l)
        self._v = (new_bits << top[None, None, :]).sum(axis=2)

    def _points(self, start, n):
        """Points start .. start + n - 1 as integers (n, dimension), and the last one."""
        k = np.arange(start, start + n, dtype=np.int64)
        gray = k ^ (k >> 1)
        acc = np.broadcast_to(self._shift, (n, self.dimension)).copy()
        for bit in range(self.MAXBIT):
            on = ((gray >> bit) & 1).astype(bool)
            if on.any():
                acc[on] ^= self._v[:, bit]
        return acc

    def draw(self, n=1, out=None, dtype=None):
        """The next n points, (n, dimension), of dtype (default: the default dtype); into
        `out` when given."""
        from . import from_numpy as _from_numpy, get_default_dtype
        dtype = get_default_dtype() if dtype is None else dtype
        pts = self._points(self.num_generated, n)
        result = (_from_numpy(pts).double() / 2 ** self.MAXBIT).to(dtype)
        if n > 0:
            self.quasi = _from_numpy(pts[-1].copy())
        self.num_generated += n
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw_base2(self, m, out=None, dtype=None):
        """The next 2**m points; the total drawn must stay a power of 2 (the net's balance)."""
        n = 2 ** m
        total_n = self.num_generated + n
        if total_n & (total_n - 1) != 0:
            raise ValueError(
                "The balance properties of Sobol' points require n to be a power of 2. "
                f"{self.num_generated} points have been previously generated, then: "
                f"n={self.num_generated}+2**{m}={total_n}. If you still want to do this, please "
                "use 'SobolEngine.draw()' instead.")
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self):
        """Back to the first point."""
        self.quasi.copy_(self.shift)
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        """Skips n points, as drawing them would."""
        from . import from_numpy as _from_numpy
        if n > 0:
            self.quasi = _from_numpy(self._points(self.num_generated + n - 1, 1)[0].copy())
        self.num_generated += n
        return self

    def __repr__(self):
        parts = [f"dimension={self.dimension}"]
        if self.scramble:
            parts.append("scramble=True")
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        return f"{type(self).__name__}({', '.join(parts)})"
