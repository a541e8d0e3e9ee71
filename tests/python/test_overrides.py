"""__torch_function__ and torch.overrides: the same program run under torch and under ember
(`import ember as torch`), its printed results and call logs compared line for line. Each
program runs in a fresh interpreter: defining a Tensor subclass turns ember's routing on for
the rest of the process (see ember/overrides.py), which other tests must not inherit."""
import os
import subprocess
import sys
import textwrap

import pytest

_PRELUDE = """
import sys
if sys.argv[1] == "torch":
    import torch
else:
    import ember as torch
F = torch.nn.functional
log = []
"""

PROGRAMS = {
    "logging_and_nested_modes": """
class Logging(torch.overrides.TorchFunctionMode):
    def __init__(self, tag):
        self.tag = tag
    def __torch_function__(self, func, types, args=(), kwargs=None):
        log.append((self.tag, func.__name__, [t.__name__ for t in types]))
        return func(*args, **(kwargs or {}))
a = torch.ones(2, 3); b = torch.arange(3.0)
with Logging("outer"):
    with Logging("inner") as inner:
        c = torch.add(a, b, alpha=2)
        d = a * b
        e = F.relu(c - 4)
        s = a.sum(dim=1)
        print(torch.overrides._get_current_mode() is inner if hasattr(torch.overrides, "_get_current_mode") else True)
    f = torch.exp(b)
g = torch.neg(b)
print(log)
print(c.tolist(), d.tolist(), e.tolist(), s.tolist(), f.tolist(), g.tolist())
print(torch.overrides.has_torch_function((a,)))
""",
    "mode_returning_not_implemented": """
class Refuse(torch.overrides.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        log.append(func.__name__)
        if func is torch.sub:
            return NotImplemented
        return func(*args, **(kwargs or {}))
a = torch.ones(2)
with Refuse():
    print(torch.mul(a, 3).tolist())
    try:
        torch.sub(a, 1)
    except TypeError as ex:
        print("TypeError", "torch.sub" in str(ex))
print(log)
""",
    "subclass_keeps_type": """
class Meta(torch.Tensor):
    pass
a = torch.arange(6.0).reshape(2, 3)
m = a.as_subclass(Meta)
m.unit = "m"
out = [m + 1, 2 * m, torch.exp(m), m.sum(), F.relu(m), m[0], m.t(), torch.cat([m, a])]
print([type(t).__name__ for t in out])
print([type(t).__name__ for t in torch.chunk(m, 3, dim=1)], type(m.max(dim=1).values).__name__)
print((m + 1).tolist(), getattr(m + 1, "unit", None), m.unit)
with torch._C.DisableTorchFunctionSubclass():
    print(type(torch.exp(m)).__name__, type(m + 1).__name__)
p = torch.nn.Parameter(torch.ones(2))
print(type(p * 2).__name__, type(torch.exp(p)).__name__)
base = torch.ones(2, requires_grad=True) * 3
made = torch.Tensor._make_subclass(Meta, base, True)
print(type(made).__name__, made.requires_grad, made.grad_fn is None, made.is_leaf, made.tolist())
made.sum().backward()
print(made.grad.tolist(), type(torch.Tensor._make_subclass(Meta, base)).__name__)
for bad in ((int, base), (Meta, 3)):
    try:
        torch.Tensor._make_subclass(*bad)
    except TypeError as ex:
        print("TypeError", ex)
""",
    "subclass_logging_torch_function": """
class Logged(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        log.append((func.__name__, [t.__name__ for t in types]))
        return super().__torch_function__(func, types, args, kwargs)
class Child(Logged):
    pass
a = torch.ones(3)
l = a.as_subclass(Logged); c = a.as_subclass(Child)
r1 = torch.mul(l, 2); r2 = torch.add(l, c); r3 = l.exp()
print(log, type(r1).__name__, type(r2).__name__, type(r3).__name__, r2.tolist())
""",
    "duck_types": """
class Anchor(torch.Tensor):  # torch always dispatches; ember routes once a subclass exists
    pass
class ScalarTensor:
    def __init__(self, n, value):
        self.n, self.value = n, value
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        log.append((func.__name__, [t.__name__ for t in types]))
        if func is torch.mean:
            return float(args[0].value)
        if func is torch.diag:
            return torch.eye(args[0].n) * args[0].value
        return NotImplemented
class Refuses:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented
s = ScalarTensor(3, 2.0)
print(torch.mean(s), torch.diag(s).tolist())
try:
    torch.add(s, Refuses())
except TypeError as ex:
    print(str(ex).replace("__main__.", ""))
print(log)
o = torch.overrides
print(o.has_torch_function((torch.ones(1),)), o.has_torch_function((s,)),
      o.has_torch_function_unary(s), o.has_torch_function_variadic(1, s),
      o.is_tensor_like(s), o.is_tensor_like(torch.ones(1)), o.is_tensor_like(3))
""",
    "handle_and_wrap": """
o = torch.overrides
class Duck:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        log.append(func.__name__)
        return "duck:" + func.__name__
def myfunc(x, y=1):
    if o.has_torch_function_variadic(x, y):
        return o.handle_torch_function(myfunc, (x, y), x, y=y)
    return x + y
@o.wrap_torch_function(lambda x: (x,))
def wrapped(x):
    return "plain"
class Never:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented
print(myfunc(1), myfunc(Duck()), wrapped(1), wrapped(Duck()))
try:
    o.handle_torch_function(myfunc, (Never(),), Never())
except TypeError as ex:
    print(str(ex).replace("__main__.", ""))
print(o.resolve_name(torch.add), o.resolve_name(torch.Tensor.add), o.resolve_name(F.relu))
print(o.is_tensor_method_or_property(torch.Tensor.add), o.is_tensor_method_or_property(torch.add))
ov = o.get_overridable_functions()
print(torch.add in ov[torch], F.relu in ov[F], torch.tensor in o.get_ignored_functions(),
      torch.add in o.get_ignored_functions())
t = o.get_testing_overrides()
print(t[torch.add](torch.ones(1), torch.ones(1)), t[F.relu](torch.ones(1)))
print(log)
""",
    "ignored_functions_never_dispatch": """
o = torch.overrides
class Op:  # as linear_operator's LinearOperator: raises for any function it does not handle
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        raise NotImplementedError(func.__name__)
class Sub(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in (torch.is_tensor, torch.is_storage, torch.as_tensor, torch.asarray):
            raise AssertionError(f"{func.__name__} dispatched")
        log.append(func.__name__)
        return super().__torch_function__(func, types, args, kwargs)
log = []
s = torch.ones(2).as_subclass(Sub)
print(torch.is_tensor(Op()), torch.is_tensor(s), torch.is_storage(s), type(torch.as_tensor(s)).__name__,
      type(torch.asarray(s)).__name__, torch.result_type(s, 1.0) == torch.float32, log)
print(all(f in o.get_ignored_functions() for f in (torch.is_tensor, torch.zeros, torch.randn,
                                                    torch.result_type, torch.nn.functional.sigmoid)))
try:
    torch.add(Op(), 1)
except NotImplementedError as e:
    print("add", e)
""",
    "fx_proxy_through_handle_torch_function": """
o = torch.overrides
def scaled(x, k=2.0):
    if o.has_torch_function_unary(x):
        return o.handle_torch_function(scaled, (x,), x, k=k)
    return x * k
def f(x):
    return torch.relu(scaled(x, k=3.0)) + 1
gm = torch.fx.symbolic_trace(f)
print([(n.op, getattr(n.target, "__name__", n.target)) for n in gm.graph.nodes])
print(gm(torch.tensor([-1.0, 2.0])).tolist())
""",
    "docs_diagonal_and_metadata_examples": """
import functools
class Anchor(torch.Tensor):  # torch always dispatches; ember routes once a subclass exists
    pass
HANDLED = {}
def implements(fn):
    def deco(impl):
        HANDLED[fn] = impl
        return impl
    return deco
class DiagonalTensor:
    def __init__(self, n, value):
        self._n, self._value = n, value
    def tensor(self):
        return self._value * torch.eye(self._n)
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func not in HANDLED or not all(issubclass(t, (torch.Tensor, DiagonalTensor)) for t in types):
            return NotImplemented
        return HANDLED[func](*args, **(kwargs or {}))
@implements(torch.mean)
def mean(d):
    return float(d._value) / d._n
@implements(torch.add)
def add(a, b):
    a = a.tensor() if isinstance(a, DiagonalTensor) else a
    b = b.tensor() if isinstance(b, DiagonalTensor) else b
    return a + b
d = DiagonalTensor(3, 2.0)
print(torch.mean(d), torch.add(d, torch.ones(3, 3)).tolist(), torch.add(torch.ones(3, 3), d).tolist())
try:
    torch.sum(d)
except TypeError as ex:
    print(str(ex).replace("__main__.", ""))
class MetadataTensor(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        metas = [a._meta for a in args if isinstance(a, MetadataTensor) and hasattr(a, "_meta")]
        out = super().__torch_function__(func, types, args, kwargs)
        if isinstance(out, MetadataTensor) and metas:
            out._meta = dict(metas[0])
        return out
x = torch.tensor([1.0, -2.0], requires_grad=True)
m = x.as_subclass(MetadataTensor)
m._meta = {"unit": "s"}
y = (m * 3).relu()
print(type(y).__name__, y._meta, y.tolist())
y.sum().backward()
print(x.grad.tolist())
class Log(torch.overrides.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        log.append((func.__name__, [t.__name__ for t in types]))
        return func(*args, **(kwargs or {}))
with Log():
    z = torch.sin(m)
print(log, type(z).__name__, getattr(z, "_meta", None))
""",
}


