"""ember.library.opcheck: torch's four operator checks, as they apply to ember (see there)."""
from .registry import OpOverload, OpOverloadPacket, lookup


def _opdef(op):
    from ..library import CustomOpDef
    if isinstance(op, (CustomOpDef, OpOverload, OpOverloadPacket)):
        return op._opdef
    if isinstance(op, str):
        return lookup(op, "opcheck")
    raise ValueError(f"opcheck(op, ...): op must be an OpOverload, OpOverloadPacket or "
                     f"CustomOpDef, got {type(op).__name__}")


def _clone(v):
    from .. import Tensor
    if isinstance(v, Tensor):
        return v.detach().clone().requires_grad_(v.requires_grad)
    if isinstance(v, (list, tuple)):
        return type(v)(_clone(x) for x in v)
    return v


def _tensors(v):
    from .. import Tensor
    if isinstance(v, Tensor):
        return [v]
    if isinstance(v, (list, tuple)):
        return [t for x in v for t in _tensors(x)]
    return []


def _same(a, b, atol, rtol):
    from .. import testing
    testing.assert_close(a, b, atol=atol, rtol=rtol, equal_nan=True)


def test_schema(opdef, args, kwargs, atol, rtol):
    """Arguments not declared mutated come back unchanged (values and versions)."""
    a, k = _clone(args), _clone(kwargs)
    bound = opdef.schema.bind(opdef.qualname, a, k)
    before = {n: [(t._version, t.detach().clone()) for t in _tensors(v)] for n, v in bound.items()}
    opdef.call(a, k)
    for arg in opdef.schema.args:
        if arg.mutated:
            continue
        for (version, copy), t in zip(before[arg.name], _tensors(bound[arg.name])):
            if t._version != version or not copy.equal(t.detach()):
                raise RuntimeError(f"opcheck test_schema: {opdef.qualname} wrote to argument "
                                   f"'{arg.name}', which its schema does not declare mutated "
                                   f"({opdef.schema}); add it to mutates_args")


def test_autograd_registration(opdef, args, kwargs, atol, rtol):
    """Tensor inputs that require grad meet a registered formula."""
    if opdef.backward is not None or any(a.mutated for a in opdef.schema.args):
        return
    if any(t.requires_grad for t in _tensors(list(args) + list(kwargs.values()))):
        raise RuntimeError(f"opcheck test_autograd_registration: {opdef.qualname} takes inputs "
                           f"that require grad but has no autograd formula: register one with "
                           f"register_autograd (or call it on inputs that do not require grad)")


def test_faketensor(opdef, args, kwargs, atol, rtol):
    """The fake kernel, run on the real inputs, gives outputs of the real shapes and dtypes."""
    from .. import no_grad
    if opdef.fake is None:
        raise RuntimeError(f"opcheck test_faketensor: {opdef.qualname} has no fake kernel: "
                           f"register one with register_fake")
    with no_grad():
        real = opdef.call(_clone(args), _clone(kwargs))
        fake = opdef.fake(*_clone(args), **_clone(kwargs))
    r, f = _tensors(real), _tensors(fake)
    if len(r) != len(f) or any(x.shape != y.shape or x.dtype != y.dtype for x, y in zip(r, f)):
        raise RuntimeError(f"opcheck test_faketensor: {opdef.qualname}'s fake kernel gave "
                           f"{[(tuple(t.shape), t.dtype) for t in f]}, the kernel "
                           f"{[(tuple(t.shape), t.dtype) for t in r]}")


def test_aot_dispatch_dynamic(opdef, args, kwargs, atol, rtol):
    """Called under ember.compile (recorded, then replayed), the operator equals eager."""
    from .. import compile, no_grad
    with no_grad():
        expected = opdef.call(_clone(args), _clone(kwargs))
        fn = compile(lambda a, k: opdef.call(a, k))
        for _ in range(2):  # the first call records, the second replays
            got = fn(_clone(args), _clone(kwargs))
    for x, y in zip(_tensors(got), _tensors(expected)):
        _same(x, y, atol, rtol)


TESTS = {f.__name__: f for f in (test_schema, test_autograd_registration, test_faketensor,
                                 test_aot_dispatch_dynamic)}


def run(op, args, kwargs, test_utils, raise_exception, atol, rtol):
    opdef = _opdef(op)
    names = [test_utils] if isinstance(test_utils, str) else list(test_utils)
    for n in names:
        if n not in TESTS:
            raise ValueError(f"opcheck: unknown test_utils entry '{n}' (known: {list(TESTS)})")
    results = {}
    for n in names:
        try:
            TESTS[n](opdef, tuple(args), dict(kwargs), atol, rtol)
            results[n] = "SUCCESS"
        except Exception as e:  # noqa: BLE001  (each check reports its own failure)
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {n} failed with {e}") from e
            results[n] = e
    return results


class OpCheckError(Exception):
    """A check of opcheck failed (torch's torch.testing._internal.optests.OpCheckError)."""
