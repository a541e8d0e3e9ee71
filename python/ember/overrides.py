"""torch.overrides: the __torch_function__ protocol (Tensor subclasses, duck types, modes).

torch checks every argument of every call for __torch_function__. ember's op functions are
direct C++ entry points, and a permanent Python check would cost each eager op what ember
exists to save, so the protocol rides on fx's routing (fx/_routing.py): the public functions
of ember's namespaces are swapped for routers only while something can override them -- a
TorchFunctionMode is entered, or a Tensor subclass has been defined (from then on, as torch
always does). With neither, `a + b` runs the C++ entry point directly and pays nothing.

Tensor methods: a subclass gets its own Python wrappers of Tensor's methods (set on the
subclass at class creation, so plain Tensors keep the C++ methods); while a mode is entered,
Tensor's own methods are wrapped too. A non-Tensor duck type (a class with a
`__torch_function__` classmethod) is honoured whenever routing is on; with no mode and no
Tensor subclass defined, ember's C++ functions reject it with their TypeError.
"""
import functools
import threading
import types as _pytypes

from . import _C
from .fx import _routing

__all__ = ["get_ignored_functions", "get_overridable_functions", "get_testing_overrides",
           "handle_torch_function", "has_torch_function", "has_torch_function_unary",
           "has_torch_function_variadic", "is_tensor_like", "is_tensor_method_or_property",
           "resolve_name", "wrap_torch_function", "TorchFunctionMode",
           "enable_reentrant_dispatch"]

Tensor = _C.Tensor
_state = threading.local()


def _modes():
    s = getattr(_state, "modes", None)
    if s is None:
        s = _state.modes = []
    return s


def _subclass_disabled():
    return getattr(_state, "sub_off", 0) > 0


def _all_disabled():
    return getattr(_state, "all_off", 0) > 0


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """The __torch_function__ that means "no override" (torch._C._disabled_torch_function_impl)."""
    return func(*args, **(kwargs or {}))


def _overrides(obj):
    """Whether obj takes part in dispatch: its type defines __torch_function__ and is not a
    plain Tensor (nor a subclass that disabled it)."""
    t = type(obj)
    if t is Tensor:
        return False
    tf = getattr(t, "__torch_function__", None)
    if tf is None or _is_pytorch_tensor_type(t):
        return False
    return getattr(tf, "__func__", tf) is not _disabled_torch_function_impl


def _is_pytorch_tensor_type(t):
    """A tensor of the real PyTorch (imported beside ember: from_dlpack/from_numpy take them).
    Its __torch_function__ is PyTorch's protocol, not ember's: dispatching to it would call
    back into ember forever."""
    return any(c.__name__ == "TensorBase" and c.__module__ == "torch._C" for c in t.__mro__)


def _overloaded_args(relevant, plain_tensors=False):
    """The arguments whose types override, one per type, subclasses before their bases,
    otherwise left to right (torch's _get_overloaded_args). plain_tensors: count exact Tensors
    too, as torch's Python-level functions (torch.nn.functional.relu & co.) do."""
    if _subclass_disabled():
        return []
    out, types = [], []
    for arg in relevant:
        if not (_overrides(arg) or (plain_tensors and type(arg) is Tensor)) or type(arg) in types:
            continue
        t = type(arg)
        index = len(out)
        for i, other in enumerate(out):
            if issubclass(t, type(other)):
                index = i
                break
        out.insert(index, arg)
        types.insert(index, t)
    return out


_NESTS = (list, tuple, dict)


def _flat(args, kwargs):
    """The leaves of args and kwargs (through lists, tuples and dicts)."""
    if not kwargs and not any(isinstance(a, _NESTS) for a in args):
        return args  # flat positional arguments: the common case
    stack, found = [args, kwargs], []
    while stack:
        a = stack.pop()
        if isinstance(a, (list, tuple)):
            stack.extend(reversed(a))
        elif isinstance(a, dict):
            stack.extend(reversed(list(a.values())))
        else:
            found.append(a)
    return found