def _run(lib, program):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    code = _PRELUDE + textwrap.dedent(program)
    r = subprocess.run([sys.executable, "-c", code, lib], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, f"{lib} failed:\n{r.stderr[-3000:]}"
    return r.stdout.splitlines()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_as_torch(name):
    torch_out = _run("torch", PROGRAMS[name])
    ember_out = _run("ember", PROGRAMS[name])
    assert ember_out == torch_out


def test_no_routing_until_needed():
    code = """
import ember
from ember.fx import _routing
plain = ember.add
print(_routing._depth, type(plain).__name__)
class Mode(ember.overrides.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))
with Mode():
    inside = ember.add is plain
print(_routing._depth, ember.add is plain, inside)
class Sub(ember.Tensor):
    pass
print(_routing._depth, ember.add is plain)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["0 nb_func", "0 True False", "1 False"]



def test_pytorch_tensors_do_not_dispatch_once_routing_is_on():
    """With routing on (a subclass defined), a real PyTorch tensor handed to ember (DLPack,
    NumPy interop) is data, not an overriding type: its __torch_function__ is PyTorch's."""
    code = """
import torch, ember
class On(ember.Tensor):  # defining it turns routing on for good
    pass
e = ember.from_dlpack(torch.arange(4, dtype=torch.float32))
print(e.tolist(), type(e).__name__)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[0.0,", "1.0,", "2.0,", "3.0]", "Tensor"]


def test_parameter_subclasses_leave_routing_off():
    """Importing FSDP (its FlatParameter subclasses nn.Parameter) or defining a Parameter
    subclass keeps eager ops on their C++ entry points, as torch's Parameter takes no part."""
    code = """
import ember
from ember.fx import _routing
import ember.distributed.fsdp
class MyParam(ember.nn.Parameter):
    pass
print(_routing._depth, type(MyParam(ember.ones(2)) * 2).__name__)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "Tensor"]
