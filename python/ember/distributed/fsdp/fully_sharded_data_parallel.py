"""FullyShardedDataParallel: data-parallel training with each rank keeping only a shard of
the parameters, their gradients and their optimizer state, as torch.distributed.fsdp.

    dist.init_process_group("gloo")
    model = FSDP(model, auto_wrap_policy=ModuleWrapPolicy({Block}))
    opt = ember.optim.AdamW(model.parameters())      # the flat shards
    loss_fn(model(xb), yb).backward()                 # gradients averaged and sharded here
    opt.step()
    full = model.state_dict()                         # the original names, whole tensors

Each FSDP instance is a unit: its module's parameters (minus nested units') flattened into
one sharded FlatParameter (_flat_param.py says how a unit gathers and reduces). The walk
that makes nested units from `auto_wrap_policy` is wrap._recursive_wrap. The options torch
has for GPUs (cpu_offload, backward_prefetch, forward_prefetch, limit_all_gathers) are
accepted: on ember's CPU Gloo groups they change nothing in the results.
"""
import contextlib
import warnings
from collections import OrderedDict

from ..._grad_mode import is_grad_enabled
from ...nn.modules.module import Module
from ...utils._pytree import tree_map
from ._flat_param import FlatParamHandle
from .api import (FullOptimStateDictConfig, FullStateDictConfig, LocalStateDictConfig,
                  ShardedStateDictConfig, ShardingStrategy, StateDictSettings, StateDictType)
from .wrap import _recursive_wrap

__all__ = ["FullyShardedDataParallel"]

_PREFIX = "_fsdp_wrapped_module."
_CONFIGS = {StateDictType.FULL_STATE_DICT: FullStateDictConfig,
            StateDictType.LOCAL_STATE_DICT: LocalStateDictConfig,
            StateDictType.SHARDED_STATE_DICT: ShardedStateDictConfig}


def _clean(name):
    return name.replace(_PREFIX, "")


def _unit_members(module):
    """(module, name, param, path) of every parameter under `module` that is not inside a
    nested FSDP unit, in named_parameters order (shared ones each time they appear); path is
    the parameter's dotted name below `module`."""
    out = []

    def walk(m, prefix):
        out.extend((m, n, p, prefix + n) for n, p in m._parameters.items() if p is not None)
        for child_name, child in m._modules.items():
            if child is not None and not isinstance(child, FullyShardedDataParallel):
                walk(child, prefix + child_name + ".")
    walk(module, "")
    return out


