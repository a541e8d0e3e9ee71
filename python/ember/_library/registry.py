"""The registry of user-defined operators (ember.library) and how a call to one runs.

Each operator ("mylib::foo") is an OpDef: its schema, its kernels (one for the CPU, or a
default), and what was registered beside them (autograd formula, fake kernel, autocast
rule, vmap rule). `ember.ops.mylib.foo` is its OpOverloadPacket, `.default` its OpOverload;
calling either runs `OpDef.call`:

1. the arguments are bound to the schema and type-checked (torch's messages);
2. under autocast for the CPU with a registered rule, floating Tensor arguments are cast to
   the rule's dtype and the kernel runs with autocast off;
3. when gradients are wanted (grad mode on, a Tensor argument requires grad, the op mutates
   none of its arguments), the kernel runs inside an autograd.Function: its backward is the
   registered formula (setup_context saves what it needs), or, with none registered, one
   that raises torch's "no autograd formula" error when reached. Otherwise the kernel runs
   under no_grad: what it does inside is never recorded (torch runs kernels below autograd);
4. the kernel's outputs are checked: a declared Tensor return must be a Tensor, and no output
   may be (or alias) an input (torch's rule: use a mutating op or return a copy).
"""
import contextlib

__all__ = ["OpDef", "lookup", "register", "OpOverloadPacket", "OpOverload", "OpNamespace"]

_OPS = {}  # "ns::name" -> OpDef


class OpDef:
    def __init__(self, qualname, schema):
        self.qualname = qualname
        self.ns, self.name = qualname.split("::")
        self.schema = schema
        self.kernels = {}          # "cpu" or "default" -> callable
        self.fake = None
        self.backward = None
        self.setup_context = None
        self.autocast = {}         # device type -> dtype
        self.vmap = None
        self.owners = []           # Library objects that registered parts of it
        self._function = None      # the autograd.Function, made on first use

    # ---- the call ---------------------------------------------------------------------
    @property
    def dotted(self):
        return f"{self.ns}.{self.name}.default"

    def kernel(self):
        fn = self.kernels.get("cpu") or self.kernels.get("default")
        if fn is None:
            raise NotImplementedError(
                f"Could not run '{self.qualname}' with arguments from the 'CPU' backend: no "
                f"kernel is registered for it (register one with ember.library.impl or "
                f"register_kernel)")
        return fn

    def call(self, args, kwargs):
        from .. import Tensor, autocast, is_autocast_enabled, is_grad_enabled, no_grad
        bound = self.schema.bind(self.qualname, args, kwargs)
        values = [bound[a.name] for a in self.schema.args]
        # the kernel gets what the caller gave (defaults left to it, as torch's dispatcher)
        given = (len(args), tuple(kwargs))
        dtype = self.autocast.get("cpu")
        if dtype is not None and is_autocast_enabled("cpu"):
            values = [v.to(dtype) if isinstance(v, Tensor) and v.is_floating_point() else v
                      for v in values]
            ctx = autocast("cpu", enabled=False)
        else:
            ctx = contextlib.nullcontext()
        with ctx:
            tensors = [v for v in _flat(values) if isinstance(v, Tensor)]
            mutates = any(a.mutated for a in self.schema.args)
            if not mutates and is_grad_enabled() and any(t.requires_grad for t in tensors):
                out = self._autograd_function().apply(given, *values)
            else:  # the kernel runs below autograd, as torch's dispatcher runs it
                with no_grad():
                    out = self._run(given, values)
        return out

    def _run(self, given, values):
        n_pos, kw_names = given
        by_name = {a.name: v for a, v in zip(self.schema.args, values)}
        args = values[:n_pos]
        kwargs = {k: by_name[k] for k in kw_names}
        out = self.kernel()(*args, **kwargs)
        self._check_outputs(out, by_name)
        return out

    def _check_outputs(self, out, inputs):
        from .. import Tensor
        rets = self.schema.returns
        if not rets:
            if out is not None:
                raise RuntimeError(f"{self.qualname}: the schema returns nothing (-> ()), the "
                                   f"kernel returned {type(out).__name__}")
            return
        outs = list(out) if len(rets) != 1 or rets[0] == "Tensor[]" else [out]
        if len(rets) > 1 and (not isinstance(out, (tuple, list)) or len(out) != len(rets)):
            raise RuntimeError(f"{self.qualname}: the schema returns {len(rets)} values, the "
                               f"kernel returned {out!r:.80}")
        if rets == ["Tensor"] and not isinstance(out, Tensor):
            raise RuntimeError(f"{self.qualname}: the schema returns a Tensor, the kernel "
                               f"returned {type(out).__name__}")
        ins = [t for t in _flat(list(inputs.values())) if isinstance(t, Tensor)]
        for o in outs:
            if isinstance(o, Tensor) and any(_aliases(o, t) for t in ins):
                raise RuntimeError(
                    f"{self.qualname}: The output of this custom operator (1) must not also be "
                    f"an input to this custom operator and (2) may not alias any inputs to this "
                    f"custom operator or other returns. The most common way to trigger this "
                    f"error is if we have y = custom_op(x) and y and x are the same Tensor. "
                    f"Please instead return a clone of the offending output tensor(s) (e.g. "
                    f"return x.clone()) or refactor the custom operator to not return y.")

    # ---- autograd -----------------------------------------------------------------------
    def _autograd_function(self):
        if self._function is None:
            self._function = _make_function(self)
        return self._function


