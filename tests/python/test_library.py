"""ember.library (custom operators) beside torch.library: the same definitions in both
libraries, compared call by call (values, gradients, schemas, errors)."""
import itertools
import typing

import numpy as np
import pytest
import torch

import ember

_ids = itertools.count()


def fresh(prefix="t"):
    """A namespace no test used before (both libraries' registries live for the session)."""
    return f"emtest_{prefix}{next(_ids)}"


def both(build):
    """build(lib) in each library; returns {"ember": ..., "torch": ...}."""
    return {"ember": build(ember), "torch": build(torch)}


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001
        return ("err", type(e).__name__)


def np_of(x):
    if isinstance(x, (tuple, list)):
        return [np_of(v) for v in x]
    return x.detach().numpy() if hasattr(x, "detach") else x


# ---------------------------------------------------------------- schemas


def _protos(lib):
    T, Opt, Seq, List = lib.Tensor, typing.Optional, typing.Sequence, typing.List

    def f1(x: T, n: int, s: float = 1.0, flag: bool = False, y: Opt[T] = None,
           xs: List[T] = None, name: str = "a", dt: lib.dtype = lib.float32,
           seq: Seq[int] = None) -> T: ...

    def f2(x: T, y: T) -> None: ...

    def f3(x: T) -> typing.Tuple[T, T]: ...

    def f4(x: T, *, alpha: float = 2.0) -> list[T]: ...

    def f5(x: T, d: lib.device, m: Opt[int] = None, fl: list[float] = None,
           b: list[bool] = None, on: Opt[float] = 2.5) -> typing.Tuple[T, int]: ...

    def f6(x: T, o: Seq[Opt[T]], v: typing.Union[int, float, bool] = 3) -> T: ...

    def bad1(x) -> T: ...

    def bad2(x: dict) -> T: ...

    def bad3(x: T, *rest: T) -> T: ...

    def bad4(x: T): ...

    def bad5(x: T, xs: List[T] = ()) -> T: ...
    return [(f1, ()), (f2, {"x"}), (f3, ()), (f4, "unknown"), (f5, ()), (f6, ()),
            (bad1, ()), (bad2, ()), (bad3, ()), (bad4, ()), (bad5, ()), (f2, {"z"})]


def test_infer_schema_like_torch():
    ours, theirs = _protos(ember), _protos(torch)
    for (fe, me), (ft, mt) in zip(ours, theirs):
        e = outcome(lambda: ember.library.infer_schema(fe, mutates_args=me))
        t = outcome(lambda: torch.library.infer_schema(ft, mutates_args=mt))
        assert e == t, fe.__name__


# ---------------------------------------------------------------- custom_op


def _sin_op(lib, ns):
    @lib.library.custom_op(f"{ns}::npsin", mutates_args=())
    def npsin(x: lib.Tensor) -> lib.Tensor:
        return lib.from_numpy(np.sin(x.detach().numpy()))
    return npsin


def test_custom_op_calls_and_names():
    ns = fresh("sin")
    ops = both(lambda lib: _sin_op(lib, ns))
    x = np.linspace(-2, 2, 7)
    for name, lib in (("ember", ember), ("torch", torch)):
        op = ops[name]
        packet = getattr(getattr(lib.ops, ns), "npsin")
        np.testing.assert_allclose(np_of(op(lib.tensor(x))), np.sin(x))
        np.testing.assert_allclose(np_of(packet(lib.tensor(x))), np.sin(x))
        np.testing.assert_allclose(np_of(packet.default(lib.tensor(x))), np.sin(x))
    e, t = getattr(ember.ops, ns).npsin, getattr(torch.ops, ns).npsin
    assert repr(e) == repr(t) and repr(e.default) == repr(t.default)
    assert str(e.default._schema) == str(t.default._schema)
    assert repr(ops["ember"]).replace("ember", "") == repr(ops["torch"]).replace("torch", "")
    # argument checks: count and types, the same refusals
    for args in [(ember.ones(2), 1), ("x",), ()]:
        targs = tuple(torch.ones(2) if isinstance(a, ember.Tensor) else a for a in args)
        assert outcome(lambda: ops["ember"](*args))[0] == outcome(lambda: ops["torch"](*targs))[0]
    with pytest.raises(AttributeError):
        getattr(getattr(ember.ops, ns), "nope")


