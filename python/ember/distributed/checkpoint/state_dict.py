"""torch.distributed.checkpoint.state_dict: a model's and an optimizer's state dicts keyed by
the parameters' fully qualified names (FQNs), the same however the model is wrapped: DDP's
`module.`, FSDP1's `_fsdp_wrapped_module.`, compile's `_orig_mod.` and the activation
checkpoint wrapper's `_checkpoint_wrapped_module.` are not part of a name, and the optimizer's
state and param_groups name each parameter by its FQN instead of its position. set_* load
such dicts back. Tensors are the module's own (plain tensors in ember: no DTensors)."""
import copy
import dataclasses

__all__ = ["StateDictOptions", "get_model_state_dict", "get_optimizer_state_dict",
           "get_state_dict", "set_model_state_dict", "set_optimizer_state_dict", "set_state_dict"]

# A wrapper's attribute that holds the wrapped module: not part of a parameter's FQN.
_WRAPPER_ATTRS = ("module", "_fsdp_wrapped_module", "_orig_mod", "_checkpoint_wrapped_module")


@dataclasses.dataclass
class StateDictOptions:
    """What get_*/set_* return or load (torch's fields; cpu_offload and broadcast_from_rank0
    change nothing for ember's CPU tensors; full_state_dict: FSDP1 models give their full
    state dict under FullyShardedDataParallel.state_dict_type)."""
    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False
    dsd_fqn_modifiers: str = "_fqn_modifiers"


def _is_wrapper(module):
    from ...nn.parallel import DistributedDataParallel
    from ..fsdp import FullyShardedDataParallel
    from ..._compile import OptimizedModule
    return isinstance(module, (DistributedDataParallel, FullyShardedDataParallel, OptimizedModule)) \
        or "_checkpoint_wrapped_module" in getattr(module, "_modules", {})


def _fqn(model, name):
    """`name` (a key of model.state_dict()) without the wrappers' attributes."""
    atoms, out, mod = name.split("."), [], model
    for atom in atoms:
        wrapper = mod is not None and _is_wrapper(mod) and atom in _WRAPPER_ATTRS
        if mod is not None:
            mod = getattr(mod, "_modules", {}).get(atom)
        if not wrapper:
            out.append(atom)
    return ".".join(out)


def _options(options, op):
    if options is None:
        return StateDictOptions()
    if not isinstance(options, StateDictOptions):
        raise TypeError(f"{op}: options must be a StateDictOptions, got {type(options).__name__}")
    return options


def _frozen_names(model):
    return {_fqn(model, n) for n, p in model.named_parameters() if not p.requires_grad}


def get_model_state_dict(model, *, submodules=None, options=None):
    """model.state_dict() keyed by FQNs (ignore_frozen_params drops parameters that do not
    require grad).

    >>> from ember.distributed.checkpoint.state_dict import get_model_state_dict
    >>> list(get_model_state_dict(ember.nn.Sequential(ember.nn.Linear(2, 1))))
    ['0.weight', '0.bias']
    """
    opts = _options(options, "get_model_state_dict")
    if submodules is not None:
        raise NotImplementedError("get_model_state_dict: submodules= (deprecated in torch) is not "
                                  "supported; call it on the submodule")
    frozen = _frozen_names(model) if opts.ignore_frozen_params else set()
    out = type(model.state_dict())()
    for name, value in model.state_dict().items():
        fqn = _fqn(model, name)
        if fqn not in frozen:
            out[fqn] = value
    return out


def _param_fqns(model):
    """Each parameter (by identity) -> its FQN (the first name of a shared one)."""
    names = {}
    for name, p in model.named_parameters():
        names.setdefault(id(p), _fqn(model, name))
    return names


def _flatten(osd):
    flat = {}
    for fqn, state in osd["state"].items():
        for k, v in state.items():
            flat[f"state.{fqn}.{k}"] = v
    for group in osd["param_groups"]:
        for fqn in group["params"]:
            for k, v in group.items():
                if k != "params":
                    flat[f"param_groups.{fqn}.{k}"] = v
    return flat


def _unflatten(flat, groups_fqns):
    state, groups = {}, []
    for key, v in flat.items():
        if key.startswith("state."):
            fqn, k = key[len("state."):].rsplit(".", 1)
            state.setdefault(fqn, {})[k] = v
    for fqns in groups_fqns:
        first = fqns[0] if fqns else None
        group = {key[len(f"param_groups.{first}."):]: v for key, v in flat.items()
                 if first is not None and key.startswith(f"param_groups.{first}.")}
        group["params"] = list(fqns)
        groups.append(group)
    return {"state": state, "param_groups": groups}