def has_torch_function(relevant_args):
    """Whether any of relevant_args overrides (or a mode is active)."""
    if _all_disabled():
        return False
    return bool(_modes()) or any(_overrides(a) for a in relevant_args)


def has_torch_function_unary(obj):
    return has_torch_function((obj,))


def has_torch_function_variadic(*args):
    return has_torch_function(args)


def _func_name(func):
    return getattr(func, "__name__", repr(func))


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls the innermost mode's, then each overriding argument's __torch_function__ until one
    returns something other than NotImplemented; TypeError when all of them do."""
    return _handle(public_api, relevant_args, args, kwargs, None)


def _handle(public_api, relevant_args, args, kwargs, how):
    overloaded = _overloaded_args(relevant_args, how is None or _python_level(public_api))
    types = tuple(type(a) for a in overloaded)
    modes = _modes()
    if modes and not _all_disabled():
        mode = modes.pop()  # the mode's own calls see the modes outside it
        try:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        finally:
            modes.append(mode)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        result = arg.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    if how is _CALL:
        handlers = "".join(f"  - tensor subclass {t}\n" for t in types)
        if modes and not _all_disabled():
            handlers += f"  - mode object {modes[-1]}\n"
        raise TypeError(f"Multiple dispatch failed for '{_qualname(public_api)}'; all "
                        f"__torch_function__ handlers returned NotImplemented:\n\n{handlers}\n"
                        "For more information, try re-running with TORCH_LOGS=not_implemented")
    msg = (f"no implementation found for '{_qualname(public_api)}' on types that implement "
           f"__torch_function__: {list(types)}")
    if modes and not _all_disabled():
        msg += f" nor in mode {modes[-1]}"
    raise TypeError(msg)


def _python_level(func):
    """Whether torch implements func in Python (torch.nn.functional's own functions)."""
    orig = getattr(func, "__fx_orig__", func)
    return type(orig) is _pytypes.FunctionType and \
        getattr(orig, "__module__", "").startswith("ember.nn.functional")


def _qualname(func):
    name = resolve_name(func)
    if name is not None:
        return name
    return f"{getattr(func, '__module__', None) or 'torch'}.{_func_name(func)}"


_CALL = object()  # dispatch from a call of an ember function or method (torch's C++ message)


_PLAIN = {Tensor, int, float, bool, complex, str, type(None)}  # + nn.Parameter & co. (below)


def dispatch(public, func, args, kwargs, _how=_CALL):
    """What a router runs: func unless a mode or an argument overrides public (the name the
    user called, which the overrides receive and may call again)."""
    if not _mode_users[0] and not kwargs:  # the common case: plain Tensors and numbers
        for a in args:
            if type(a) not in _PLAIN:
                break
        else:
            return func(*args)
    st = _state.__dict__
    modes = st.get("modes")
    if st.get("all_off") or (not modes and st.get("sub_off")):
        return func(*args, **kwargs)
    relevant = _flat(args, kwargs)
    if not modes and not any(_overrides(a) for a in relevant) or _never_dispatches(func):
        return func(*args, **kwargs)
    return _handle(public, relevant, args, kwargs, _how)


# ---- Tensor's default __torch_function__: run with subclasses off, wrap the results ---------

def _convert(ret, cls):
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return _C._as_subclass(cls, ret)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        return type(ret)(*items) if hasattr(ret, "_fields") else type(ret)(items)
    return ret


def get_default_nowrap_functions():
    """Functions whose results the default __torch_function__ leaves unwrapped."""
    return set(_NOWRAP)


_NOWRAP = frozenset({Tensor.__dict__.get("grad"), Tensor.__dict__.get("_base")} - {None})


def _tensor_torch_function(cls, func, types, args=(), kwargs=None):
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        ret = func(*args, **(kwargs or {}))
        if func in _NOWRAP:
            return ret
        return _convert(ret, cls)


class DisableTorchFunctionSubclass:
    """Within the block, arguments' __torch_function__ are ignored (modes still apply)."""

    def __enter__(self):
        _state.sub_off = getattr(_state, "sub_off", 0) + 1
        return self

    def __exit__(self, *exc):
        _state.sub_off -= 1


class DisableTorchFunction:
    """Within the block, neither arguments' __torch_function__ nor modes apply."""

    def __enter__(self):
        _state.all_off = getattr(_state, "all_off", 0) + 1
        _state.sub_off = getattr(_state, "sub_off", 0) + 1
        return self

    def __exit__(self, *exc):
        _state.all_off -= 1
        _state.sub_off -= 1


# ---- Tensor methods: wrappers that dispatch (set on subclasses; on Tensor during a mode) -----

def _method_names():
    skip = {"__init__", "__new__", "__init_subclass__", "__torch_function__", "__repr__",
            "__class__", "__getattribute__", "__setattr__", "__delattr__", "__dict__",
            "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__", "__sizeof__",
            "__subclasshook__", "__dir__", "__format__", "__hash__", "__doc__", "__module__",
            "__weakref__", "__bool__", "__index__", "__int__", "__float__", "__len__",
            "__iter__", "__array__", "__array_priority__", "__deepcopy__", "__copy__",
            "as_subclass", "data_ptr", "dim", "size", "numel", "stride", "is_contiguous",
            "requires_grad_", "untyped_storage", "_typed_storage", "storage"}
    names = []
    for name in dir(Tensor):
        if name in skip or (name.startswith("_") and not name.startswith("__")):
            continue
        if callable(getattr(Tensor, name, None)) and not isinstance(getattr(Tensor, name), type):
            names.append(name)
    return names


def _method_router(orig, methods, public_name):
    @functools.wraps(orig)
    def method(*args, **kwargs):
        return dispatch(methods.get(public_name, method), orig, args, kwargs, _CALL)
    return method


_METHODS = None


def _methods():
    """{name: wrapper} for Tensor's methods; `a * b` dispatches as Tensor.mul, as torch's."""
    global _METHODS
    if _METHODS is None:
        m = {}
        for n in _method_names():
            public = n[2:-2] if n.startswith("__") and n[2:-2] in dir(Tensor) else n
            m[n] = _method_router(getattr(Tensor, n), m, public)
        _METHODS = m
    return _METHODS


def _init_subclass(cls, **kwargs):
    """A Tensor subclass: Tensor's methods dispatch on it, and routing goes on for good -- unless
    its __torch_function__ is the disabled one (a subclass of nn.Parameter, as FSDP's
    FlatParameter: as in torch it takes no part, and eager ops keep their speed)."""
    tf = cls.__dict__.get("__torch_function__", getattr(cls, "__torch_function__", None))
    if getattr(tf, "__func__", tf) is _disabled_torch_function_impl:
        _PLAIN.add(cls)
        return
    for name, wrapper in _methods().items():
        if name not in cls.__dict__:
            # a subclass of a subclass inherits the wrappers already
            if any(name in c.__dict__ for c in cls.__mro__[1:-1] if c is not Tensor):
                continue
            setattr(cls, name, wrapper)
    _routing.torch_function = dispatch
    _routing.keep_routing()


def _make_subclass(cls, data, require_grad=False, **_ignored):
    """Tensor._make_subclass(cls, data, require_grad=False): data's storage as a new leaf of
    Tensor subclass cls (no graph history), requires_grad as asked (what nn.Parameter-style
    subclasses build themselves with in torch)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    if not isinstance(data, Tensor):
        raise TypeError(f"_make_subclass(): argument 'data' (position 2) must be Tensor, "
                        f"not {type(data).__name__}")
    return _C._as_subclass(cls, data.detach()).requires_grad_(bool(require_grad))


Tensor._make_subclass = staticmethod(_make_subclass)
Tensor.__torch_function__ = classmethod(_tensor_torch_function)
Tensor.__init_subclass__ = classmethod(_init_subclass)
_C._disabled_torch_function_impl = _disabled_torch_function_impl


def _existing_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _existing_subclasses(sub)


# ember's own subclasses (nn.Parameter, nn.Buffer and their Uninitialized forms) predate this
# module: as torch's, they take no part (ops on a Parameter return plain Tensors).
for _sub in list(_existing_subclasses(Tensor)):
    _sub.__torch_function__ = _disabled_torch_function_impl
    _PLAIN.add(_sub)
_C.DisableTorchFunctionSubclass = DisableTorchFunctionSubclass
_C.DisableTorchFunction = DisableTorchFunction


# ---- modes ---------------------------------------------------------------------------------

class TorchFunctionMode:
    """Overrides every ember function (and Tensor method) called inside `with mode:`; modes
    nest, the innermost first, and a mode's own calls see only the modes outside it."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError(f"{type(self).__name__} must define __torch_function__")

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, *exc):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        mode = cls(*args, **kwargs)
        _push_mode(mode)
        return mode