def test_custom_op_autograd_like_torch():
    ns = fresh("grad")

    def build(lib):
        op = _sin_op(lib, ns)

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x.cos()
        return op, setup_context, backward
    ops = both(build)
    x = np.linspace(-1, 1, 5)
    grads = {}
    for name, lib in (("ember", ember), ("torch", torch)):
        op, setup, bwd = ops[name]
        t = lib.tensor(x, requires_grad=True)
        y = op(t)
        assert y.requires_grad
        with pytest.raises(RuntimeError, match="no autograd formula"):
            y.sum().backward()
        op.register_autograd(bwd, setup_context=setup)
        t2 = lib.tensor(x, requires_grad=True)
        (op(t2) * lib.tensor(x)).sum().backward()
        grads[name] = t2.grad.numpy()
    np.testing.assert_allclose(grads["ember"], grads["torch"], rtol=1e-12)
    op = ops["ember"][0]
    assert ember.autograd.gradcheck(op, (ember.tensor(x, requires_grad=True),))
    with ember.no_grad():
        assert not op(ember.tensor(x, requires_grad=True)).requires_grad


def test_custom_op_outputs_and_mutation():
    ns = fresh("mut")

    def build(lib):
        @lib.library.custom_op(f"{ns}::alias", mutates_args=())
        def alias(x: lib.Tensor) -> lib.Tensor:
            return x[1:]

        @lib.library.custom_op(f"{ns}::addone_", mutates_args={"x"})
        def addone_(x: lib.Tensor) -> None:
            x.add_(1)

        @lib.library.custom_op(f"{ns}::split2", mutates_args=())
        def split2(x: lib.Tensor, n: int, *,
                   scale: float = 2.0) -> typing.Tuple[lib.Tensor, lib.Tensor]:
            return x * n, x * scale
        return alias, addone_, split2
    ops = both(build)
    for name, lib in (("ember", ember), ("torch", torch)):
        alias, addone_, split2 = ops[name]
        with pytest.raises(RuntimeError, match="alias"):
            alias(lib.ones(3))
        t = lib.zeros(2)
        assert addone_(t) is None and t.tolist() == [1.0, 1.0]
        a, b = split2(lib.ones(2), 3, scale=0.5)
        assert a.tolist() == [3.0, 3.0] and b.tolist() == [0.5, 0.5]
        with pytest.raises(RuntimeError):
            split2(lib.ones(2), 2.5)
        with pytest.raises(RuntimeError):
            addone_.register_autograd(lambda ctx, g: g)
    # a mutating op's body runs below autograd in both: y's graph does not see the write
    for name, lib in (("ember", ember), ("torch", torch)):
        x = lib.ones(2, requires_grad=True)
        y = x * 1
        ops[name][1](y)
        y.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0], name


def test_library_define_impl_and_destroy():
    ns = fresh("lib")
    for lib in (ember, torch):
        L = lib.library.Library(ns, "DEF")
        assert L.define("foo(Tensor x, float a=2.0) -> Tensor") == "foo"
        L.impl("foo", lambda x, a=2.0: x * a, "CPU")  # defaults are the kernel's (as torch)
        op = getattr(getattr(lib.ops, ns), "foo")
        assert op(lib.ones(2)).tolist() == [2.0, 2.0]
        assert op(lib.ones(2), 3).tolist() == [3.0, 3.0]
        with pytest.raises(RuntimeError):
            lib.library.Library(ns, "DEF")  # one DEF library per namespace
        frag = lib.library.Library(ns, "FRAGMENT")
        frag.define("bar(Tensor x) -> Tensor")
        lib.library.impl(f"{ns}::bar", "cpu", lambda x: x - 1, lib=frag)
        assert getattr(getattr(lib.ops, ns), "bar")(lib.ones(1)).tolist() == [0.0]
        assert lib.library.get_kernel(f"{ns}::bar", "CPU") is not None
        ns = fresh("lib")  # torch's registry is separate: a new namespace for the next library
    ns2 = fresh("destroy")
    L = ember.library.Library(ns2, "DEF")
    L.define("baz(Tensor x) -> Tensor")
    L._destroy()
    with pytest.raises(AttributeError):
        getattr(ember.ops, ns2).baz
    ember.library.Library(ns2, "DEF")._destroy()  # the namespace is free again


def test_define_impl_register_kernel_and_fake():
    ns = fresh("def")
    for lib in (ember, torch):
        lib.library.define(f"{ns}::scale", "(Tensor x, SymInt k) -> Tensor")

        @lib.library.impl(f"{ns}::scale", "cpu")
        def scale(x, k):
            return x * k

        @lib.library.register_fake(f"{ns}::scale")
        def _(x, k):
            return lib.empty_like(x)
        assert getattr(getattr(lib.ops, ns), "scale")(lib.ones(2), 4).tolist() == [4.0, 4.0]
        res = lib.library.opcheck(getattr(getattr(lib.ops, ns), "scale").default, (lib.ones(3), 2))
        assert set(res.values()) == {"SUCCESS"}, res
        ns = fresh("def")
    nsk = fresh("kern")
    for lib in (ember, torch):
        op = _sin_op(lib, nsk)
        op.register_kernel("cpu")(lambda x: x * 0 + 7)
        assert op(lib.ones(2)).tolist() == [7.0, 7.0]
        nsk = fresh("kern")


