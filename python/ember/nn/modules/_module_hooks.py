"""nn.Module's hooks: the forward pre-hooks and hooks run around forward (the global ones
of _global_hooks.py first), the backward hooks and pre-hooks registered here and run by
_backward_hooks.py, as torch.nn.Module's. Module inherits them (module.py keeps the rest)."""
from ._global_hooks import (_global_backward_hooks as _gb, _global_backward_pre_hooks as _gbp,
                            _global_forward_hooks as _gf,
                            _global_forward_hooks_with_kwargs as _gf_kwargs,
                            _global_forward_pre_hooks as _gfp, _global_is_full_backward_hook)
from ._hook_handles import add_hook


class ModuleHooks:
    """The hook methods of nn.Module (a base class of it)."""

    def _backward_hooks_of_kind(self, full):
        """The global hooks then this module's, of the full kind or of the old (torch's order)."""
        hooks = list(_gb.values()) if _global_is_full_backward_hook[0] is full else []
        return hooks + (list(self._backward_hooks.values())
                        if self._is_full_backward_hook is full else [])

    def _all_backward_pre_hooks(self):
        return list(_gbp.values()) + list(self._backward_pre_hooks.values())

    def _call_with_hooks(self, args, kwargs):
        for hook in list(_gfp.values()):
            res = hook(self, args)
            if res is not None:
                args = res if isinstance(res, tuple) else (res,)
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {res}.")
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        result = self.forward(*args, **kwargs)
        for hook_id, hook in list(_gf.items()):
            if hook_id in _gf_kwargs:
                res = hook(self, args, kwargs, result)
            else:
                res = hook(self, args, result)
            if res is not None:
                result = res
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_with_kwargs:
                res = hook(self, args, kwargs, result)
            else:
                res = hook(self, args, result)
            if res is not None:
                result = res
        return result

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) -> None or new args; with_kwargs: hook(module, args, kwargs)."""
        handle = add_hook(self._forward_pre_hooks, hook, prepend,
                           self._forward_pre_hooks_with_kwargs)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """hook(module, args, output) -> None or a new output."""
        handle = add_hook(self._forward_hooks, hook, prepend, self._forward_hooks_with_kwargs)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) -> None or new grad_output, run when the gradients of the
        module's outputs are ready (before its own backward runs)."""
        return add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) -> None or new grad_input, run once the
        gradients with respect to the module's tensor inputs are computed (grad_input holds
        None for inputs that need none; all None when no input requires a gradient).

        >>> lin = ember.nn.Linear(3, 2)
        >>> seen = []
        >>> _ = lin.register_full_backward_hook(
        ...     lambda m, gin, gout: seen.append((gin[0].shape, gout[0].shape)))
        >>> lin(ember.ones(4, 3, requires_grad=True)).sum().backward()
        >>> seen
        [(ember.Size([4, 3]), ember.Size([4, 2]))]
        """
        self._set_backward_hook_kind(True)
        return add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """hook(module, grad_input, grad_output) -> None or new grad_input, on the autograd
        node of the module's first output (deprecated in torch: grad_input holds the gradients
        of that node's inputs only, which may not be the module's; use
        register_full_backward_hook).

        >>> lin = ember.nn.Linear(3, 2)
        >>> seen = []
        >>> _ = lin.register_backward_hook(lambda m, gin, gout: seen.append(gout[0].shape))
        >>> lin(ember.ones(4, 3)).sum().backward()
        >>> seen
        [ember.Size([4, 2])]
        """
        self._set_backward_hook_kind(False)
        return add_hook(self._backward_hooks, hook, False)

    def _set_backward_hook_kind(self, full):
        if self._is_full_backward_hook is (not full):
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self.__dict__["_is_full_backward_hook"] = full
