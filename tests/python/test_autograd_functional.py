"""ember.autograd.functional against torch.autograd.functional 2.13: values, gradients through
create_graph, output structure (tensor / tuple / nested tuple / torch's lists in forward mode),
strict mode and bad-input errors."""
import numpy as np
import pytest
import torch
import torch.autograd.functional as TF

import ember
import ember.autograd.functional as EF


def _lib(x, m):
    if isinstance(x, tuple):
        return tuple(_lib(i, m) for i in x)
    return torch.from_numpy(x.copy()) if m is torch else ember.from_numpy(x.copy())


def _same(want, got, rtol=1e-6, check_requires_grad=True):
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want)
        for w, g in zip(want, got):
            _same(w, g, rtol, check_requires_grad)
        return
    assert isinstance(got, ember.Tensor) and tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    # torch's forward-mode hessian leaves its inner graph attached; ember's results are detached
    assert got.requires_grad == want.requires_grad or not check_requires_grad
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol, atol=1e-7)


def _outcome(fn, *a, **k):
    try:
        fn(*a, **k)
        return None
    except Exception as ex:  # noqa: BLE001 - the type and message are compared with torch's
        return type(ex).__name__, str(ex).replace("torch.", "ember.").replace(
            "ember.Size", "Size").replace("ember._C.Tensor", "ember.Tensor")


# functions written once for both libraries (m is the module)
VEC = lambda m: lambda x: (x.sin() * x).exp() @ m.ones(3, 2, dtype=x.dtype)  # noqa: E731
PAIR = lambda m: lambda x, y: ((x * y).sum() * x, y.exp())  # noqa: E731
MAT = lambda m: lambda x: x.t() @ x  # noqa: E731
SCALAR = lambda m: lambda x: (x ** 3).sum() + x.prod()  # noqa: E731
SCALAR2 = lambda m: lambda x, y: (  # noqa: E731
    (x.sin() * y.sum()).sum() + (x * x).sum() * y.exp().sum())
LINEAR = lambda m: lambda x: 2 * x  # noqa: E731


def _data(seed, *shapes, dtype="float64"):
    rng = np.random.default_rng(seed)
    arrays = tuple(rng.standard_normal(s).astype(dtype) for s in shapes)
    return arrays[0] if len(arrays) == 1 else arrays


JAC_CASES = [(VEC, (3,)), (PAIR, ((3,), (3,))), (MAT, ((2, 3),)), (VEC, ((), )),
             (SCALAR, ((2, 2),))]
KWARGS = [{}, {"vectorize": True}, {"create_graph": True},
          {"vectorize": True, "strategy": "forward-mode"}]


@pytest.mark.parametrize("case", range(len(JAC_CASES)))
@pytest.mark.parametrize("kw", KWARGS, ids=str)
def test_jacobian(case, kw):
    fn, shapes = JAC_CASES[case]
    if fn is VEC and shapes == ((),):
        fn = LINEAR
    x = _data(case, *([shapes] if isinstance(shapes[0], int) else shapes))
    want = TF.jacobian(fn(torch), _lib(x, torch), **kw)
    got = EF.jacobian(fn(ember), _lib(x, ember), **kw)
    _same(want, got)


@pytest.mark.parametrize("fn,shapes", [(SCALAR, [(3,)]), (SCALAR2, [(3,), (2,)]),
                                       (SCALAR, [()])], ids=["single", "tuple", "0d"])
@pytest.mark.parametrize("kw", [{}, {"create_graph": True},
                                {"vectorize": True, "outer_jacobian_strategy": "forward-mode"}],
                         ids=str)
def test_hessian(fn, shapes, kw):
    x = _data(1, *shapes)
    if len(shapes) == 2:
        x = tuple(x)
    _same(TF.hessian(fn(torch), _lib(x, torch), **kw), EF.hessian(fn(ember), _lib(x, ember), **kw),
          check_requires_grad="outer_jacobian_strategy" not in kw)


@pytest.mark.parametrize("name,fn,shapes,vshapes", [
    ("vjp", VEC, [(3,)], [(2,)]), ("jvp", VEC, [(3,)], [(3,)]),
    ("vjp", PAIR, [(3,), (3,)], [(3,), (3,)]), ("jvp", PAIR, [(3,), (3,)], [(3,), (3,)]),
    ("vhp", SCALAR, [(3,)], [(3,)]), ("hvp", SCALAR, [(3,)], [(3,)]),
    ("vhp", SCALAR2, [(3,), (2,)], [(3,), (2,)]), ("hvp", SCALAR2, [(3,), (2,)], [(3,), (2,)]),
    ("vjp", SCALAR, [(2, 2)], None), ("jvp", LINEAR, [()], None), ("hvp", SCALAR, [()], None)])
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_products(name, fn, shapes, vshapes, create_graph, dtype):
    x = _data(2, *shapes, dtype=dtype)
    v = None if vshapes is None else _data(3, *vshapes, dtype=dtype)
    if len(shapes) == 2:
        x, v = tuple(x), tuple(v)
    want = getattr(TF, name)(fn(torch), _lib(x, torch), None if v is None else _lib(v, torch),
                             create_graph=create_graph)
    got = getattr(EF, name)(fn(ember), _lib(x, ember), None if v is None else _lib(v, ember),
                            create_graph=create_graph)
    _same(want, got, rtol=1e-5 if dtype == "float32" else 1e-6)