_method_patcher = None


def _push_mode(mode):
    global _method_patcher
    _routing.torch_function = dispatch
    _routing.acquire()
    with _routing._lock:
        if _method_patcher is None:
            p = _routing.Patcher()
            for name, wrapper in _methods().items():
                p.patch_method(Tensor, name, wrapper)
            _method_patcher = p
    _modes().append(mode)
    _mode_users[0] += 1


_mode_users = [0]


def _pop_mode():
    global _method_patcher
    mode = _modes().pop()
    with _routing._lock:
        _mode_users[0] -= 1
        if _mode_users[0] == 0 and _method_patcher is not None:
            p, _method_patcher = _method_patcher, None
            p.__exit__()
    _routing.release()
    return mode


def _get_current_mode():
    m = _modes()
    return m[-1] if m else None


def _len_torch_function_stack():
    return len(_modes())


def enable_reentrant_dispatch():
    """A no-op context in ember (no dispatcher below Python to re-enter)."""
    import contextlib
    return contextlib.nullcontext()


# ---- introspection -------------------------------------------------------------------------

def is_tensor_like(inp):
    """Whether inp is a Tensor or its type defines __torch_function__."""
    return type(inp) is Tensor or hasattr(type(inp), "__torch_function__")


def is_tensor_method_or_property(func):
    """Whether func is a method or property of Tensor (not a torch.* function)."""
    return func in _tensor_members() or getattr(func, "__name__", None) == "__get__"


