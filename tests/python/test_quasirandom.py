"""ember.quasirandom.SobolEngine against torch 2.13's: unscrambled points bit for bit (every
draw size, fast_forward, reset, draw_base2, out=, dtypes, up to 21201 dimensions), the direction
numbers themselves; scrambled points (ember's random bits: not torch's) keep the net's balance
and repeat for a seed; bad arguments raise as torch's."""
import numpy as np
import pytest
import torch

import ember


def same(e, t):
    assert e.dtype == getattr(ember, str(t.dtype).split(".")[1])
    np.testing.assert_array_equal(e.numpy(), t.numpy())


@pytest.mark.parametrize("dim", [1, 2, 7, 40, 1111, 21201])
def test_unscrambled_points_equal_torch(dim):
    e, t = ember.quasirandom.SobolEngine(dim), torch.quasirandom.SobolEngine(dim)
    same(e.sobolstate, t.sobolstate)
    for n in (1, 2, 5, 64, 1):
        same(e.draw(n), t.draw(n))
    same(e.quasi, t.quasi)
    e.fast_forward(13), t.fast_forward(13)
    same(e.draw(3, dtype=ember.float64), t.draw(3, dtype=torch.float64))
    same(e.quasi, t.quasi)
    e.reset(), t.reset()
    assert e.num_generated == t.num_generated == 0
    same(e.draw_base2(4), t.draw_base2(4))
    e.fast_forward(16), t.fast_forward(16)
    same(e.draw_base2(5), t.draw_base2(5))
    assert repr(e) == repr(t)


def test_first_draw_fast_forward_and_out_as_torch():
    e, t = ember.quasirandom.SobolEngine(3), torch.quasirandom.SobolEngine(3)
    e.fast_forward(5), t.fast_forward(5)
    same(e.draw(4), t.draw(4))
    eo, to = ember.empty(0), torch.empty(0)
    assert e.draw(6, out=eo) is eo and t.draw(6, out=to) is to
    same(eo, to)
    old = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    try:
        assert e.draw(2).dtype == ember.float64  # the default dtype, as torch
    finally:
        ember.set_default_dtype(old)


def test_scrambled_points_keep_the_balance_and_repeat_for_a_seed():
    a = ember.quasirandom.SobolEngine(6, scramble=True, seed=7)
    x = a.draw_base2(7).numpy()
    assert x.shape == (128, 6) and 0 <= x.min() and x.max() < 1
    for j in range(6):  # one point in each interval [k/128, (k+1)/128)
        assert sorted((x[:, j] * 128).astype(int)) == list(range(128))
    assert not np.array_equal(x, ember.quasirandom.SobolEngine(6).draw(128).numpy())
    np.testing.assert_array_equal(ember.quasirandom.SobolEngine(6, scramble=True, seed=7).draw(128).numpy(), x)
    assert not np.array_equal(ember.quasirandom.SobolEngine(6, scramble=True, seed=8).draw(128).numpy(), x)
    assert repr(a) == repr(torch.quasirandom.SobolEngine(6, scramble=True, seed=7))
    a.reset()
    np.testing.assert_array_equal(a.draw(128).numpy(), x)


def test_bad_arguments_raise_as_torch():
    for lib in (ember, torch):
        for dim in (0, 21202):
            with pytest.raises(ValueError, match=r"Supported range of dimensionality for SobolEngine is \[1, 21201\]"):
                lib.quasirandom.SobolEngine(dim)
        eng = lib.quasirandom.SobolEngine(2)
        eng.draw(3)
        with pytest.raises(ValueError, match="require n to be a power of 2. 3 points have been previously generated"):
            eng.draw_base2(2)


def test_without_scipy_the_engine_says_what_to_install(monkeypatch):
    import importlib.util
    import ember.quasirandom as q
    monkeypatch.setattr(q, "_TABLE", None)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "scipy" else real(name, *a))
    with pytest.raises(ImportError, match="install scipy"):
        q.SobolEngine(3)
