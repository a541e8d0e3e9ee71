"""nn.Module: the base class of every layer, with torch.nn.Module's API.

A module keeps its Parameters, buffers and sub-modules in three ordered dicts
(_parameters, _buffers, _modules); __setattr__ files an assigned value into the right one
and __getattr__ finds it there, as in PyTorch, so names, orders, state_dict keys and
repr() come out the same. The dicts hold the very Parameter objects the user assigned:
ember's ops return new Python wrappers, so a parameter is only ever reached through them.
"""
import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..._tensor import Tensor
from ..._dtype import (dtype as _dtype_cls, float32, float64, PlannedDtype, check_supported, bfloat16,
                       float16, from_python_type)
from ..._grad_mode import no_grad
from ..._zero_grad import zero_grads
from ..parameter import Parameter, Buffer
from . import _global_hooks as _gh
from ._hook_handles import add_hook
from ._module_hooks import ModuleHooks
from ._global_hooks import (  # noqa: F401  (torch.nn.modules.module's names)
    _global_backward_hooks as _gb, _global_backward_pre_hooks as _gbp,
    _global_forward_hooks as _gf, _global_forward_pre_hooks as _gfp,
    register_module_backward_hook, register_module_buffer_registration_hook,
    register_module_forward_hook, register_module_forward_pre_hook,
    register_module_full_backward_hook, register_module_full_backward_pre_hook,
    register_module_module_registration_hook, register_module_parameter_registration_hook)

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_full_backward_hook", "register_module_buffer_registration_hook",
           "register_module_parameter_registration_hook",
           "register_module_module_registration_hook"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


