"""FlopCounterMode (ember.utils.flop_counter) beside torch's on the same forward calls: the
total, the per-op counts and the per-module counts are equal (backward is not counted by
ember's: see the module)."""
import numpy as np
import torch

import ember


def _program(lib):
    from_np = lambda a: lib.tensor(a)  # noqa: E731
    rng = np.random.default_rng(0)
    r = lambda *s: from_np(rng.standard_normal(s).astype(np.float32))  # noqa: E731
    m = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(),
                          lib.nn.Sequential(lib.nn.Linear(16, 4, bias=False)))
    with lib.no_grad(), lib.utils.flop_counter.FlopCounterMode(display=False) as fc:
        m(r(3, 8))
        r(3, 8) @ r(8, 5)
        lib.bmm(r(2, 3, 4), r(2, 4, 5))
        lib.nn.functional.conv2d(r(1, 2, 5, 5), r(3, 2, 3, 3), padding=1)
        lib.nn.functional.conv_transpose2d(r(1, 2, 4, 4), r(2, 3, 3, 3), stride=2)
        lib.nn.functional.scaled_dot_product_attention(r(2, 3, 5, 4), r(2, 3, 6, 4), r(2, 3, 6, 7))
        lib.mm(r(3, 4), r(4, 2))
        lib.addmm(r(2), r(3, 4), r(4, 2))
        lib.relu(r(4))  # not counted
    return fc


def test_counts_like_torch():
    import torch.utils.flop_counter  # noqa: F401
    import ember.utils.flop_counter  # noqa: F401
    e, t = _program(ember), _program(torch)
    assert e.get_total_flops() == t.get_total_flops()
    ec = {k: dict(v) for k, v in e.get_flop_counts().items()}
    tc = {k: {str(op): n for op, n in v.items()} for k, v in t.get_flop_counts().items()}
    assert ec == tc


def test_table_and_display(capsys):
    import ember.utils.flop_counter as fcm
    with fcm.FlopCounterMode(display=True, depth=1):
        ember.nn.Linear(4, 2)(ember.ones(5, 4))
    out = capsys.readouterr().out
    assert "Global" in out and "Linear" in out and "80" in out