class FullyShardedDataParallel(Module):
    """Shards a module's parameters over the ranks of a process group (torch's FSDP with
    `use_orig_params=False`): `parameters()` are each unit's flat shard, forward gathers
    them, backward reduce-scatters the gradients (averaged over the ranks).

    >>> FSDP = ember.distributed.fsdp.FullyShardedDataParallel
    >>> FSDP.__name__, issubclass(FSDP, ember.nn.Module)
    ('FullyShardedDataParallel', True)
    """

    def __init__(self, module, process_group=None, sharding_strategy=None, cpu_offload=None,
                 auto_wrap_policy=None, backward_prefetch=None, mixed_precision=None,
                 ignored_modules=None, param_init_fn=None, device_id=None,
                 sync_module_states=False, forward_prefetch=False, limit_all_gathers=True,
                 use_orig_params=False, ignored_states=None, device_mesh=None):
        from ... import distributed as dist
        super().__init__()
        if not dist.is_initialized():
            raise RuntimeError("FullyShardedDataParallel: the default process group has not "
                               "been initialized; call ember.distributed.init_process_group")
        if device_mesh is not None:  # 1-d: the group; 2-d (HYBRID): (replicate, shard) dims
            if process_group is not None:
                raise ValueError("FullyShardedDataParallel: give process_group or device_mesh, "
                                 "not both")
            if device_mesh.ndim not in (1, 2):
                raise ValueError(f"FullyShardedDataParallel: device_mesh must be 1-d or 2-d "
                                 f"(HYBRID_SHARD), got {device_mesh.ndim}-d")
            process_group = (device_mesh.get_group() if device_mesh.ndim == 1
                             else (device_mesh.get_group(1), device_mesh.get_group(0)))
        if use_orig_params:
            raise NotImplementedError("FullyShardedDataParallel: use_orig_params=True is not "
                                      "supported; the optimizer takes the flat shards "
                                      "(use_orig_params=False)")
        _check_device(device_id)
        strategy = sharding_strategy or ShardingStrategy.FULL_SHARD
        replicate = None
        if isinstance(process_group, tuple):
            process_group, replicate = process_group
        group = process_group or dist.group.WORLD
        if strategy is not ShardingStrategy.NO_SHARD and dist.get_world_size(group) == 1:
            warnings.warn(f"FSDP is switching to use `NO_SHARD` instead of {strategy} since the "
                          "world size is 1.")
            strategy = ShardingStrategy.NO_SHARD
        ignored = set()
        for m in list(ignored_modules or []) + list(ignored_states or []):
            ignored.update(id(p) for p in (m.parameters() if isinstance(m, Module) else [m]))
        ignored_mods = {m for m in (ignored_modules or []) if isinstance(m, Module)}
        ignored_mods.update(m for m in (ignored_states or []) if isinstance(m, Module))
        if param_init_fn is not None and any(getattr(p, "is_meta", False)
                                             for p in module.parameters()):
            param_init_fn(module)
        self.process_group = group
        self.sharding_strategy = strategy
        self.mixed_precision = mixed_precision
        self.cpu_offload = cpu_offload
        self.backward_prefetch = backward_prefetch
        self.forward_prefetch, self.limit_all_gathers = forward_prefetch, limit_all_gathers
        # the FSDP unit this one is nested in, if any: a plain attribute, not a child module
        self.__dict__["_fsdp_parent"] = None
        self._state_dict_settings = StateDictSettings(
            StateDictType.FULL_STATE_DICT, FullStateDictConfig(), FullOptimStateDictConfig())
        if auto_wrap_policy is not None:
            child_options = dict(process_group=(group, replicate) if replicate else group,
                                 sharding_strategy=sharding_strategy, cpu_offload=cpu_offload,
                                 backward_prefetch=backward_prefetch,
                                 mixed_precision=mixed_precision, param_init_fn=param_init_fn,
                                 device_id=device_id, sync_module_states=sync_module_states,
                                 forward_prefetch=forward_prefetch,
                                 limit_all_gathers=limit_all_gathers, ignored_states=None)
            _recursive_wrap(module, auto_wrap_policy, FullyShardedDataParallel, ignored_mods,
                            ignored, only_wrap_children=True, **child_options)
        self._fsdp_wrapped_module = module
        for unit in FullyShardedDataParallel.fsdp_modules(module):
            if unit._fsdp_parent is None:
                unit.__dict__["_fsdp_parent"] = self
        members = [(m, n, p, path) for m, n, p, path in _unit_members(module)
                   if id(p) not in ignored]
        if sync_module_states:
            self._broadcast_states(module, members, group)
        if mixed_precision is not None and mixed_precision.buffer_dtype is not None:
            for m in module.modules():
                for k, b in m._buffers.items():
                    if b is not None and b.is_floating_point():
                        m._buffers[k] = b.to(mixed_precision.buffer_dtype)
        self._handle = None
        if members:
            self._handle = FlatParamHandle(
                module, members, group, strategy is not ShardingStrategy.NO_SHARD,
                mixed_precision, replicate if strategy in (
                    ShardingStrategy.HYBRID_SHARD, ShardingStrategy._HYBRID_SHARD_ZERO2) else None)

    @staticmethod
    def _broadcast_states(module, members, group):
        from ... import distributed as dist
        from ..._grad_mode import no_grad
        src = dist.get_global_rank(group, 0) if group is not dist.group.WORLD else 0
        with no_grad():
            for t in [p for _, _, p, _ in members] + list(module.buffers()):
                dist.broadcast(t.data if hasattr(t, "data") else t, src=src, group=group)

    # ---- the wrapped module ----------------------------------------------------------
    @property
    def module(self):
        """The module this unit wraps."""
        return self._fsdp_wrapped_module

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            wrapped = self.__dict__.get("_modules", {}).get("_fsdp_wrapped_module")
            if wrapped is None:
                raise
            return getattr(wrapped, name)

    def __getitem__(self, key):
        return self._fsdp_wrapped_module.__getitem__(key)

    def check_is_root(self):
        """True when no FSDP unit encloses this one."""
        return self._fsdp_parent is None

    def forward(self, *args, **kwargs):
        mp = self.mixed_precision
        if mp is not None and mp.param_dtype is not None and (
                mp.cast_forward_inputs or (mp.cast_root_forward_inputs and self.check_is_root())):
            def cast(x):
                if hasattr(x, "is_floating_point") and x.is_floating_point():
                    return x.to(mp.param_dtype)
                return x
            args, kwargs = tree_map(cast, (args, kwargs))
        if self._handle is not None:
            self._handle.unshard(is_grad_enabled())
        return self._fsdp_wrapped_module(*args, **kwargs)

    # ---- the tree of units -----------------------------------------------------------
    @staticmethod
    def fsdp_modules(module, root_only=False):
        """The FSDP units in `module`'s tree (itself included), or only the outermost ones."""
        units = [m for m in module.modules() if isinstance(m, FullyShardedDataParallel)]
        if root_only:
            units = [u for u in units if u._fsdp_parent is None or u._fsdp_parent not in units]
        return units

    def named_parameters(self, *args, **kwargs):
        summoning = self._summoning()
        for name, p in super().named_parameters(*args, **kwargs):
            yield (_clean(name) if summoning else name), p

    def named_buffers(self, *args, **kwargs):
        summoning = self._summoning()
        for name, b in super().named_buffers(*args, **kwargs):
            yield (_clean(name) if summoning else name), b

    def _summoning(self):
        return any(u._handle is not None and u._handle._summoned is not None
                   for u in FullyShardedDataParallel.fsdp_modules(self))

    @staticmethod
    @contextlib.contextmanager
    def summon_full_params(module, recurse=True, writeback=True, rank0_only=False,
                           offload_to_cpu=False, with_grads=False):
        """Inside, the wrapped modules hold their original Parameters with the whole values
        (gathered from every rank); changes to them are written back into each rank's
        shard on exit when `writeback`."""
        if rank0_only and writeback:
            raise ValueError("summon_full_params: writeback=True and rank0_only=True is not "
                             "supported, as model parameter shapes would differ across ranks")
        units = (FullyShardedDataParallel.fsdp_modules(module) if recurse
                 else [module] if isinstance(module, FullyShardedDataParallel) else [])
        with contextlib.ExitStack() as stack:
            for unit in units:
                if unit._handle is not None:
                    stack.enter_context(unit._handle.summoned(writeback, with_grads))
            yield

    def apply(self, fn):
        """fn on every submodule with the whole parameters in place (written back)."""
        with FullyShardedDataParallel.summon_full_params(self, writeback=True):
            return super().apply(fn)

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients of the backward passes inside are accumulated unreduced (no
        communication); the first backward after it reduces them with its own."""
        units = FullyShardedDataParallel.fsdp_modules(self)
        saved = [(u._handle, u._handle.sync) for u in units if u._handle is not None]
        for handle, _ in saved:
            handle.sync = False
        try:
            yield
        finally:
            for handle, sync in saved:
                handle.sync = sync

    def clip_grad_norm_(self, max_norm, norm_type=2.0):
        """Scales every unit's gradient so that the norm of the whole model's gradient is at
        most max_norm (computed across the shards); returns that norm before scaling."""
        from ... import distributed as dist, stack, tensor
        from ..._grad_mode import no_grad
        if not self.check_is_root():
            raise RuntimeError("clip_grad_norm_() should only be called on the root FSDP instance")
        norm_type = float(norm_type)
        sharded, whole, any_shard = [], [], False
        for unit in FullyShardedDataParallel.fsdp_modules(self):
            if unit._handle is not None:
                any_shard = any_shard or unit._handle.shard
                if unit._handle.flat.grad is not None:
                    (sharded if unit._handle.shard else whole).append(unit._handle.flat.grad)
        flat_ids = {id(u._handle.flat) for u in FullyShardedDataParallel.fsdp_modules(self)
                    if u._handle is not None}
        whole += [p.grad for p in self.parameters() if id(p) not in flat_ids and p.grad is not None]
        grads = sharded + whole
        if not grads and not any_shard:
            return tensor(0.0)
        dtype = grads[0].dtype if grads else self.parameters().__next__().dtype

        def part(gs):
            if not gs:
                return tensor(0.0, dtype=dtype)
            norms = stack([g.detach().abs().max() if norm_type == float("inf")
                           else g.detach().norm(norm_type) for g in gs])
            return norms.max() if norm_type == float("inf") else norms.pow(norm_type).sum()
        local = part(sharded)
        if any_shard:  # every rank takes part, with or without gradients of its own
            op = dist.ReduceOp.MAX if norm_type == float("inf") else dist.ReduceOp.SUM
            dist.all_reduce(local, op=op, group=self.process_group)
        rest = part(whole)
        total = (local.maximum(rest) if norm_type == float("inf")
                 else (local + rest).pow(1.0 / norm_type))
        coef = (float(max_norm) / (total + 1e-6)).clamp(max=1.0)
        with no_grad():
            for g in grads:
                g.mul_(coef.to(g.dtype))
        return total

    # ---- state dicts -----------------------------------------------------------------
    @staticmethod
    def set_state_dict_type(module, state_dict_type, state_dict_config=None,
                            optim_state_dict_config=None):
        """Sets what state_dict() gives for every unit in module's tree; returns the old
        StateDictSettings."""
        if state_dict_type is StateDictType.SHARDED_STATE_DICT:
            raise NotImplementedError("FullyShardedDataParallel: SHARDED_STATE_DICT holds "
                                      "DTensors, which ember does not have; use FULL_STATE_DICT "
                                      "or LOCAL_STATE_DICT")
        config = state_dict_config or _CONFIGS[state_dict_type]()
        units = FullyShardedDataParallel.fsdp_modules(module)
        if not units:
            raise ValueError("set_state_dict_type: the module holds no FullyShardedDataParallel")
        old = units[0]._state_dict_settings
        new = StateDictSettings(state_dict_type, config,
                                optim_state_dict_config or old.optim_state_dict_config)
        for unit in units:
            unit._state_dict_settings = new
        return old

    @staticmethod
    def get_state_dict_type(module):
        """The StateDictSettings of module's units."""
        return FullyShardedDataParallel.fsdp_modules(module)[0]._state_dict_settings

    @staticmethod
    @contextlib.contextmanager
    def state_dict_type(module, state_dict_type, state_dict_config=None,
                        optim_state_dict_config=None):
        """set_state_dict_type for the block, then the old settings back."""
        old = FullyShardedDataParallel.set_state_dict_type(
            module, state_dict_type, state_dict_config, optim_state_dict_config)
        try:
            yield
        finally:
            FullyShardedDataParallel.set_state_dict_type(
                module, old.state_dict_type, old.state_dict_config, old.optim_state_dict_config)

    @staticmethod
    def optim_state_dict(model, optim, optim_state_dict=None, group=None):
        """The optimizer's state keyed by the original parameters' names, whole tensors on
        every rank (_optim_state.py); save it beside model.state_dict()."""
        from ._optim_state import optim_state_dict as convert
        return convert(model, optim, optim_state_dict, group)

    @staticmethod
    def optim_state_dict_to_load(model, optim, optim_state_dict, is_named_optimizer=False,
                                 load_directly=False, group=None):
        """What optim.load_state_dict takes, from an optim_state_dict (each rank keeps its
        shard); loads it too with load_directly=True."""
        from ._optim_state import optim_state_dict_to_load as convert
        return convert(model, optim, optim_state_dict, is_named_optimizer, load_directly, group)

    @staticmethod
    def full_optim_state_dict(model, optim, optim_input=None, rank0_only=True, group=None):
        """optim_state_dict, on rank 0 only when rank0_only (an empty dict elsewhere)."""
        from .. import get_rank
        sd = FullyShardedDataParallel.optim_state_dict(model, optim, group=group)
        return {} if rank0_only and get_rank(group) != 0 else sd

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """FULL_STATE_DICT (default): the wrapped model's keys and whole tensors (copies);
        with rank0_only, empty on the other ranks. LOCAL_STATE_DICT: each unit's flat shard
        under `<path>_flat_param`."""
        if self._fsdp_parent is not None:  # reached by the enclosing unit's walk
            return super().state_dict(*args, destination=destination, prefix=prefix,
                                      keep_vars=keep_vars)
        settings = self._state_dict_settings
        if settings.state_dict_type is StateDictType.FULL_STATE_DICT:
            with FullyShardedDataParallel.summon_full_params(self, writeback=False):
                raw = super().state_dict(keep_vars=keep_vars)
                raw = OrderedDict((k, v if keep_vars else v.clone()) for k, v in raw.items())
            from .. import get_rank
            if getattr(settings.state_dict_config, "rank0_only", False) and \
                    get_rank(self.process_group) != 0:
                raw = OrderedDict()
        else:
            raw = super().state_dict(keep_vars=keep_vars)
        out = destination if destination is not None else OrderedDict()
        for k, v in raw.items():
            out[prefix + _clean(k)] = v
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Loads a state dict of the kind state_dict() gives (FULL: the whole tensors, each
        rank keeps its shard)."""
        settings = self._state_dict_settings
        summon = (FullyShardedDataParallel.summon_full_params(self, writeback=True)
                  if settings.state_dict_type is StateDictType.FULL_STATE_DICT
                  else contextlib.nullcontext())
        with summon:
            raw_of = {_clean(k): k for k in super().state_dict(keep_vars=True)}
            remapped = OrderedDict((raw_of.get(k, k), v) for k, v in state_dict.items())
            result = super().load_state_dict(remapped, strict=False, assign=assign)
        missing = [_clean(k) for k in result.missing_keys]
        unexpected = [_clean(k) for k in result.unexpected_keys]
        if strict and (missing or unexpected):
            raise RuntimeError("Error(s) in loading state_dict for FullyShardedDataParallel: "
                               f"missing keys {missing}, unexpected keys {unexpected}")
        return type(result)(missing, unexpected)


def _check_device(device_id):
    """ember runs on the CPU: device_id may be None or a CPU device."""
    if device_id is None:
        return
    from ... import device
    d = device("cuda", device_id) if isinstance(device_id, int) else device(device_id)
    if d.type != "cpu":
        raise RuntimeError(f"FullyShardedDataParallel: device_id={device_id!r} is not a CPU "
                           "device; ember runs on the CPU")