def _typename(obj):
    """torch.typename: 'ember.FloatTensor' for a tensor, 'pkg.Class' or 'int' otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = obj.__class__.__module__ or "", obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _addindent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(num_spaces * " ") + line if line.strip() else "" for line in s]
    return first + "\n" + "\n".join(s)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def parse_to(*args, **kwargs):
    """(device, dtype, non_blocking, memory_format) of Tensor.to / Module.to's arguments, None
    where not given (torch._C._nn._parse_to, which Lightning calls): a dtype, a device (or its
    string), a tensor (its device and dtype), a bool (non_blocking), or keywords."""
    dtype, device = from_python_type(kwargs.pop("dtype", None)), kwargs.pop("device", None)
    non_blocking = bool(kwargs.pop("non_blocking", False))
    fmt = kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, (_dtype_cls, PlannedDtype)) or from_python_type(a) is not a:
            dtype = from_python_type(a)  # bool, int, ...: Note [Python types as dtypes]
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, bool):  # non_blocking given positionally
            non_blocking = a
        elif a is not None:
            device = a
    if device is not None:
        from ..._device import device as _device_t
        device = _device_t(device)
    return device, dtype, non_blocking, fmt


class Module(ModuleHooks):
    """Base class for all neural network modules. Subclasses assign their layers and
    Parameters as attributes in __init__ (after super().__init__()) and define forward.

    >>> class Net(ember.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = ember.nn.Linear(2, 1)
    ...     def forward(self, x):
    ...         return self.fc(x)
    >>> [name for name, _ in Net().named_parameters()]
    ['fc.weight', 'fc.bias']
    """

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        # object.__setattr__ skips Module.__setattr__, which needs these dicts to exist.
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_is_full_backward_hook"] = None  # True: full hooks; False: register_backward_hook's
        d["_state_dict_hooks"] = OrderedDict()
        d["_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_post_hooks"] = OrderedDict()
        d["_modules"] = {}

    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    # ---- calling --------------------------------------------------------------------
    _compiled_call_impl = None  # set by compile()

    def __call__(self, *args, **kwargs):
        if self._compiled_call_impl is None and not (
                self._forward_hooks or self._forward_pre_hooks or self._backward_hooks
                or self._backward_pre_hooks or _gfp or _gf or _gb or _gbp):
            return self.forward(*args, **kwargs)
        if self._compiled_call_impl is not None:
            return self._compiled_call_impl(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    def _call_impl(self, *args, **kwargs):
        """The call without compile(): forward with the module's hooks."""
        if self._backward_hooks or self._backward_pre_hooks or _gb or _gbp:
            from ._backward_hooks import call_with_backward_hooks
            return call_with_backward_hooks(
                self, args, kwargs, lambda a, k: self._call_with_hooks(a, k))
        return self._call_with_hooks(args, kwargs)

    def compile(self, *args, **kwargs):
        """Calls of this module run through ember.compile(self._call_impl, *args, **kwargs)
        from now on (in place; torch.nn.Module.compile)."""
        from ..._compile import compile as _compile
        self.__dict__["_compiled_call_impl"] = _compile(self._call_impl, *args, **kwargs)

    # ---- registration ---------------------------------------------------------------
    def _check_new_name(self, what, name, table):
        if not isinstance(name, str):
            raise TypeError(f"{what} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{what} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{what} name can\'t be empty string ""')
        if hasattr(self, name) and name not in table:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name, tensor, persistent=True):
        """Adds a tensor that is state but not a parameter (e.g. BatchNorm's running_mean);
        persistent=False keeps it out of state_dict()."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_new_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(ember Tensor or None required)")
        self._buffers[name] = _gh.registered(_gh._global_buffer_registration_hooks, self, name,
                                             tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Adds a Parameter (or None) under `name`."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_new_name("parameter", name, self._parameters)
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(ember.nn.Parameter or None required)")
        elif param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' "
                             "as a function of another Tensor, compute the value in "
                             "the forward() method.")
        else:
            self._parameters[name] = _gh.registered(_gh._global_parameter_registration_hooks,
                                                    self, name, param)

    def add_module(self, name, module):
        """Adds a child module under `name` (None reserves the name)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = _gh.registered(_gh._global_module_registration_hooks, self, name,
                                             module)

    def register_module(self, name, module):
        self.add_module(name, module)

    def __getattr__(self, name):
        # Only called when normal lookup fails: parameters, buffers and modules live in dicts.
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_buffers" in d and name in d["_buffers"]:
            return d["_buffers"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__

        def remove_from(*tables):
            for t in tables:
                if name in t:
                    if isinstance(t, dict):
                        del t[name]
                    else:
                        t.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(ember.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = _gh.registered(_gh._global_module_registration_hooks, self, name, value)
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(ember.nn.Module or None expected)")
            modules[name] = _gh.registered(_gh._global_module_registration_hooks, self, name, value)
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(ember.nn.Buffer, ember.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = (dir(self.__class__) + list(self.__dict__) + list(self._parameters)
                + list(self._modules) + list(self._buffers))
        return sorted(k for k in keys if not k[0].isdigit())

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)  # a compiled call is rebuilt, not pickled
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_backward_hooks", "_backward_pre_hooks"):  # pickled by older versions
            self.__dict__.setdefault(name, OrderedDict())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    # ---- lookup by dotted path ------------------------------------------------------
    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Puts `module` at the dotted path `target` (its parent must exist; strict=True also
        requires the last name to exist already)."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def _attribute_owner(self, target):
        """(the submodule holding what the dotted `target` names, the attribute's name), as
        get_parameter and get_buffer look it up: AttributeError when there is none."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        return mod, name

    def get_parameter(self, target):
        mod, name = self._attribute_owner(target)
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        mod, name = self._attribute_owner(target)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    # ---- iteration ------------------------------------------------------------------
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()  # ids: a Tensor's == is elementwise, so tensors can't be compared
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate=True):
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name,
                                            remove_duplicate)

    # ---- modes and gradients --------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        zero_grads(self.parameters(), set_to_none)

    def apply(self, fn):
        """Calls fn on every sub-module (children first) and then on self; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- dtype and device conversion ------------------------------------------------
    def _apply(self, fn, recurse=True):
        """Replaces every parameter's data by fn(param) in place (param.data = ...), so the
        Parameter objects an optimizer holds stay valid; buffers are replaced."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            grad = param.grad
            if not applied._is_same(param):
                param.data = applied
            if grad is not None:
                with no_grad():
                    grad_applied = fn(grad)
                if not grad_applied._is_same(grad):
                    param.grad = grad_applied.requires_grad_(grad.requires_grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """module.to(dtype), .to('cpu'), .to(tensor), .to(device, dtype),
        .to(memory_format=ember.channels_last): converts floating point parameters and buffers
        in place (integer ones keep their dtype); a memory format lays out the 4-d and 5-d ones."""
        device, dtype, _, fmt = parse_to(*args, **kwargs)
        check_supported(dtype, "Module.to")  # before anything moves: the module stays whole
        to_meta = False
        if device is not None:
            # As torch's CPU build: the device is parsed first; moving a tensor there fails
            # (cuda: AssertionError), so a module without parameters or buffers moves fine.
            from ..._device import device as _device_t, tensor_to_device, META_COPY_OUT
            device = _device_t(device)
            tensors = list(itertools.chain(self.parameters(), self.buffers()))
            if tensors:
                tensor_to_device(device, "Module.to")
            to_meta = device.type == "meta"  # Note [Meta tensors]
            if not to_meta and any(t._is_meta() for t in tensors):
                raise NotImplementedError(
                    f"{META_COPY_OUT} Please use torch.nn.Module.to_empty() instead of "
                    "torch.nn.Module.to() when moving module from meta to a different device.")
        if dtype is None and fmt is None and not to_meta:
            return self
        if dtype is not None and dtype not in (float32, float64, float16, bfloat16):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                            f"desired dtype={dtype}")

        def convert(t):
            if dtype is not None and t.is_floating_point():
                t = t.to(dtype)
            if to_meta:
                t = t.to("meta")
            return t.to(memory_format=fmt) if fmt is not None and t.dim() in (4, 5) else t
        return self._apply(convert)

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def cpu(self):
        return self

    def cuda(self, device=None):
        """Tensor.cuda() on each parameter and buffer: as torch's CPU build, the first one raises
        (AssertionError('Torch not compiled with CUDA enabled')); a module without any is kept."""
        return self._apply(lambda t: t.cuda(device))

    def xpu(self, device=None):
        """Tensor.xpu() on each parameter and buffer: raises as torch's CPU build does."""
        return self._apply(lambda t: t.xpu(device))

    def mtia(self, device=None):
        """Tensor.mtia() on each parameter and buffer: raises as torch's CPU build does."""
        return self._apply(lambda t: t.mtia(device))

    def to_empty(self, *, device, recurse=True):
        """Parameters and buffers replaced by uninitialized tensors of the same shapes and dtypes
        on `device` (the CPU), e.g. after building a module with skip_init."""
        from ..._device import device as _device_t, tensor_to_device
        target = _device_t(device) if device is not None else None
        from ... import empty_like

        def fresh(t):
            if target is not None:
                tensor_to_device(target, "Module.to_empty")
            return empty_like(t, device=target if target is not None else "cpu")
        return self._apply(fresh, recurse=recurse)

    def share_memory(self):
        """Moves parameters, their gradients and buffers into shared memory in place
        (Tensor.share_memory_), so processes given this module share them (Hogwild)."""
        return self._apply(lambda t: t.share_memory_())

    # ---- saving and loading ---------------------------------------------------------
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of the parameters and persistent buffers, keyed like PyTorch's
        ('0.weight', 'bn.running_mean', ...), holding detached aliases (not copies)."""
        if args:
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                destination = result
        return destination

    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called.")

    def register_state_dict_pre_hook(self, hook):
        return add_hook(self._state_dict_pre_hooks, hook, False)

    def register_state_dict_post_hook(self, hook):
        return add_hook(self._state_dict_hooks, hook, False)

    # torch's private forms, which libraries call (gpytorch's Module registers its
    # shape-ignoring load hook so): the load pre-hook without the module unless with_module
    def _register_state_dict_hook(self, hook):
        return add_hook(self._state_dict_hooks, hook, False)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        return add_hook(self._load_state_dict_pre_hooks,
                        (lambda *a: hook(self, *a)) if with_module else hook, False)

    def register_load_state_dict_pre_hook(self, hook):
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        return add_hook(self._load_state_dict_post_hooks, hook, False)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(),
                                                        persistent.items()) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            self._load_one(name, key, param, state_dict[key], assign, error_msgs)

        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def _load_one(self, name, key, param, value, assign, error_msgs):
        if not isinstance(value, Tensor):
            error_msgs.append(f'While copying the parameter named "{key}", expected ember.Tensor '
                              f"or Tensor-like object from checkpoint but received {type(value)}")
            return
        if param.dim() == 0 and value.dim() == 1 and value.shape[0] == 1:
            value = value[0]  # PyTorch 0.3 checkpoints stored scalars as shape (1,)
        if value.shape != param.shape:
            error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                              f"{_size_str(value.shape)} from checkpoint, the shape in current "
                              f"model is {_size_str(param.shape)}.")
            return
        try:
            with no_grad():
                if assign:
                    if isinstance(param, Parameter) and not isinstance(value, Parameter):
                        value = Parameter(value, requires_grad=param.requires_grad)
                    elif isinstance(param, Parameter):
                        value.requires_grad_(param.requires_grad)
                    setattr(self, name, value)
                else:
                    param.copy_(value)
        except Exception as ex:
            error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in '
                              f"the model are {_size_str(param.size())} and whose dimensions in "
                              f"the checkpoint are {_size_str(value.size())}, an exception "
                              f"occurred : {ex.args}.")

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies parameters and buffers from state_dict into this module, in place and
        under no_grad. strict: the keys must match state_dict()'s exactly."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {k: v for k, v in local_state_dict.items()
                                   if k.startswith(child_prefix)}
                    load(child, child_state, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError("Hooks registered with "
                                         "``register_load_state_dict_post_hook`` are not expected "
                                         "to return new values")

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ---- printing -------------------------------------------------------------------
    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        """The one-line description inside the parentheses; layers override it."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = ["(" + key + "): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _size_str(shape):
    return "ember.Size(" + str(list(shape)) + ")"
