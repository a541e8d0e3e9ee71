"""ember.compile / ember.compiler / ember.jit / ember.onnx: torch's signatures and wrappers,
running eagerly (no compiler yet): results equal the eager model's and torch's."""
import typing
import warnings

import numpy as np
import pytest
import torch

import ember
from test_device import outcome

CASES = [
    "m.compile(3)", "m.compile(lambda x: x, mode='foo')", "m.compile(lambda x: x, backend='foo')",
    "m.compile(lambda x: x, mode='max-autotune', options={})",
    "type(m.compile(m.nn.Linear(2, 2))).__name__",
    "list(m.compile(m.nn.Linear(2, 2)).state_dict())",
    "m.compile(m.nn.Linear(2, 2)).weight.shape", "m.compile(m.nn.Linear(2, 2)).in_features",
    "callable(m.compile(fullgraph=True))", "len(m.compile(m.nn.Sequential(m.nn.ReLU())))",
    "len(m.compile(m.nn.ReLU()))",
    "m.compiler.is_compiling()", "m.compiler.is_dynamo_compiling()", "m.compiler.is_exporting()",
    "m.compiler.disable(lambda x: x + 1)(1)", "m.compiler.disable()(lambda x: x + 1)(1)",
    "m.jit.is_scripting()", "m.jit.is_tracing()", "m.jit.annotate(int, 3)",
    "m.jit.ignore(lambda x: x + 1)(1)", "m.jit.ignore(drop=True)(lambda x: x + 1)(1)",
    "m.jit.unused(lambda x: x + 1)(1)", "m.jit.export(lambda x: x + 1)(1)",
    "m.jit.script_if_tracing(lambda x: x + 1)(1)",
    "m.jit.Final", "m.jit.Final[int]", "m.jit.isinstance(3, int)",
    "m.jit.isinstance([1, 2], typing.List[int])", "m.jit.isinstance([1, 'a'], typing.List[int])",
    "m.jit.isinstance({'a': 1}, typing.Dict[str, int])",
    "m.jit.isinstance(None, typing.Optional[int])",
    "m.jit.isinstance((1, 'a'), typing.Tuple[int, str])",
    "m.jit.wait(m.jit.fork(lambda x: x * 2, 3))",
    "m.onnx.is_in_onnx_export()",
]


@pytest.mark.parametrize("expr", CASES)
def test_same_answer_as_torch(expr):
    # (torch.jit's DeprecationWarnings are left out by outcome(): ember warns where torch does)
    assert outcome(expr, ember, {"typing": typing}) == outcome(expr, torch, {"typing": typing})


def _mlp(m):
    m.manual_seed(0)
    net = m.nn.Sequential(m.nn.Linear(4, 8), m.nn.ReLU(), m.nn.Linear(8, 2))
    for p, v in zip(net.parameters(), _WEIGHTS):
        p.data = m.tensor(v)
    return net


_rng = np.random.default_rng(0)
_WEIGHTS = [_rng.standard_normal(s).astype(np.float32) for s in ((8, 4), (8,), (2, 8), (2,))]
_X = _rng.standard_normal((5, 4)).astype(np.float32)


def test_compiled_module_runs_the_original_and_trains():
    for m in (ember, torch):
        net = _mlp(m)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cnet = m.compile(net)
        assert cnet._orig_mod is net
        x = m.tensor(_X)
        np.testing.assert_allclose(cnet(x).detach().numpy(), net(x).detach().numpy(), rtol=1e-6)
        cnet(x).sum().backward()
        assert net[0].weight.grad is not None
        assert list(cnet.state_dict()) == ["_orig_mod." + k for k in net.state_dict()]
        assert [id(p) for p in cnet.parameters()] == [id(p) for p in net.parameters()]
        cnet.eval()
        assert not net.training and not cnet.training
    e = ember.compile(_mlp(ember))(ember.tensor(_X)).detach().numpy()
    t = torch.compile(_mlp(torch), backend="eager")(torch.tensor(_X)).detach().numpy()
    np.testing.assert_allclose(e, t, rtol=1e-5, atol=1e-6)


def test_compile_function_and_decorator_forms():
    def f(a, b=1.0):
        """doc"""
        return (a * b).sum()
    cf = ember.compile(f)
    assert cf.__doc__ == "doc" and cf.__name__ == "f" and cf(ember.ones(3), b=2.0).item() == 6.0

    @ember.compile(mode="reduce-overhead", dynamic=True)
    def g(a):
        return a + 1
    assert g(ember.zeros(2)).tolist() == [1.0, 1.0]
    assert ember.compile(f, disable=True) is f
    assert ember.compile(f, backend=lambda gm, inputs: gm)(ember.ones(2)).item() == 2.0
    assert "capture" in ember.compile.__doc__


def test_jit_script_and_trace_return_the_eager_object():
    net = _mlp(ember)
    x = ember.tensor(_X)
    with pytest.warns(DeprecationWarning, match="`torch.jit.script` is deprecated"):
        assert ember.jit.script(net) is net
    with pytest.warns(DeprecationWarning, match="`torch.jit.trace` is deprecated"):
        traced = ember.jit.trace(net, x)
    assert traced is net and traced(x).shape == (5, 2)
    with pytest.raises(NotImplementedError, match="jit.save: ember has no TorchScript"):
        ember.jit.save(net, "/tmp/never_written.pt")
    with pytest.raises(NotImplementedError, match="jit.load"):
        ember.jit.load("/tmp/never_written.pt")


def test_onnx_export_writes_a_file(tmp_path):
    # the export itself is tested in test_onnx_export.py (onnxruntime against ember eager)
    pytest.importorskip("onnx")
    ember.onnx.export(_mlp(ember), (ember.tensor(_X),), str(tmp_path / "mlp.onnx"))
    assert (tmp_path / "mlp.onnx").stat().st_size > 0


def test_jit_overload_declarations_as_torch():
    for lib in (torch, ember):
        @lib.jit._overload
        def f(x: int) -> int:
            pass

        @lib.jit._overload
        def f(x: str) -> str:  # noqa: F811
            ...

        def f(x):  # noqa: F811  (the implementation Python calls)
            return x * 2

        assert f(3) == 6 and f("a") == "aa"

        class M:
            @lib.jit._overload_method
            def g(self, x: int) -> int:
                pass

            def g(self, x):  # noqa: F811
                return x + 1

        assert M().g(1) == 2
        with pytest.raises(RuntimeError, match="Only `pass` statement or `...` can be the body"):
            @lib.jit._overload
            def h(x: int) -> int:
                return x
    assert len(ember.jit._overloads._get_fn_overloads(f"{__name__}.{f.__qualname__}")) == 2


def test_jit_attribute_as_torch():
    for lib in (torch, ember):
        a = lib.jit.Attribute(3, typing.Optional[int])
        assert a == (3, typing.Optional[int]) and a.value == 3 and a.type == typing.Optional[int]
    assert repr(ember.jit.Attribute(3, int)) == repr(torch.jit.Attribute(3, int))
