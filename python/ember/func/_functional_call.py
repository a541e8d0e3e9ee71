"""functional_call as torch.func.functional_call: run a module with some parameters and
buffers replaced by the given tensors, restoring the module afterwards (also on error)."""


def _resolve(module, name):
    *path, leaf = name.split(".")
    owner = module
    for p in path:
        owner = getattr(owner, p)
    return owner, leaf


def _swap(module, name, value):
    """Puts value under name and returns how to undo it."""
    owner, leaf = _resolve(module, name)
    d = owner.__dict__
    for table in ("_parameters", "_buffers"):
        if leaf in d.get(table, {}):
            old = d[table][leaf]
            d[table][leaf] = value
            return lambda: d[table].__setitem__(leaf, old)
    had = leaf in d
    old = d.get(leaf)
    d[leaf] = value
    return (lambda: d.__setitem__(leaf, old)) if had else (lambda: d.pop(leaf, None))


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """module(*args, **kwargs) with the named tensors of parameter_and_buffer_dicts (a dict or a
    tuple of dicts, names as in named_parameters()/named_buffers()) in place of the module's."""
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        merged = {}
        for d in parameter_and_buffer_dicts:
            if not isinstance(d, dict):
                raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                                 f"dictionaries but got {type(d)}")
            dup = sorted(set(merged) & set(d))
            if dup:
                raise ValueError(f"{dup} appeared in multiple dictionaries; behavior of "
                                 "functional call is ambiguous")
            merged.update(d)
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    names = {}
    for n, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        names.setdefault(id(t), []).append(n)
    if strict:
        known = {n for group in names.values() for n in group}
        missing, unexpected = sorted(known - set(merged)), sorted(set(merged) - known)
        if missing or unexpected:
            msg = f"Error(s) in reparametrizing for {type(module).__name__}:"
            if unexpected:
                msg += "\n\tUnexpected key(s): " + ", ".join(repr(k) for k in unexpected) + "."
            if missing:
                msg += "\n\tMissing key(s): " + ", ".join(repr(k) for k in missing) + "."
            raise RuntimeError(msg)
    if tie_weights:
        for group in (g for g in names.values() if len(g) > 1):
            given = [n for n in group if n in merged]
            if len({id(merged[n]) for n in given}) > 1:
                raise ValueError(f"functional_call got multiple values for keys {given}, which "
                                 "are tied. Consider using tie_weights=False")
            for n in group:
                if given and n not in merged:
                    merged[n] = merged[given[0]]
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    undo = []
    try:
        for name, value in merged.items():
            undo.append(_swap(module, name, value))
        return module(*args, **(kwargs or {}))
    finally:
        for u in reversed(undo):
            u()