def _optimizers(optimizers):
    return list(optimizers) if isinstance(optimizers, (list, tuple)) else [optimizers]


def get_optimizer_state_dict(model, optimizers, *, submodules=None, options=None):
    """The optimizer's state_dict() with parameters named by their FQNs: "state" keyed by FQN,
    each param group's "params" a list of FQNs (flatten_optimizer_state_dict: one flat dict,
    "state.<fqn>.<key>" and "param_groups.<fqn>.<key>")."""
    opts = _options(options, "get_optimizer_state_dict")
    names = _param_fqns(model)
    frozen = _frozen_names(model) if opts.ignore_frozen_params else set()
    out = {"state": {}, "param_groups": []}
    for opt in _optimizers(optimizers):
        sd = opt.state_dict()
        ids = [p for g in opt.param_groups for p in g["params"]]  # position -> parameter
        fqn_of = {}
        for pos, p in enumerate(ids):
            if id(p) not in names:
                raise KeyError("get_optimizer_state_dict: the optimizer holds a parameter that is "
                               "not one of the model's")
            fqn_of[pos] = names[id(p)]
        for pos, state in sd["state"].items():
            if fqn_of[pos] not in frozen:
                out["state"][fqn_of[pos]] = state
        for group in sd["param_groups"]:
            g = dict(group)
            g["params"] = [fqn_of[pos] for pos in group["params"] if fqn_of[pos] not in frozen]
            out["param_groups"].append(g)
    return _flatten(out) if opts.flatten_optimizer_state_dict else out


def get_state_dict(model, optimizers, *, submodules=None, options=None):
    """(get_model_state_dict(model), get_optimizer_state_dict(model, optimizers))."""
    return (get_model_state_dict(model, submodules=submodules, options=options),
            get_optimizer_state_dict(model, optimizers, submodules=submodules, options=options))


def set_model_state_dict(model, model_state_dict, *, options=None):
    """Loads an FQN-keyed state dict into the model (strict as the options say); returns
    load_state_dict's (missing_keys, unexpected_keys)."""
    opts = _options(options, "set_model_state_dict")
    by_fqn = {_fqn(model, name): name for name in model.state_dict()}
    renamed = {}
    for fqn, value in model_state_dict.items():
        renamed[by_fqn.get(fqn, fqn)] = value
    strict = opts.strict and not opts.ignore_frozen_params
    return model.load_state_dict(renamed, strict=strict)


def set_optimizer_state_dict(model, optimizers, optim_state_dict, *, options=None):
    """Loads an FQN-keyed optimizer state dict (flat or not) into the optimizer(s): each
    parameter's state goes to the position the optimizer holds it at."""
    _options(options, "set_optimizer_state_dict")
    names = _param_fqns(model)
    for opt in _optimizers(optimizers):
        groups_fqns = [[names[id(p)] for p in g["params"]] for g in opt.param_groups]
        osd = optim_state_dict
        if "state" not in osd or "param_groups" not in osd:
            osd = _unflatten(osd, groups_fqns)
        position = {fqn: pos for pos, fqn in enumerate(f for fs in groups_fqns for f in fs)}
        state = {position[fqn]: s for fqn, s in osd["state"].items() if fqn in position}
        saved = {tuple(g["params"]): g for g in osd["param_groups"]}
        groups = []
        for fqns in groups_fqns:
            g = copy.copy(saved.get(tuple(fqns)) or next(
                (g for g in osd["param_groups"] if set(g["params"]) & set(fqns)), None))
            if g is None:
                raise ValueError("set_optimizer_state_dict: no saved param group holds the "
                                 f"parameters {fqns}")
            g = dict(g)
            g["params"] = [position[f] for f in fqns]
            groups.append(g)
        opt.load_state_dict({"state": state, "param_groups": groups})


def set_state_dict(model, optimizers, *, model_state_dict, optim_state_dict, options=None):
    """set_model_state_dict, then set_optimizer_state_dict; returns the model's keys result."""
    keys = set_model_state_dict(model, model_state_dict, options=options)
    set_optimizer_state_dict(model, optimizers, optim_state_dict, options=options)
    return keys
