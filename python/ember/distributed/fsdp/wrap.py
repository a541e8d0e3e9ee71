"""Auto-wrap policies, as torch.distributed.fsdp.wrap: which submodules become FSDP units of
their own (each gathers and frees its parameters on its own, so a big model is never whole).

    policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block})
    model = FSDP(model, auto_wrap_policy=policy)       # one unit per Block, the rest in the root

A policy is called as `policy(module=m, recurse=True, nonwrapped_numel=n)` (may the walk go
into m's children?) and then `recurse=False` (should m itself become a unit?), where n counts
m's parameters not yet in a unit. Walk: `_recursive_wrap`, children first, as torch's.
"""
import contextlib

from ...nn.modules.container import ModuleDict, ModuleList
from ...nn.modules.activation_attention import MultiheadAttention

__all__ = ["always_wrap_policy", "lambda_auto_wrap_policy", "transformer_auto_wrap_policy",
           "size_based_auto_wrap_policy", "ModuleWrapPolicy", "CustomPolicy", "enable_wrap",
           "wrap"]


def always_wrap_policy(module, recurse, *args, **kwargs):
    """Every module becomes a unit.

    >>> ember.distributed.fsdp.wrap.always_wrap_policy(ember.nn.Linear(2, 2), recurse=False)
    True
    """
    return True


def _module_wrap_policy(module, recurse, nonwrapped_numel, module_classes):
    return True if recurse else isinstance(module, tuple(module_classes))


def lambda_auto_wrap_policy(module, recurse, nonwrapped_numel, lambda_fn):
    """A module becomes a unit when `lambda_fn(module)` is true.

    >>> ember.distributed.fsdp.wrap.lambda_auto_wrap_policy(
    ...     ember.nn.Linear(2, 2), False, 6, lambda m: isinstance(m, ember.nn.Linear))
    True
    """
    return True if recurse else bool(lambda_fn(module))


def transformer_auto_wrap_policy(module, recurse, nonwrapped_numel, transformer_layer_cls):
    """Each instance of the given layer classes becomes a unit (bind the set with
    functools.partial).

    >>> ember.distributed.fsdp.wrap.transformer_auto_wrap_policy(
    ...     ember.nn.Linear(2, 2), False, 6, {ember.nn.Linear})
    True
    """
    return _module_wrap_policy(module, recurse, nonwrapped_numel, transformer_layer_cls)


def size_based_auto_wrap_policy(module, recurse, nonwrapped_numel, min_num_params=int(1e8),
                                force_leaf_modules=None, exclude_wrap_modules=None):
    """A module becomes a unit once it holds at least `min_num_params` parameters not yet in a
    unit; the walk does not enter `force_leaf_modules` (MultiheadAttention) and never wraps
    `exclude_wrap_modules` (ModuleList, ModuleDict).

    >>> ember.distributed.fsdp.wrap.size_based_auto_wrap_policy(
    ...     ember.nn.Linear(2, 2), False, 6, min_num_params=5)
    True
    """
    force_leaf = (MultiheadAttention,) if force_leaf_modules is None else tuple(force_leaf_modules)
    exclude = ((ModuleList, ModuleDict) if exclude_wrap_modules is None
               else tuple(exclude_wrap_modules))
    is_large = nonwrapped_numel >= min_num_params
    if recurse:
        return is_large and not isinstance(module, force_leaf)
    return is_large and not isinstance(module, exclude)


size_based_auto_wrap_policy.FORCE_LEAF_MODULES = {MultiheadAttention}
size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES = {ModuleList, ModuleDict}


class ModuleWrapPolicy:
    """Each instance of the given module classes becomes a unit.

    >>> ember.distributed.fsdp.wrap.ModuleWrapPolicy({ember.nn.Linear})(
    ...     ember.nn.Linear(2, 2), recurse=False, nonwrapped_numel=6)
    True
    """

    def __init__(self, module_classes):
        self._module_classes = set(module_classes)

    def __call__(self, module, recurse, *args, **kwargs):
        return _module_wrap_policy(module, recurse, 0, self._module_classes)

    def __repr__(self):
        names = sorted(c.__name__ for c in self._module_classes)
        return f"ModuleWrapPolicy({{{', '.join(names)}}})"


class CustomPolicy:
    """`lambda_fn(module)` returns False (no unit), True (a unit with the root's options) or a
    dict of options for that unit (e.g. {"sharding_strategy": ShardingStrategy.NO_SHARD}).

    >>> p = ember.distributed.fsdp.wrap.CustomPolicy(lambda m: {"limit_all_gathers": False})
    >>> p(ember.nn.Linear(2, 2), recurse=False, nonwrapped_numel=6)
    {'limit_all_gathers': False}
    """

    def __init__(self, lambda_fn):
        self._lambda_fn = lambda_fn

    def __call__(self, module, recurse, *args, **kwargs):
        if recurse:
            return True
        result = self._lambda_fn(module)
        return result if isinstance(result, dict) else bool(result)


def _recursive_wrap(module, policy, wrapper_cls, ignored_modules, ignored_params,
                    only_wrap_children=False, **kwargs):
    """Wraps module's subtree children first; returns (module or its wrapper, how many
    parameters the wrappers made took)."""
    def unwrapped_numel(m):
        return sum(p.numel() for p in m.parameters()
                   if id(p) not in ignored_params and not getattr(p, "_is_flat_param", False))

    nonwrapped = unwrapped_numel(module)
    if not policy(module=module, recurse=True, nonwrapped_numel=nonwrapped):
        return module, 0
    wrapped_total = 0
    for name, child in list(module.named_children()):
        if child in ignored_modules or isinstance(child, wrapper_cls):
            continue
        new_child, n = _recursive_wrap(child, policy, wrapper_cls, ignored_modules, ignored_params,
                                       **kwargs)
        if new_child is not child:
            setattr(module, name, new_child)
        wrapped_total += n
    if only_wrap_children:
        return module, wrapped_total
    decision = policy(module=module, recurse=False, nonwrapped_numel=nonwrapped - wrapped_total)
    if decision:
        options = dict(kwargs, **decision) if isinstance(decision, dict) else kwargs
        return wrapper_cls(module, **options), nonwrapped
    return module, wrapped_total


_wrap_context = {"cls": None, "kwargs": {}}


@contextlib.contextmanager
def enable_wrap(*, wrapper_cls, **wrapper_kwargs):
    """Inside, `wrap(module)` wraps with `wrapper_cls(module, **wrapper_kwargs)`.

    >>> with ember.distributed.fsdp.wrap.enable_wrap(wrapper_cls=ember.nn.Sequential):
    ...     type(ember.distributed.fsdp.wrap.wrap(ember.nn.Linear(2, 2))).__name__
    'Sequential'
    """
    saved = dict(_wrap_context)
    _wrap_context.update(cls=wrapper_cls, kwargs=wrapper_kwargs)
    try:
        yield
    finally:
        _wrap_context.update(saved)


def wrap(module, **wrap_overrides):
    """The module wrapped as `enable_wrap` said (options overridden by wrap_overrides); the
    module itself outside an enable_wrap block.

    >>> m = ember.nn.Linear(2, 2)
    >>> ember.distributed.fsdp.wrap.wrap(m) is m
    True
    """
    cls = _wrap_context["cls"]
    if cls is None:
        return module
    return cls(module, **dict(_wrap_context["kwargs"], **wrap_overrides))

