"""ember.jit: TorchScript's decorators as eager pass-throughs.

ember has no TorchScript compiler. What a program can rely on from torch.jit without one is kept:
script(obj) and trace(obj, example_inputs) return obj itself, so calling the result runs eager
ember code with the same results (torch returns a ScriptModule/ScriptFunction instead: its
.graph, .code, .save() and type checks do not exist here); ignore/unused/export/interface
return their argument; is_scripting() and is_tracing() are False; annotate(T, v) is v; fork/wait
run the call at once. save/load/freeze raise NotImplementedError: serializing TorchScript needs a
captured graph (the capture issue). As in torch 2.13, script, trace, fork, wait, save and load
warn with DeprecationWarning.
"""
import collections
import typing
import warnings

from . import annotations  # noqa: F401
from ._overloads import _overload, _overload_method  # noqa: F401

Final = typing.Final

# An attribute's declared type for the TorchScript compiler (`self.x: Attribute(v, T)`, or
# `self.x = Attribute(v, T)`): a (value, type) pair, as torch's, which ember only carries.
Attribute = collections.namedtuple("Attribute", ["value", "type"])


class ScriptModule:
    """torch.jit.ScriptModule's name (also torch.ScriptModule): the type of a TorchScript-compiled
    module. ember compiles nothing to TorchScript (script() returns its argument), so no object
    is one: `isinstance(m, ScriptModule)`, which programs use to pick a path (Lightning's model
    summary), is False, as it is in torch for a module that was not scripted.

    >>> isinstance(ember.nn.Linear(2, 2), ember.jit.ScriptModule)
    False
    """

    def __init__(self, *args, **kwargs):
        raise RuntimeError("ScriptModule: ember has no TorchScript; ember.jit.script(module) "
                           "returns the module itself")


class ScriptFunction:
    """torch.jit.ScriptFunction's name (also torch.ScriptFunction): no object is one in ember
    (see ScriptModule).

    >>> isinstance(len, ember.jit.ScriptFunction)
    False
    """

    def __init__(self, *args, **kwargs):
        raise RuntimeError("ScriptFunction: ember has no TorchScript; ember.jit.script(fn) "
                           "returns the function itself")


def _deprecated(name, instead="Please switch to `torch.compile` or `torch.export`."):
    warnings.warn(f"`torch.jit.{name}` is deprecated. {instead}", DeprecationWarning, stacklevel=3)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Returns obj unchanged: ember runs it eagerly (no TorchScript compilation)."""
    _deprecated("script")
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    """Returns func unchanged: ember runs it eagerly (nothing is recorded)."""
    _deprecated("trace")
    return func


def trace_module(mod, inputs, *args, **kwargs):
    _deprecated("trace_module")
    return mod


def script_if_tracing(fn):
    return fn


def ignore(drop=False, **kwargs):
    """@ignore and @ignore(drop=...): leaves the function as Python (all of ember is)."""
    if callable(drop):
        return drop
    if drop:  # torch's message, including its unfilled "{}"
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function "
                      "call on compilation. Use torch.jit.unused now. {}", FutureWarning,
                      stacklevel=2)
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj


def is_scripting():
    return False


def is_tracing():
    return False


class TracerWarning(Warning):
    """torch.jit.TracerWarning: the category of warnings torch's tracer raises about values it
    bakes into a trace. ember's trace() records nothing and never raises one; programs name
    the class to filter it (pyro's jit_compile: warnings.filterwarnings("ignore",
    category=torch.jit.TracerWarning)).

    >>> issubclass(ember.jit.TracerWarning, Warning)
    True
    """

    @staticmethod
    def ignore_lib_warnings():
        warnings.filterwarnings("ignore", category=TracerWarning, module="torch.(?!jit)")


def annotate(the_type, the_value):
    return the_value


def isinstance(obj, target_type):
    """isinstance that also takes typing containers (List[int], Dict[str, Tensor], Optional[T])."""
    import builtins
    origin = typing.get_origin(target_type)
    if origin is None:
        return builtins.isinstance(obj, target_type)
    args = typing.get_args(target_type)
    if origin is typing.Union:
        return any(isinstance(obj, a) for a in args)
    if not builtins.isinstance(obj, origin):
        return False
    if origin in (list, set, frozenset) and args:
        return all(isinstance(x, args[0]) for x in obj)
    if origin is dict and args:
        return all(isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items())
    if origin is tuple and args:
        return len(obj) == len(args) and all(isinstance(x, a) for x, a in zip(obj, args))
    return True


class Future:
    """The result of fork(): the call already ran; wait() returns its value."""

    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value

    def done(self):
        return True


def fork(func, *args, **kwargs):
    _deprecated("fork", "Please use `torch.compile` instead.")
    return Future(func(*args, **kwargs))


def wait(future):
    _deprecated("wait", "Please use `torch.compile` instead.")
    return future.wait()


def _needs_capture(name):
    def fn(*args, **kwargs):
        raise NotImplementedError(f"jit.{name}: ember has no TorchScript; saving, loading and "
                                  "freezing scripted code comes with the graph-capture issue")
    fn.__name__ = fn.__qualname__ = name
    return fn


save = _needs_capture("save")
load = _needs_capture("load")
freeze = _needs_capture("freeze")
optimize_for_inference = _needs_capture("optimize_for_inference")
