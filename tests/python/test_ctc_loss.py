"""F.ctc_loss / torch.ctc_loss / nn.CTCLoss against torch 2.13: padded and concatenated
targets, lengths as tensors and lists, every reduction, zero_infinity, unbatched input,
gradients (through log_softmax, as CTC is used) and a float64 gradcheck, and errors."""
import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from helpers import to_numpy

T, N, C, S = 12, 3, 5, 4


def _data(seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((T, N, C)).astype(dtype)
    targets = rng.integers(1, C, size=(N, S))
    il = [12, 10, 7]
    tl = [4, 2, 0]
    return logits, targets, il, tl


def _both(logits, targets, il, tl, fn_e, fn_t):
    ex = ember.from_numpy(logits.copy()).requires_grad_()
    tx = torch.from_numpy(logits.copy()).requires_grad_()
    el = fn_e(ex.log_softmax(2), ember.from_numpy(targets.copy()), il, tl)
    tlo = fn_t(tx.log_softmax(2), torch.from_numpy(targets.copy()), il, tl)
    return ex, tx, el, tlo


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("layout", ["padded", "concatenated"])
def test_ctc_loss_matches_torch(reduction, layout):
    logits, targets, il, tl = _data()
    if layout == "concatenated":
        targets = np.concatenate([targets[b, :tl[b]] for b in range(N)])
    ex, tx, el, tlo = _both(logits, targets, il, tl,
                            lambda a, b, c, d: F.ctc_loss(a, b, c, d, reduction=reduction),
                            lambda a, b, c, d: torch.nn.functional.ctc_loss(
                                a, b, c, d, reduction=reduction))
    np.testing.assert_allclose(to_numpy(el), to_numpy(tlo), rtol=1e-10, atol=1e-10)
    el.sum().backward()
    tlo.sum().backward()
    np.testing.assert_allclose(to_numpy(ex.grad), to_numpy(tx.grad), rtol=1e-9, atol=1e-10)


def test_ctc_loss_raw_log_probs_gradient_is_torchs():
    # torch's backward formula (exp(lp) - ...) also applies to log_probs fed directly
    logits, targets, il, tl = _data(1)
    lp = torch.from_numpy(logits).log_softmax(2).numpy()
    e = ember.from_numpy(lp.copy()).requires_grad_()
    t = torch.from_numpy(lp.copy()).requires_grad_()
    F.ctc_loss(e, ember.from_numpy(targets), ember.tensor(il), ember.tensor(tl)).backward()
    torch.nn.functional.ctc_loss(t, torch.from_numpy(targets), torch.tensor(il),
                                 torch.tensor(tl)).backward()
    np.testing.assert_allclose(to_numpy(e.grad), to_numpy(t.grad), rtol=1e-9, atol=1e-10)


def test_ctc_loss_float32_blank_and_module():
    logits, targets, il, tl = _data(2, np.float32)
    targets = np.where(targets == 3, 0, targets)  # blank=3: targets avoid it
    mod_e = ember.nn.CTCLoss(blank=3, reduction="sum")
    mod_t = torch.nn.CTCLoss(blank=3, reduction="sum")
    ex, tx, el, tlo = _both(logits, targets, il, tl, mod_e, mod_t)
    np.testing.assert_allclose(to_numpy(el), to_numpy(tlo), rtol=1e-5)
    el.backward()
    tlo.backward()
    np.testing.assert_allclose(to_numpy(ex.grad), to_numpy(tx.grad), rtol=1e-4, atol=1e-5)


def test_ctc_loss_zero_infinity_and_impossible_alignment():
    logits, targets, _, _ = _data(3)
    il, tl = [2, 12, 12], [4, 4, 1]  # 4 labels cannot fit in 2 frames: infinite loss
    for zi in (False, True):
        ex, tx, el, tlo = _both(logits, targets, il, tl,
                                lambda a, b, c, d: F.ctc_loss(a, b, c, d, reduction="none",
                                                              zero_infinity=zi),
                                lambda a, b, c, d: torch.nn.functional.ctc_loss(
                                    a, b, c, d, reduction="none", zero_infinity=zi))
        np.testing.assert_allclose(to_numpy(el), to_numpy(tlo), rtol=1e-10)
        if zi:
            el.sum().backward()
            tlo.sum().backward()
            np.testing.assert_allclose(to_numpy(ex.grad), to_numpy(tx.grad), rtol=1e-9,
                                       atol=1e-10)


def test_ctc_loss_unbatched_and_aten_form():
    rng = np.random.default_rng(4)
    lp = torch.from_numpy(rng.standard_normal((6, C))).log_softmax(1)
    tg = np.array([1, 2, 2])
    e = F.ctc_loss(ember.from_numpy(lp.numpy()), ember.from_numpy(tg), 6, 3, reduction="none")
    t = torch.nn.functional.ctc_loss(lp, torch.from_numpy(tg), torch.tensor(6), torch.tensor(3),
                                     reduction="none")
    np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=1e-10)
    logits, targets, il, tl = _data(5)
    lpb = torch.from_numpy(logits).log_softmax(2)
    for red in (0, 1, 2):
        e = ember.ctc_loss(ember.from_numpy(lpb.numpy()), ember.from_numpy(targets), il, tl, 0,
                           red, False)
        t = torch.ctc_loss(lpb, torch.from_numpy(targets), il, tl, 0, red, False)
        np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=1e-10)