def test_create_graph_gradients_flow_to_inputs():
    x = _data(4, (3,))
    tx, ex = _lib(x, torch).requires_grad_(), _lib(x, ember).requires_grad_()
    for name in ("jacobian", "hessian"):
        fn = SCALAR
        tj = getattr(TF, name)(fn(torch), tx, create_graph=True)
        ej = getattr(EF, name)(fn(ember), ex, create_graph=True)
        (tg,) = torch.autograd.grad(tj.sum(), tx)
        (eg,) = ember.autograd.grad(ej.sum(), ex)
        np.testing.assert_allclose(eg.numpy(), tg.numpy(), rtol=1e-6)
    _, th = TF.hvp(SCALAR(torch), tx, torch.ones(3, dtype=torch.float64), create_graph=True)
    _, eh = EF.hvp(SCALAR(ember), ex, ember.ones(3, dtype=ember.float64), create_graph=True)
    np.testing.assert_allclose(ember.autograd.grad(eh.sum(), ex)[0].numpy(),
                               torch.autograd.grad(th.sum(), tx)[0].numpy(), rtol=1e-6)
    assert ex.grad is None  # the functional API never accumulates into .grad


def test_independent_inputs_zero_or_strict_error():
    x = _data(5, (3,), (2,))
    fn = lambda m: lambda a, b: a * 2  # noqa: E731  (b unused; linear in a)
    for name, args in [("jacobian", ()), ("vjp", ("v",)), ("jvp", ("v",)), ("hessian", ()),
                       ("vhp", ("v2",)), ("hvp", ("v2",))]:
        f = SCALAR2 if name in ("vhp", "hvp") else fn
        if name == "hessian":
            f = lambda m: lambda a, b: (a * a).sum()  # noqa: E731
        for strict in (False, True):
            outs = []
            for m, F in ((torch, TF), (ember, EF)):
                extra = [] if not args else [_lib(x if args[0] == "v2" or name == "jvp"
                                                  else (x[0], ), m)]
                if name == "vjp":
                    extra = [_lib(x[0], m)]
                outs.append(_outcome(getattr(F, name), f(m), _lib(x, m), *extra, strict=strict))
                if not strict:
                    res = getattr(F, name)(f(m), _lib(x, m), *extra)
                    if m is torch:
                        want = res
                    else:
                        _same(want, res)
            assert outs[0] == outs[1], (name, strict)


def test_bad_inputs_as_torch():
    x3, x2 = np.ones(3), np.ones(2)
    cases = [
        ("vjp", lambda m: (VEC(m), [1.0])),                       # inputs not tensors
        ("vjp", lambda m: (VEC(m), (_lib(x3, m), 2))),
        ("vjp", lambda m: (VEC(m), _lib(x3, m))),                 # v=None for a vector output
        ("vjp", lambda m: (VEC(m), _lib(x3, m), _lib(x3, m))),    # v of the wrong size
        ("jvp", lambda m: (PAIR(m), (_lib(x3, m), _lib(x3, m)), (_lib(x3, m),))),
        ("jvp", lambda m: (PAIR(m), (_lib(x3, m), _lib(x3, m)), (_lib(x3, m), _lib(x2, m)))),
        ("hvp", lambda m: (VEC(m), _lib(x3, m), _lib(x3, m))),    # not a scalar function
        ("vhp", lambda m: (PAIR(m), (_lib(x3, m), _lib(x3, m)), (_lib(x3, m), _lib(x3, m)))),
        ("hessian", lambda m: (VEC(m), _lib(x3, m))),
        ("vjp", lambda m: (lambda x: 3, _lib(x3, m))),           # output not a tensor
    ]
    for name, build in cases:
        got = _outcome(getattr(EF, name), *build(ember))
        want = _outcome(getattr(TF, name), *build(torch))
        assert got == want and want is not None, (name, got, want)
    for kw in [{"strategy": "sideways"}, {"strategy": "forward-mode", "create_graph": True},
               {"strategy": "forward-mode", "strict": True}, {"strategy": "forward-mode"},
               {"vectorize": True, "strict": True}]:
        assert _outcome(EF.jacobian, VEC(ember), _lib(x3, ember), **kw) == \
            _outcome(TF.jacobian, VEC(torch), _lib(x3, torch), **kw)
    x = _lib(x3, ember).requires_grad_()
    before = x.detach().clone()
    EF.jacobian(lambda t: t * t, x)
    assert x.grad is None and (x.detach().numpy() == before.numpy()).all()