def _tensor_members():
    return {v for k in dir(Tensor) for v in [Tensor.__dict__.get(k)] if v is not None and
            not isinstance(v, (type, str, int, classmethod))}


def resolve_name(f):
    """The dotted name torch would print for f (torch.add, torch.Tensor.add), or None."""
    from . import nn
    if f in _tensor_members() or f in set(_methods().values()):
        return f"torch.Tensor.{f.__name__}"
    for mod, prefix in ((_torch(), "torch"), (nn.functional, "torch.nn.functional")):
        name = getattr(f, "__name__", None)
        if name and getattr(mod, name, None) is f:
            return f"{prefix}.{name}"
    return None


def _torch():
    import ember
    return ember


# The public functions torch.overrides.get_ignored_functions() names that ember has (the
# constructors, settings and introspection that torch does not list as overridable).
_IGNORED_NAMES = (
    "arange", "are_deterministic_algorithms_enabled", "as_strided", "as_tensor", "asarray",
    "autocast_decrement_nesting", "autocast_increment_nesting", "bartlett_window",
    "blackman_window", "broadcast_shapes", "can_cast", "clear_autocast_cache", "compile", "cond",
    "empty", "empty_permuted", "empty_strided", "enable_grad", "eye", "fill", "finfo",
    "from_file", "from_numpy", "frombuffer", "full", "get_autocast_cpu_dtype",
    "get_autocast_dtype", "get_default_device", "get_default_dtype",
    "get_deterministic_debug_mode", "get_device_module", "get_float32_matmul_precision",
    "get_num_interop_threads", "get_num_threads", "get_rng_state", "hamming_window",
    "hann_window", "iinfo", "inference_mode", "init_num_threads", "initial_seed",
    "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled", "is_autocast_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "is_grad_enabled",
    "is_inference_mode_enabled", "is_storage", "is_tensor", "is_warn_always_enabled",
    "kaiser_window", "linspace", "load", "logspace", "manual_seed", "no_grad", "normal", "ones",
    "promote_types", "rand", "rand_like", "randint", "randint_like", "randn", "randn_like",
    "randperm", "range", "result_type", "save", "scalar_tensor", "seed", "set_anomaly_enabled",
    "set_autocast_cache_enabled", "set_autocast_cpu_dtype", "set_autocast_cpu_enabled",
    "set_autocast_dtype", "set_autocast_enabled", "set_default_device", "set_default_dtype",
    "set_default_tensor_type", "set_deterministic_debug_mode", "set_float32_matmul_precision",
    "set_flush_denormal", "set_grad_enabled", "set_num_interop_threads", "set_num_threads",
    "set_printoptions", "set_rng_state", "set_warn_always", "sparse_compressed_tensor",
    "sparse_coo_tensor", "sparse_csc_tensor", "sparse_csr_tensor", "tensor",
    "thread_safe_generator", "tril_indices", "triu_indices", "typename",
    "use_deterministic_algorithms", "vander", "vmap", "zeros")
