"""The forward pre-hooks of the hook-based reparametrizations (weight_norm, spectral_norm,
prune): finding the one that acts on a parameter, and taking it off."""


def find_pre_hook(module, hook_type, name, attr="name"):
    """(key, hook) of the forward pre-hook of module that is a hook_type acting on parameter
    `name` (the hook's `attr`), or (None, None)."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, hook_type) and getattr(hook, attr) == name:
            return k, hook
    return None, None


def remove_pre_hook(module, hook_type, name, message, attr="name"):
    """Makes the reparametrization of `name` permanent (hook.remove(module)) and takes its hook
    off; returns module. ValueError(message, formatted with name and module) when there is
    none."""
    k, hook = find_pre_hook(module, hook_type, name, attr)
    if hook is None:
        raise ValueError(message.format(name=name, module=module))
    hook.remove(module)
    del module._forward_pre_hooks[k]
    return module