def test_opcheck_catches_an_undeclared_mutation():
    ns = fresh("bad")
    for lib in (ember, torch):
        @lib.library.custom_op(f"{ns}::sneaky", mutates_args=())
        def sneaky(x: lib.Tensor) -> lib.Tensor:
            x.add_(1)
            return x.clone()

        @sneaky.register_fake
        def _(x):
            return lib.empty_like(x)
        res = lib.library.opcheck(sneaky, (lib.ones(2),), raise_exception=False)
        assert res["test_schema"] != "SUCCESS", (lib.__name__, res)
        ns = fresh("bad")


def test_register_autocast():
    ns = fresh("cast")
    for lib in (ember, torch):
        seen = []

        @lib.library.custom_op(f"{ns}::probe", mutates_args=())
        def probe(x: lib.Tensor) -> lib.Tensor:
            seen.append(x.dtype)
            return x.clone()
        probe.register_autocast("cpu", lib.float64)
        with lib.autocast("cpu", dtype=lib.bfloat16):
            out = probe(lib.ones(2))
        probe(lib.ones(2))
        assert [str(d).split(".")[1] for d in seen] == ["float64", "float32"], lib.__name__
        assert out.dtype == lib.float64
        ns = fresh("cast")


def test_errors():
    with pytest.raises(ValueError):
        ember.library.custom_op("nonamespace", mutates_args=())(lambda x: x)
    with pytest.raises(ValueError):
        ember.library.custom_op(f"{fresh()}::f", mutates_args="x")
    with pytest.raises(ValueError, match="kind"):
        ember.library.Library("x", "WHAT")
    ns = fresh("dup")
    _sin_op(ember, ns)
    with pytest.raises(RuntimeError, match="multiple times"):
        _sin_op(ember, ns)
    with pytest.raises(RuntimeError, match="does not exist"):
        ember.library.register_fake(f"{fresh()}::missing", lambda x: x)
    with pytest.raises(RuntimeError, match="device type at start of device string: foo"):
        ember.library.impl(f"{ns}::npsin", "foo", lambda x: x)
    ember.library.register_vmap(f"{ns}::npsin", lambda info, dims, x: (x, 0))
    assert ember.vmap(getattr(ember.ops, ns).npsin)(ember.zeros(2, 3)).tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("device", ["cuda", "mps", "xpu"])
def test_kernel_for_another_device_is_kept_but_never_runs(device):
    """As torch's CPU build: an op whose only kernel is for `device` is defined, and calling it
    on CPU tensors raises NotImplementedError; a CPU kernel added beside it runs."""
    for lib in (ember, torch):
        name = f"{fresh('dev')}::f"

        @lib.library.custom_op(name, mutates_args=(), device_types=device)
        def f(x: lib.Tensor) -> lib.Tensor:
            return x * 2

        with pytest.raises(NotImplementedError, match="CPU"):
            f(lib.ones(2))
        lib.library.register_kernel(name, "cpu", lambda x: x * 3)
        assert f(lib.ones(2)).tolist() == [3.0, 3.0]
        q = f"{fresh('devlib')}"
        l2 = lib.library.Library(q, "DEF")
        l2.define("g(Tensor x) -> Tensor")
        l2.impl("g", lambda x: x * 2, device.upper())
        with pytest.raises(NotImplementedError, match="CPU"):
            getattr(getattr(lib.ops, q), "g")(lib.ones(2))


def test_aliases_and_fallthrough():
    ns = fresh("alias")
    op = _sin_op(ember, ns)
    assert isinstance(op, ember.library.CustomOpDef)
    assert ember.library.impl_abstract is ember.library.register_fake
    ember.library.impl_abstract(f"{ns}::npsin", lambda x: ember.empty_like(x))
    lib = ember.library.Library(ns, "IMPL")
    lib.impl("npsin", ember.library.fallthrough_kernel, "CPU")  # registers nothing
    assert op(ember.zeros(1)).tolist() == [0.0]
    with pytest.raises(RuntimeError, match="cannot define"):
        lib.define("other(Tensor x) -> Tensor")
