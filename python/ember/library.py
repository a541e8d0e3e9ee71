"""ember.library: user-defined operators, as torch.library.

    @ember.library.custom_op("mylib::numpy_sin", mutates_args=())
    def numpy_sin(x: ember.Tensor) -> ember.Tensor:
        return ember.from_numpy(np.sin(x.numpy()))

    numpy_sin.register_autograd(backward, setup_context=setup_context)
    ember.ops.mylib.numpy_sin(x)                # the same operator

The operator's schema is torch's (inferred from the annotations, or given as text to
`define`), its arguments are checked against it on every call, and its kernel runs below
autograd: gradients come from the formula registered with `register_autograd`
(_library/registry.py says how a call runs; _library/schema.py reads and infers schemas).
ember has one device, the CPU: a kernel registered for "cpu" or as the default runs. Fake
(meta) kernels are kept for `opcheck`, which runs them on real inputs and compares the
metadata; ember's compile records the kernel's own ops and never needs them.
"""
import functools
import weakref

from ._library import registry as _registry
from ._library.schema import infer_schema, parse_schema

__all__ = ["Library", "impl", "define", "fallthrough_kernel", "impl_abstract",
           "register_autocast", "register_fake", "register_vmap", "get_kernel", "custom_op",
           "infer_schema", "register_autograd", "register_kernel", "opcheck", "CustomOpDef"]

_DEF_NAMESPACES = weakref.WeakValueDictionary()  # namespace -> its DEF Library


def _device_types(types, op):
    """The kernel keys of device `types`: "cpu", "default", or another device type of torch's
    ("cuda", "mps", ...). ember's tensors are all on the CPU, so a kernel for another device is
    kept but never runs: calling an operator that has only such kernels raises torch's
    NotImplementedError (Could not run ... from the 'CPU' backend). A name that is no device
    type raises torch's RuntimeError."""
    if types is None or types == "default":
        return ["default"]
    if isinstance(types, str):
        types = [types]
    out = []
    for t in types:
        t = str(t).lower()
        if t in ("default", "compositeimplicitautograd", "compositeexplicitautograd"):
            out.append("default")
        elif t == "cpu":
            out.append("cpu")
        else:
            from ._tensor import device
            try:
                out.append(device(t).type)
            except RuntimeError as e:
                raise RuntimeError(f"{op}: {e}") from None
    return out


class Library:
    """A handle that defines (kind "DEF" or "FRAGMENT") and implements ("IMPL") operators of a
    namespace; its registrations are removed when it is destroyed (`_destroy`) or collected.

    >>> lib = ember.library.Library("doc_lib", "DEF")
    >>> lib.define("twice(Tensor x) -> Tensor")
    'twice'
    >>> lib.impl("twice", lambda x: x * 2, "CPU")
    >>> ember.ops.doc_lib.twice(ember.tensor([1.0, 2.0]))
    tensor([2., 4.])
    >>> lib._destroy()
    """

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("DEF", "IMPL", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if not ns or "::" in ns or "." in ns:
            raise ValueError(f"Library: invalid namespace '{ns}'")
        if kind == "DEF":
            if ns in _DEF_NAMESPACES:
                raise RuntimeError(f"Only a single TORCH_LIBRARY can be used to register the "
                                   f"namespace {ns}; please put all of your definitions in a "
                                   f"single TORCH_LIBRARY block (or use FRAGMENT)")
            _DEF_NAMESPACES[ns] = self
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._defined = []         # qualnames this library defined
        self._undo = []            # (opdef, attribute, previous value) of its registrations
        weakref.finalize(self, Library._cleanup, self._defined, self._undo)

    def define(self, schema, alias_analysis="", *, tags=()):
        """Defines `name(args) -> returns` in this namespace; returns the name."""
        if self.kind == "IMPL":
            raise RuntimeError("define: an IMPL library cannot define operators")
        s = parse_schema(schema)
        if not s.name:
            raise RuntimeError(f"define: the schema '{schema}' needs a name")
        qualname = s.name if "::" in s.name else f"{self.ns}::{s.name}"
        s.name = qualname
        _registry.register(qualname, s)
        self._defined.append(qualname)
        return qualname.split("::")[1]

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False):
        """Registers fn as op_name's kernel for dispatch_key ("CPU", "CompositeImplicitAutograd",
        "CompositeExplicitAutograd" or "" for the default; "Meta" registers a fake kernel)."""
        if with_keyset:
            raise NotImplementedError("Library.impl: with_keyset=True needs dispatch key sets, "
                                      "which ember does not have")
        name = op_name if isinstance(op_name, str) else op_name.name()
        qualname = name if "::" in name else f"{self.ns}::{name}"
        opdef = _registry.lookup(qualname, "Library.impl")
        key = (dispatch_key or "").lower()
        if fn is fallthrough_kernel:
            return
        if key == "meta":
            self._set(opdef, "fake", fn)
        elif key == "autograd":
            raise NotImplementedError("Library.impl: an 'Autograd' kernel is torch's dispatcher "
                                      "internals; use ember.library.register_autograd")
        else:
            kernels = dict(opdef.kernels)
            for t in _device_types(key or "default", "Library.impl"):
                kernels[t] = fn
            self._set(opdef, "kernels", kernels)

    def _set(self, opdef, attr, value):
        self._undo.append((opdef, attr, getattr(opdef, attr)))
        setattr(opdef, attr, value)

    @staticmethod
    def _cleanup(defined, undo):
        for opdef, attr, old in reversed(undo):
            setattr(opdef, attr, old)
        undo.clear()
        for q in defined:
            _registry.unregister(q)
        defined.clear()

    def _destroy(self):
        Library._cleanup(self._defined, self._undo)
        if _DEF_NAMESPACES.get(self.ns) is self:
            del _DEF_NAMESPACES[self.ns]

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})"


