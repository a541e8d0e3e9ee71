"""What the optimizer tests (test_optim.py, test_optim_python.py) share: the same optimizer
over the same parameters in ember and torch (OptimPair), stepped with the same gradients and
compared parameter by parameter and state entry by state entry."""
import numpy as np
import pytest
import torch

import ember
import ember.optim
from helpers import NP, _base_and_view, to_numpy


def leaf(lib, arr, layout="contiguous"):
    """A leaf that requires grad, with `arr`'s values, laid out as `layout`."""
    base, view = _base_and_view(arr.shape, layout)
    if layout == "transposed" and arr.ndim >= 2:
        src = np.ascontiguousarray(np.transpose(arr))
    elif layout == "sliced" and arr.ndim >= 1:
        src = np.zeros(base, arr.dtype)
        src[..., 0::2] = arr
    else:
        src = arr.copy()
    return view(lib.from_numpy(src)).detach().requires_grad_()


def grad_tensor(lib, arr, layout="contiguous"):
    """A gradient with `arr`'s values; "expanded" broadcasts its first row (stride 0)."""
    if layout == "expanded" and arr.ndim >= 1 and arr.shape[0] != 1:
        return lib.from_numpy(np.ascontiguousarray(arr[:1])).expand(*arr.shape)
    return leaf(lib, arr, layout).detach()


def random_arrays(shapes, dtype, rng, scale=1.0):
    return [np.asarray(rng.standard_normal(s) * scale, dtype=NP[dtype]) for s in shapes]


def check_same(eparams, tparams, eo, to, tol):
    """Same parameters, and the same state: keys (in torch's order), dtypes, shapes, values."""
    for i, (e, t) in enumerate(zip(eparams, tparams)):
        np.testing.assert_allclose(to_numpy(e), to_numpy(t), err_msg=f"param {i}", **tol)
        es, ts = eo.state.get(e, {}), to.state.get(t, {})
        assert list(es) == list(ts), f"param {i}: state keys {list(es)} != {list(ts)}"
        for k, v in ts.items():
            assert str(es[k].dtype) == str(v.dtype).replace("torch.", "ember."), (i, k)
            assert tuple(es[k].shape) == tuple(v.shape), (i, k)
            np.testing.assert_allclose(to_numpy(es[k]), to_numpy(v),
                                       err_msg=f"param {i} state {k}", **tol)


class OptimPair:
    """The same optimizer over the same parameters in ember and torch. `tol` maps a dtype to
    check()'s tolerances (a test file sets its own in a subclass)."""

    tol = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-10, atol=1e-12)}

    def __init__(self, name, kwargs, arrays, layout="contiguous", groups=None):
        self.ep = [leaf(ember, a, layout) for a in arrays]
        self.tp = [leaf(torch, a, layout) for a in arrays]
        self.layout = layout
        eparams, tparams = self.ep, self.tp
        if groups:  # list of (indices, extra options)
            eparams = [dict(params=[self.ep[i] for i in idx], **kw) for idx, kw in groups]
            tparams = [dict(params=[self.tp[i] for i in idx], **kw) for idx, kw in groups]
        self.eo = getattr(ember.optim, name)(eparams, **kwargs)
        self.to = getattr(torch.optim, name)(tparams, **kwargs)

    def add_param_group(self, arr, **options):
        """One more group in both optimizers: a new parameter with `arr`'s values."""
        e, t = leaf(ember, arr), leaf(torch, arr)
        self.eo.add_param_group(dict(params=e, **options))
        self.to.add_param_group(dict(params=t, **options))
        self.ep.append(e)
        self.tp.append(t)

    def set_grads(self, grads, layout=None):
        for e, t, g in zip(self.ep, self.tp, grads):
            if g is None:
                e.grad = t.grad = None
            else:
                e.grad = grad_tensor(ember, g, layout or self.layout)
                t.grad = grad_tensor(torch, g, layout or self.layout)

    def step(self):
        self.eo.step()
        self.to.step()

    def check(self, dtype, **tolerance):
        check_same(self.ep, self.tp, self.eo, self.to, dict(self.tol[dtype], **tolerance))


def run_steps(pair, grad_lists, dtype, none_at=None):
    """One step a list of gradients, both libraries compared after each."""
    for k, grads in enumerate(grad_lists):
        if k == none_at:
            grads[0] = None  # a parameter without a grad is skipped (its state too)
        pair.set_grads(grads)
        pair.step()
        pair.check(dtype)


def state_dict_round_trip(cls, kwargs, arrays, grad_lists, **reload_kwargs):
    """Runs the steps straight through, and again split in half by a state_dict saved and
    loaded into a fresh optimizer (built with kwargs updated by reload_kwargs: the loaded
    groups restore the options). The parameters must end equal and the saved dict unchanged;
    returns (straight optimizer, its parameters, reloaded optimizer, its parameters)."""
    def run(opt, params, steps):
        for grads in steps:
            for p, g in zip(params, grads):
                p.grad = ember.from_numpy(g.copy())
            opt.step()

    half = len(grad_lists) // 2
    straight = [leaf(ember, a) for a in arrays]
    opt0 = cls(straight, **kwargs)
    run(opt0, straight, grad_lists)
    first = [leaf(ember, a) for a in arrays]
    opt1 = cls(first, **kwargs)
    run(opt1, first, grad_lists[:half])
    sd = opt1.state_dict()
    saved = {k: to_numpy(v) for k, v in sd["state"][0].items()}
    second = [leaf(ember, to_numpy(p)) for p in first]
    opt2 = cls(second, **dict(kwargs, **reload_kwargs))
    opt2.load_state_dict(sd)
    run(opt2, second, grad_lists[half:])
    for a, b in zip(straight, second):
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
    for k, v in sd["state"][0].items():  # the loaded state was a copy: the dict is unchanged
        np.testing.assert_array_equal(to_numpy(v), saved[k])
    return opt0, straight, opt2, second


def check_rejected_like_torch(name, kwargs, match):
    """ember's optimizer `name` and torch's (the oracle) both refuse kwargs: ValueError(match)."""
    with pytest.raises(ValueError, match=match):
        getattr(ember.optim, name)([ember.zeros(2, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError, match=match):
        getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], **kwargs)


def check_bad_params(cls):
    """The params argument's errors every optimizer raises as torch does."""
    p = ember.zeros(2, requires_grad=True)
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts"):
        cls(p)
    with pytest.raises(ValueError, match="empty parameter list"):
        cls([])
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        cls([p * 2])
