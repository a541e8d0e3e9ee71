"""FSDP's optimizer state dicts (FullyShardedDataParallel.optim_state_dict and
optim_state_dict_to_load): between the optimizer's own state, one entry per flat shard, and
the unsharded form keyed by the original parameters' names, as torch's FULL_STATE_DICT.

optim_state_dict: each flat shard's per-element state (exp_avg, exp_avg_sq, momentum_buffer:
any tensor with the shard's element count) is gathered whole from the ranks and cut into the
original parameters' pieces, reshaped; other state (a step count) is given to each of them.
param_groups list the original names. Every rank gets the whole dict.

optim_state_dict_to_load: the reverse, for optim.load_state_dict: each unit's pieces laid back
end to end (padding zeros), this rank's slice kept, numbered as the optimizer numbers its
parameters.
"""
from collections import OrderedDict

__all__ = ["optim_state_dict", "optim_state_dict_to_load"]


def _units_by_flat(model):
    """{id(flat param): (handle, [(fqn, start, numel, shape)] of its original parameters)}, the
    fqns as the unwrapped model names them."""
    from .fully_sharded_data_parallel import FullyShardedDataParallel, _clean
    out = {}
    prefixes = {id(m): _clean(name + ".") if name else "" for name, m in model.named_modules()}
    for unit in FullyShardedDataParallel.fsdp_modules(model):
        h = unit._handle
        if h is None:
            continue
        prefix = prefixes[id(unit)]
        seen, pieces = set(), []
        for _, _, start, n, shape, fqn in h.slots:
            if start not in seen:  # a shared parameter once, by its first name
                seen.add(start)
                pieces.append((prefix + fqn, start, n, shape))
        out[id(h.flat)] = (h, pieces)
    return out


def _indexed_params(optim):
    return [p for g in optim.param_groups for p in g["params"]]


def _plain_names(model):
    from .fully_sharded_data_parallel import _clean
    return {id(p): _clean(n) for n, p in model.named_parameters()}


def optim_state_dict(model, optim, optim_state_dict=None, group=None):
    """The optimizer's state keyed by the original parameter names, whole tensors."""
    from ... import Tensor, no_grad
    osd = optim_state_dict if optim_state_dict is not None else optim.state_dict()
    params = _indexed_params(optim)
    units, plain = _units_by_flat(model), _plain_names(model)
    state, names_of = OrderedDict(), {}
    with no_grad():
        for index, p in enumerate(params):
            entry = osd["state"].get(index)
            if id(p) not in units:
                names_of[index] = [plain[id(p)]]
                if entry is not None:
                    state[plain[id(p)]] = dict(entry)
                continue
            h, pieces = units[id(p)]
            names_of[index] = [fqn for fqn, *_ in pieces]
            if entry is None:
                continue
            wholes = {k: h._gather(v) for k, v in entry.items()
                      if isinstance(v, Tensor) and v.dim() == 1 and v.numel() == p.numel()}
            for fqn, start, n, shape in pieces:
                state[fqn] = {k: (wholes[k][start:start + n].reshape(shape).clone()
                                  if k in wholes else v) for k, v in entry.items()}
    groups = []
    for g in osd["param_groups"]:
        packed = {k: v for k, v in g.items() if k != "params"}
        packed["params"] = [name for i in g["params"] for name in names_of[i]]
        groups.append(packed)
    return {"state": dict(state), "param_groups": groups}


def optim_state_dict_to_load(model, optim, optim_state_dict, is_named_optimizer=False,
                             load_directly=False, group=None):
    """A state dict optim.load_state_dict takes, from one optim_state_dict gave."""
    from ... import Tensor, zeros
    params = _indexed_params(optim)
    units, plain = _units_by_flat(model), _plain_names(model)
    saved = optim_state_dict["state"]
    state = {}
    for index, p in enumerate(params):
        if id(p) not in units:
            if plain[id(p)] in saved:
                state[index] = dict(saved[plain[id(p)]])
            continue
        h, pieces = units[id(p)]
        have = [fqn for fqn, *_ in pieces if fqn in saved]
        if not have:
            continue
        if len(have) != len(pieces):
            missing = [fqn for fqn, *_ in pieces if fqn not in saved]
            raise RuntimeError(f"optim_state_dict_to_load: the state of {missing} is missing "
                               f"(the unit of {have[0]} needs all of its parameters')")
        first = saved[have[0]]
        entry = {}
        for key, value in first.items():
            if isinstance(value, Tensor) and value.dim() >= 1:
                whole = zeros(h.chunk * h.world if h.shard else h.numel, dtype=value.dtype)
                for fqn, start, n, _ in pieces:
                    whole[start:start + n] = saved[fqn][key].reshape(-1)
                entry[key] = whole[h._mine()].clone() if h.shard else whole
            else:
                entry[key] = value
        state[index] = entry
    groups, start = [], 0
    names_in_saved = [set(g["params"]) for g in optim_state_dict["param_groups"]]
    for g in optim.param_groups:
        first = g["params"][0] if g["params"] else None
        names = ([fqn for fqn, *_ in units[id(first)][1]] if first is not None and id(first) in units
                 else [plain[id(first)]] if first is not None else [])
        match = next((i for i, s in enumerate(names_in_saved) if names and names[0] in s), None)
        source = optim_state_dict["param_groups"][match] if match is not None else g
        packed = {k: v for k, v in source.items() if k != "params"}
        packed["params"] = list(range(start, start + len(g["params"])))
        start += len(g["params"])
        groups.append(packed)
    result = {"state": state, "param_groups": groups}
    if load_directly:
        optim.load_state_dict(result)
    return result