def fallthrough_kernel():
    """A kernel that registers nothing (torch's fallthrough: the key is skipped).

    >>> callable(ember.library.fallthrough_kernel)
    True
    """
    raise NotImplementedError("fallthrough_kernel should never be called")


_GLOBAL_FRAGMENTS = {}


def _fragment(qualname):
    ns = qualname.split("::")[0]
    if ns not in _GLOBAL_FRAGMENTS:
        _GLOBAL_FRAGMENTS[ns] = Library(ns, "FRAGMENT")
    return _GLOBAL_FRAGMENTS[ns]


def _qualname(op):
    if isinstance(op, str):
        if "::" not in op:
            raise ValueError(f"expected a qualified operator name 'namespace::name', got '{op}'")
        return op
    if isinstance(op, (CustomOpDef, _registry.OpOverload, _registry.OpOverloadPacket)):
        return op._opdef.qualname
    raise TypeError(f"expected an operator (a 'namespace::name' string, an OpOverload or a "
                    f"CustomOpDef), got {type(op).__name__}")


def define(qualname, schema, *, lib=None, tags=()):
    """Defines the operator `qualname` ("ns::name") with `schema` ("(Tensor x) -> Tensor").

    >>> ember.library.define("doc_def::plus1", "(Tensor x) -> Tensor")
    >>> ember.library.impl("doc_def::plus1", "cpu", lambda x: x + 1)
    >>> ember.ops.doc_def.plus1(ember.zeros(2))
    tensor([1., 1.])
    """
    lib = lib or _fragment(_qualname(qualname))
    ns, name = qualname.split("::")
    lib.define(name + schema if schema.lstrip().startswith("(") else schema)


def impl(qualname, types, func=None, *, lib=None):
    """Registers func as the operator's kernel for device `types` ("cpu", "default"); a
    decorator when func is None. (See `define`'s example.)

    >>> ember.library.impl.__name__
    'impl'
    """
    def register(fn):
        q = _qualname(qualname)
        target = lib or _fragment(q)
        for t in _device_types(types, "impl"):
            target.impl(q, fn, "" if t == "default" else t)
        return fn
    if func is None:
        return register
    register(func)  # torch returns None when func is given


def register_kernel(op, device_types, func=None, *, lib=None):
    """Registers func as the kernel of a custom_op for `device_types` (a decorator when func
    is None).

    >>> ember.library.register_kernel.__name__
    'register_kernel'
    """
    decorator = impl(op, device_types, lib=lib)
    return decorator if func is None else decorator(func)


def register_fake(op, func=None, *, lib=None, _stacklevel=1, allow_override=False):
    """Registers the fake (meta) kernel: the output's metadata from the inputs'. ember keeps it
    for opcheck (a decorator when func is None).

    >>> ember.library.register_fake.__name__
    'register_fake'
    """
    def register(fn):
        q = _qualname(op)
        opdef = _registry.lookup(q, "register_fake")
        if opdef.fake is not None and not allow_override:
            raise RuntimeError(f"register_fake(...): the operator {q} already has a fake impl "
                               f"registered")
        (lib or _fragment(q))._set(opdef, "fake", fn)
        return fn
    return register if func is None else register(func)


impl_abstract = register_fake


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """The operator's backward formula: backward(ctx, *grads) returns one gradient per input
    (None for non-Tensors); setup_context(ctx, inputs, output) saves what it needs.

    >>> ember.library.register_autograd.__name__
    'register_autograd'
    """
    q = _qualname(op)
    opdef = _registry.lookup(q, "register_autograd")
    if any(a.mutated for a in opdef.schema.args):
        raise RuntimeError(f"Cannot register autograd formula for non-functional operator {q} "
                           f"with schema {opdef.schema}. Please create a functional operator "
                           f"and register an autograd formula for that.")
    target = lib or _fragment(q)
    target._set(opdef, "backward", backward)
    target._set(opdef, "setup_context", setup_context)