def test_ctc_loss_gradcheck_float64():
    rng = np.random.default_rng(6)
    x = ember.from_numpy(rng.standard_normal((5, 2, 4))).requires_grad_()
    tg = ember.from_numpy(np.array([[1, 2], [3, 3]]))
    assert ember.autograd.gradcheck(
        lambda a: F.ctc_loss(a.log_softmax(2), tg, [5, 4], [2, 2], reduction="none"), (x,),
        eps=1e-6, atol=1e-6)


def test_ctc_loss_bad_inputs():
    lp = ember.zeros(T, N, C).log_softmax(2)
    tg = ember.ones(N, S, dtype=ember.int64)
    with pytest.raises(RuntimeError, match=r"ctc_loss.*input_lengths.*at most 12"):
        F.ctc_loss(lp, tg, [13, 1, 1], [1, 1, 1])
    with pytest.raises(RuntimeError, match=r"ctc_loss: blank must be in label range"):
        F.ctc_loss(lp, tg, [1, 1, 1], [1, 1, 1], blank=C)
    with pytest.raises(RuntimeError, match=r"ctc_loss: input_lengths must be of size batch"):
        F.ctc_loss(lp, tg, [1, 1], [1, 1, 1])
    with pytest.raises(RuntimeError, match=r"ctc_loss.*targets to have size at least 5"):
        F.ctc_loss(lp, tg, [1, 1, 1], [5, 1, 1])
    with pytest.raises(IndexError, match=r"ctc_loss: target 7"):
        F.ctc_loss(lp, ember.full((N, S), 7, dtype=ember.int64), [3, 3, 3], [1, 1, 1])
    with pytest.raises(RuntimeError, match=r"ctc_loss.*integer targets"):
        F.ctc_loss(lp, tg.double(), [1, 1, 1], [1, 1, 1])
    with pytest.raises(ValueError, match="reduction"):
        F.ctc_loss(lp, tg, [1, 1, 1], [1, 1, 1], reduction="avg")


def test_ctc_loss_double_backward_raises_as_torch():
    lp = ember.randn(5, 2, 4, dtype=ember.float64).log_softmax(2).detach().requires_grad_()
    loss = F.ctc_loss(lp, ember.tensor([[1, 2], [3, 3]]), [5, 4], [2, 2])
    g, = ember.autograd.grad(loss, lp, create_graph=True)
    with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward"):
        ember.autograd.grad(g.sum(), lp)
