"""gradcheck/gradgradcheck (torch's arguments, GradcheckError), once_differentiable and the
grad_mode module of ember.autograd, against torch 2.13."""
import warnings

import numpy as np
import pytest
import torch

import ember


def _pair(a, requires_grad=True):
    return (torch.from_numpy(a.copy()).requires_grad_(requires_grad),
            ember.from_numpy(a.copy()).requires_grad_(requires_grad))


def _scaled(m, factor):
    """forward x * 2, backward g * factor: a wrong gradient unless factor is 2 (NaN for the
    anomaly tests)."""
    class Scaled(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * factor
    return Scaled


def test_gradcheck_and_gradgradcheck_agree_with_torch():
    x = np.random.default_rng(0).standard_normal((2, 3))
    fns = [lambda m, a: (a ** 3).sin(), lambda m, a: (a.exp() * a).sum(1),
           lambda m, a: (a @ a.t(), a.tanh()), lambda m, a: 2 * a]
    for fn in fns:
        for check in ("gradcheck", "gradgradcheck"):
            ta, ea = _pair(x)
            torch.manual_seed(0)
            ember.manual_seed(0)
            want = getattr(torch.autograd, check)(lambda a: fn(torch, a), (ta,))
            assert getattr(ember.autograd, check)(lambda a: fn(ember, a), (ea,)) is want is True


def test_gradcheck_failure_as_torch():
    x = np.array([0.5, -1.0])
    outs = []
    for m, a in zip((torch, ember), _pair(x)):
        fn = _scaled(m, 3).apply
        with pytest.raises(RuntimeError) as info:
            m.autograd.gradcheck(fn, (a,))
        assert type(info.value).__name__ == "GradcheckError"
        outs.append(str(info.value).split(",")[0])
        assert m.autograd.gradcheck(fn, (a,), raise_exception=False) is False
    assert outs[0] == outs[1] == "Jacobian mismatch for output 0 with respect to input 0"


def test_gradgradcheck_catches_a_wrong_second_derivative():
    class Cube(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x.detach() ** 2   # detached: first derivative right, second wrong
    x = ember.tensor([0.3, -0.7], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(Cube.apply, (x,))
    assert ember.autograd.gradgradcheck(Cube.apply, (x,), raise_exception=False) is False
    go = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradgradcheck(lambda a: a ** 3, (x,), (go,))


def test_gradcheck_bad_inputs_as_torch():
    for m in (torch, ember):
        with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
            m.autograd.gradcheck(lambda a: a * 2, (m.ones(2, dtype=m.float64),))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert m.autograd.gradcheck(lambda a: a * 2, (m.ones(2, requires_grad=True),),
                                        eps=1e-3, atol=1e-2, rtol=1e-2)
        assert any("Input #0 requires gradient and is not a double" in str(x.message) for x in w)


def test_once_differentiable_as_torch():
    results = []
    for m in (torch, ember):
        from_fn = (torch.autograd.function if m is torch else ember.autograd.function)

        class Square(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 2

            @staticmethod
            @from_fn.once_differentiable
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                assert not m.is_grad_enabled()
                return 2 * x * g
        x = m.tensor([1.0, -2.0], requires_grad=True)
        (g,) = m.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
        row = [g.requires_grad, g.tolist()]
        go = m.ones(2, requires_grad=True)
        (g,) = m.autograd.grad(Square.apply(x), x, go, create_graph=True)
        row.append(g.requires_grad)
        with pytest.raises(RuntimeError, match="differentiate twice a function that was marked "
                                               "with @once_differentiable"):
            g.sum().backward()
        results.append(row)
    assert results[0] == results[1] == [False, [2.0, -4.0], True]


def test_grad_mode_module():
    gm = ember.autograd.grad_mode
    assert set(torch.autograd.grad_mode.__all__) - {"enforce_grad_layout_policy"} <= set(dir(gm))
    with gm.no_grad():
        assert not ember.is_grad_enabled()
    for m in (torch, ember):
        assert m.autograd.is_multithreading_enabled()
        with m.autograd.set_multithreading_enabled(False):
            assert not m.autograd.is_multithreading_enabled()
        assert m.autograd.is_multithreading_enabled()


def test_detect_anomaly_names_the_node_as_torch():
    cases = [lambda m, x: (x / x).sum(), lambda m, x: (x.sqrt() * 0).sum(),
             lambda m, x: _scaled(m, float("nan")).apply(x).sum(), lambda m, x: (x * 3).sum()]
    for fn in cases:
        rows = []
        for m in (torch, ember):
            x = m.tensor([0.0, 1.0], requires_grad=True)
            with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
                ctx = m.autograd.detect_anomaly()
            with ctx, warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch also warns with the forward traceback
                try:
                    fn(m, x).backward()
                    rows.append(("ok", x.grad.tolist()))
                except RuntimeError as ex:
                    rows.append(("error", str(ex).splitlines()[0], x.grad))
        assert rows[0] == rows[1]
    assert not ember.autograd.anomaly_mode.is_anomaly_enabled()


def test_set_detect_anomaly_and_check_nan_flag():
    x = ember.tensor([0.0, 1.0], requires_grad=True)
    (x / x).sum().backward()  # off: NaN flows into .grad as torch
    assert np.isnan(x.grad.numpy()[0])
    with ember.autograd.set_detect_anomaly(True, check_nan=False):
        assert ember.autograd.anomaly_mode.is_anomaly_enabled()
        assert not ember.autograd.anomaly_mode.is_anomaly_check_nan_enabled()
        x.grad = None
        (x / x).sum().backward()
    assert not ember.autograd.anomaly_mode.is_anomaly_enabled()
    ember.autograd.set_detect_anomaly(True)
    try:
        x.grad = None
        with pytest.raises(RuntimeError, match="Function 'DivBackward0' returned nan values in "
                                               "its 1th output."):
            (x / x).sum().backward()
        assert x.grad is None  # raised before anything reached the leaf
    finally:
        ember.autograd.set_detect_anomaly(False)


def test_gradcheck_leaves_the_input_unchanged_when_fn_raises():
    x = ember.tensor([0.5, 2.0], dtype=ember.float64, requires_grad=True)
    calls = []

    def fn(a):
        calls.append(1)
        if len(calls) > 2:
            raise ValueError("fn failed")
        return a * 2
    with pytest.raises(ValueError, match="fn failed"):
        ember.autograd.gradcheck(fn, (x,))
    assert x.tolist() == [0.5, 2.0]