def register_autocast(op, device_type, cast_inputs, /, *, lib=None):
    """Under autocast on `device_type`, the operator's floating Tensor inputs are cast to
    `cast_inputs` and it runs with autocast off.

    >>> ember.library.register_autocast.__name__
    'register_autocast'
    """
    q = _qualname(op)
    opdef = _registry.lookup(q, "register_autocast")
    if str(device_type) != "cpu":
        raise ValueError(f"register_autocast: unknown device type: {device_type} (ember: 'cpu')")
    (lib or _fragment(q))._set(opdef, "autocast", dict(opdef.autocast, cpu=cast_inputs))


def register_vmap(op, func=None, /, *, lib=None):
    """Registers a vmap rule. ember's vmap calls the function once per slice (Note [vmap by
    calls]), so the operator always sees unbatched inputs and the rule is kept, not needed.

    >>> ember.library.register_vmap.__name__
    'register_vmap'
    """
    def register(fn):
        q = _qualname(op)
        (lib or _fragment(q))._set(_registry.lookup(q, "register_vmap"), "vmap", fn)
        return fn
    return register if func is None else register(func)


def get_kernel(op, dispatch_key):
    """The kernel registered for `dispatch_key` ("CPU" or "" for the default).

    >>> ember.library.get_kernel.__name__
    'get_kernel'
    """
    opdef = _registry.lookup(_qualname(op), "get_kernel")
    key = _device_types(str(dispatch_key).lower() or "default", "get_kernel")[0]
    fn = opdef.kernels.get(key) or opdef.kernels.get("default")
    if fn is None:
        raise RuntimeError(f"get_kernel: {opdef.qualname} has no kernel for {dispatch_key}")
    return fn


class CustomOpDef:
    """What @custom_op returns: calling it runs the operator; register_kernel, register_fake,
    register_autograd, register_autocast and register_vmap add to it.

    >>> @ember.library.custom_op("doc_cop::cube", mutates_args=())
    ... def cube(x: ember.Tensor) -> ember.Tensor:
    ...     return x * x * x
    >>> cube(ember.tensor([2.0]))
    tensor([8.])
    """

    def __init__(self, opdef, fn):
        self._opdef = opdef
        self._init_fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        return self._opdef.call(args, kwargs)

    @property
    def _name(self):
        return self._opdef.qualname

    def register_kernel(self, device_types, fn=None, /):
        return register_kernel(self._opdef.qualname, device_types, fn)

    def register_fake(self, fn, /):
        register_fake(self._opdef.qualname, fn)
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        register_autograd(self._opdef.qualname, backward, setup_context=setup_context)

    def register_autocast(self, device_type, cast_inputs):
        register_autocast(self._opdef.qualname, device_type, cast_inputs)

    def register_vmap(self, func=None, /):
        return register_vmap(self._opdef.qualname, func)

    def __repr__(self):
        return f"<CustomOpDef({self._opdef.qualname})>"


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Wraps a Python function into the operator `name` ("ns::name"); its schema comes from
    the annotations (or `schema`); `mutates_args` names the Tensor arguments it writes to.
    (See CustomOpDef's example.)

    >>> ember.library.custom_op.__name__
    'custom_op'
    """
    if mutates_args != "unknown" and (isinstance(mutates_args, str) or
                                      not hasattr(mutates_args, "__iter__")):
        raise ValueError("custom_op: mutates_args must be an iterable of names or 'unknown'")

    def wrap(func):
        ns, opname = name.split("::")
        text = schema if schema is not None else infer_schema(func, mutates_args=mutates_args)
        s = parse_schema(opname + text if text.lstrip().startswith("(") else text)
        s.name = name
        opdef = _registry.register(name, s)
        opdef.kernels = {t: func for t in _device_types(device_types, "custom_op")}
        return CustomOpDef(opdef, func)
    if "::" not in name:
        raise ValueError(f"custom_op: expected name to be 'namespace::name', got '{name}'")
    return wrap if fn is None else wrap(fn)


def opcheck(op, args, kwargs=None, *, test_utils=("test_schema", "test_autograd_registration",
                                                 "test_faketensor", "test_aot_dispatch_dynamic"),
            raise_exception=True, atol=None, rtol=None):
    """Checks an operator the way torch.library.opcheck does, on ember: test_schema (the
    arguments it does not declare mutated are unchanged), test_autograd_registration (Tensor
    inputs that require grad meet a registered formula), test_faketensor (the fake kernel's
    outputs have the real ones' shapes and dtypes), test_aot_dispatch_dynamic (a call under
    ember.compile, recorded and replayed, equals the eager call). Returns {test: "SUCCESS"}.

    >>> ember.library.opcheck.__name__
    'opcheck'
    """
    from ._library.opcheck import run
    return run(op, args, kwargs or {}, test_utils, raise_exception, atol, rtol)

