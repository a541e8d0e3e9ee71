"""Hooks on every module (torch.nn.modules.module.register_module_*_hook): forward pre-hooks,
forward hooks, backward hooks (full or the deprecated kind) and backward pre-hooks, which run
before each module's own, and the registration hooks that see (and may replace) every buffer,
parameter and sub-module as a module files it. The tables are module globals, as torch's;
module.py reads them in its call path (an empty table costs one truth test per call)."""
from collections import OrderedDict

from ._hook_handles import add_hook

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_full_backward_hook", "register_module_buffer_registration_hook",
           "register_module_parameter_registration_hook",
           "register_module_module_registration_hook"]

_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = [None]  # True: full hooks; False: the deprecated kind
_global_buffer_registration_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()
_global_module_registration_hooks = OrderedDict()


def register_module_forward_pre_hook(hook):
    """hook(module, args) -> None or new args, before every module's forward (and before the
    module's own pre-hooks).

    >>> seen = []
    >>> h = ember.nn.modules.module.register_module_forward_pre_hook(
    ...     lambda m, args: seen.append(type(m).__name__))
    >>> _ = ember.nn.ReLU()(ember.ones(2))
    >>> h.remove()
    >>> seen
    ['ReLU']
    """
    return add_hook(_global_forward_pre_hooks, hook, False)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """hook(module, args, output) -> None or a new output (with_kwargs: hook(module, args,
    kwargs, output)), after every module's forward, before the module's own forward hooks.

    >>> h = ember.nn.modules.module.register_module_forward_hook(lambda m, a, out: out * 2)
    >>> ember.nn.Identity()(ember.ones(2))
    tensor([2., 2.])
    >>> h.remove()
    """
    handle = add_hook(_global_forward_hooks, hook, False, _global_forward_hooks_with_kwargs)
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    return handle


def _set_global_backward_kind(full):
    if _global_is_full_backward_hook[0] is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_is_full_backward_hook[0] = full


def register_module_backward_hook(hook):
    """The deprecated global backward hook (as Module.register_backward_hook, on every module).

    >>> h = ember.nn.modules.module.register_module_backward_hook(lambda m, gin, gout: None)
    >>> h.remove()
    """
    _set_global_backward_kind(False)
    return add_hook(_global_backward_hooks, hook, False)


def register_module_full_backward_pre_hook(hook):
    """hook(module, grad_output) -> None or new grad_output, for every module (before the
    module's own backward pre-hooks).

    >>> seen = []
    >>> h = ember.nn.modules.module.register_module_full_backward_pre_hook(
    ...     lambda m, gout: seen.append(gout[0].shape))
    >>> ember.nn.Tanh()(ember.ones(3, requires_grad=True)).sum().backward()
    >>> h.remove()
    >>> seen
    [ember.Size([3])]
    """
    return add_hook(_global_backward_pre_hooks, hook, False)


def register_module_full_backward_hook(hook):
    """hook(module, grad_input, grad_output) -> None or new grad_input, for every module
    (before the module's own full backward hooks).

    >>> seen = []
    >>> h = ember.nn.modules.module.register_module_full_backward_hook(
    ...     lambda m, gin, gout: seen.append(type(m).__name__))
    >>> ember.nn.Tanh()(ember.ones(3, requires_grad=True)).sum().backward()
    >>> h.remove()
    >>> seen
    ['Tanh']
    """
    _set_global_backward_kind(True)
    return add_hook(_global_backward_hooks, hook, False)


def register_module_buffer_registration_hook(hook):
    """hook(module, name, buffer) -> None or a new buffer, whenever a module registers one.

    >>> h = ember.nn.modules.module.register_module_buffer_registration_hook(
    ...     lambda m, name, b: b * 0 if b is not None else None)
    >>> ember.nn.BatchNorm1d(2).running_var
    tensor([0., 0.])
    >>> h.remove()
    """
    return add_hook(_global_buffer_registration_hooks, hook, False)


def register_module_parameter_registration_hook(hook):
    """hook(module, name, param) -> None or a new Parameter, whenever a module registers one.

    >>> names = []
    >>> h = ember.nn.modules.module.register_module_parameter_registration_hook(
    ...     lambda m, name, p: names.append(name))
    >>> _ = ember.nn.Linear(2, 3)
    >>> h.remove()
    >>> names
    ['weight', 'bias']
    """
    return add_hook(_global_parameter_registration_hooks, hook, False)


def register_module_module_registration_hook(hook):
    """hook(module, name, submodule) -> None or a new module, whenever a module files a child.

    >>> names = []
    >>> h = ember.nn.modules.module.register_module_module_registration_hook(
    ...     lambda m, name, sub: names.append(name))
    >>> _ = ember.nn.Sequential(ember.nn.ReLU(), ember.nn.Tanh())
    >>> h.remove()
    >>> names
    ['0', '1']
    """
    return add_hook(_global_module_registration_hooks, hook, False)


def registered(table, module, name, value):
    """value after the registration hooks of `table` (each may return a replacement)."""
    for hook in list(table.values()):
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value