_IGNORED_F_NAMES = ("assert_int_or_pair", "grouped_mm", "hardsigmoid", "hardswish", "sigmoid",
                    "tanh", "upsample", "upsample_bilinear", "upsample_nearest")


def _unrouted(f):
    return getattr(f, "__fx_orig__", f)


def get_ignored_functions():
    """Public ember functions that never dispatch: those of torch's list that ember has."""
    from . import nn
    e = _torch()
    return ({_unrouted(getattr(e, n)) for n in _IGNORED_NAMES if hasattr(e, n)} |
            {_unrouted(getattr(nn.functional, n)) for n in _IGNORED_F_NAMES
             if hasattr(nn.functional, n)})


# Of those, the ones that take tensors and still never consult __torch_function__ in torch
# (the rest of its list does dispatch there: result_type, rand_like, normal, ...). linear_operator's
# LinearOperator answers any function it does not handle with NotImplementedError, and asks
# `torch.is_tensor(op)` itself.
_NEVER_DISPATCH = ("is_tensor", "is_storage", "as_tensor", "asarray")
_NEVER_IDS = None


def _never_dispatches(func):
    global _NEVER_IDS
    if _NEVER_IDS is None:
        e = _torch()
        _NEVER_IDS = frozenset(id(_unrouted(getattr(e, n))) for n in _NEVER_DISPATCH)
    return id(func) in _NEVER_IDS


def get_overridable_functions():
    """{namespace: [functions]} for ember, ember.nn.functional and Tensor."""
    from . import nn
    ignored = get_ignored_functions()
    out = {}
    for mod in (_torch(), nn.functional):
        fns = [v for k, v in vars(mod).items() if not k.startswith("_") and
               (_routing._routable(v) or getattr(v, "__fx_router__", False)) and
               v not in ignored]
        out[mod] = fns
    out[Tensor] = [getattr(Tensor, n) for n in _method_names()]
    return out


def get_testing_overrides():
    """{function: a dummy with the function's signature returning -1} for every overridable
    function (what torch's tests use to check that each one dispatches)."""
    import inspect
    out = {}
    for fns in get_overridable_functions().values():
        for f in fns:
            try:
                sig = inspect.signature(f)
            except (TypeError, ValueError):
                sig = None
            out[f] = _dummy(sig)
    return out


def _dummy(sig):
    def dummy(*args, **kwargs):
        if sig is not None:
            sig.bind(*args, **kwargs)
        return -1
    if sig is not None:
        dummy.__signature__ = sig
    return dummy


def wrap_torch_function(dispatcher):
    """Decorator: the function dispatches on the arguments dispatcher(*args, **kwargs) returns."""
    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return _handle(wrapped, relevant, args, kwargs, None)
            return func(*args, **kwargs)
        return wrapped
    return inner