def _make_function(op):
    """An autograd.Function running op's kernel forward and its registered formula backward."""
    from ..autograd import Function
    from .. import Tensor

    def forward(given, *values):
        return op._run(given, list(values))

    def setup_context(ctx, inputs, output):
        inputs = inputs[1:]  # after the call's shape (`given`)
        ctx._n_inputs = len(inputs)
        if op.setup_context is not None:
            op.setup_context(ctx, inputs, output)

    def backward(ctx, *grads):
        if op.backward is None:
            raise RuntimeError(f"Trying to backward through {op.dotted} but no autograd formula "
                               f"was registered. Please use register_autograd to add one.")
        got = op.backward(ctx, *grads)
        got = got if isinstance(got, tuple) else (got,)
        if len(got) != ctx._n_inputs:
            raise RuntimeError(f"{op.qualname}: the backward registered with register_autograd "
                               f"returned {len(got)} gradients, expected one per input "
                               f"({ctx._n_inputs}, None for the non-Tensor ones)")
        return (None,) + tuple(g if isinstance(g, Tensor) or g is None else None for g in got)

    name = f"GeneratedBackwardFor_{op.ns}_{op.name}_default"
    return type(name, (Function,), {"forward": staticmethod(forward),
                                    "setup_context": staticmethod(setup_context),
                                    "backward": staticmethod(backward)})


def _flat(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from v
        else:
            yield v


def _aliases(a, b):
    if a is b:
        return True
    try:
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr() and \
            a.untyped_storage().nbytes() > 0
    except RuntimeError:
        return False


# ---- the registry ---------------------------------------------------------------------
def lookup(qualname, op="ember.library"):
    if "::" not in qualname:
        raise ValueError(f"{op}: expected a qualified name 'namespace::name', got '{qualname}'")
    opdef = _OPS.get(qualname)
    if opdef is None:
        raise RuntimeError(f"{op}: the operator {qualname} does not exist (define it with "
                           f"ember.library.define or custom_op first)")
    return opdef


def register(qualname, schema):
    if qualname in _OPS:
        raise RuntimeError(f"Tried to register an operator ({qualname}) with the same name and "
                           f"overload name multiple times.")
    opdef = _OPS[qualname] = OpDef(qualname, schema)
    return opdef


def unregister(qualname):
    _OPS.pop(qualname, None)


# ---- ember.ops.<namespace>.<name>[.default] -------------------------------------------
class OpOverload:
    """One overload of an operator (`ember.ops.mylib.foo.default`): callable."""

    def __init__(self, opdef):
        self._opdef = opdef

    @property
    def _schema(self):
        return self._opdef.schema

    def name(self):
        return self._opdef.qualname

    @property
    def overloadpacket(self):
        return OpOverloadPacket(self._opdef)

    def __call__(self, *args, **kwargs):
        return self._opdef.call(args, kwargs)

    def __repr__(self):
        return f"<OpOverload(op='{self._opdef.ns}.{self._opdef.name}', overload='default')>"


class OpOverloadPacket:
    """All overloads of an operator (`ember.ops.mylib.foo`): callable (the default one)."""

    def __init__(self, opdef):
        self._opdef = opdef

    @property
    def default(self):
        return OpOverload(self._opdef)

    @property
    def _schema(self):
        return self._opdef.schema

    def overloads(self):
        return ["default"]

    def __call__(self, *args, **kwargs):
        return self._opdef.call(args, kwargs)

    def __getattr__(self, name):
        raise AttributeError(f"The underlying op of '{self._opdef.ns}.{self._opdef.name}' has "
                             f"no overload name '{name}'")

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._opdef.ns}.{self._opdef.name}')>"


class OpNamespace:
    """`ember.ops.<namespace>`: the operators defined under it."""

    def __init__(self, name):
        self.name = name

    def __getattr__(self, op):
        if op.startswith("__"):
            raise AttributeError(op)
        opdef = _OPS.get(f"{self.name}::{op}")
        if opdef is None:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op}'")
        return OpOverloadPacket(opdef)

    def __repr__(self):
        return f"<ember.ops.{self.name}>"
