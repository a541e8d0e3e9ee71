"""tril_indices, triu_indices, vander, logspace (python/ember/_index_grids.py) against
PyTorch 2.13: values and dtypes, vander's gradient (exact at 0), bad inputs."""
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_op, gradcheck_op


@pytest.mark.parametrize("args", [(3, 4), (4, 3, 1), (3, 3, -1), (0, 3), (5, 2, -10), (2, 5, 9)])
def test_triangle_indices(args):
    for name in ("tril_indices", "triu_indices"):
        assert_same(getattr(ember, name)(*args), getattr(torch, name)(*args))
    assert_same(ember.tril_indices(3, 3, dtype=ember.int32), torch.tril_indices(3, 3, dtype=torch.int32))


def test_vander():
    for fn in (lambda m, x: m.vander(x), lambda m, x: m.vander(x, 5, increasing=True),
               lambda m, x: m.vander(x, 0)):
        check_op(fn, [(4,)], dtypes=["int32", "int64", "float32", "float64"], layouts=LAYOUTS)
    # torch 2.13's own vander backward fails (an in-place op on a saved tensor): finite
    # differences are the reference here, including x == 0.
    gradcheck_op(lambda m, x: m.vander(x), [(4,)])
    gradcheck_op(lambda m, x: m.vander(x * m.tensor([0.0, 1.0, 1.0]), 4, True), [(3,)])


@pytest.mark.parametrize("kwargs", [dict(), dict(base=2.0), dict(dtype="float64"),
                                    dict(dtype="int64")])
def test_logspace(kwargs):
    for start, end, steps in ((0, 2, 3), (-1, 1.5, 7), (1, 1, 1), (0, 3, 0)):
        ek = {k: getattr(ember, v) if k == "dtype" else v for k, v in kwargs.items()}
        tk = {k: getattr(torch, v) if k == "dtype" else v for k, v in kwargs.items()}
        assert_same(ember.logspace(start, end, steps, **ek), torch.logspace(start, end, steps, **tk))


def test_bad_inputs():
    with pytest.raises(RuntimeError, match="tril_indices"):
        ember.tril_indices(-1, 3)
    with pytest.raises(TypeError, match="triu_indices"):
        ember.triu_indices(2.5, 3)
    with pytest.raises(RuntimeError, match="vander"):
        ember.vander(ember.ones(2, 2))
    with pytest.raises(RuntimeError, match="logspace"):
        ember.logspace(0, 1, -1)
    for call in (lambda m: m.tril_indices(-1, 3), lambda m: m.vander(m.ones(2, 2)),
                 lambda m: m.logspace(0, 1, -1)):
        with pytest.raises(RuntimeError):
            call(torch)
