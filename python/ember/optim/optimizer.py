"""Optimizer: the base class of ember's optimizers, with torch.optim.Optimizer's API
(param_groups, state, add_param_group, zero_grad, state_dict, load_state_dict, step).

A subclass's step() collects, for each parameter group, the parameters that have a grad,
their grads and their state tensors, and hands the lists to ONE fused C++ call
(ember._C._optim), which updates every parameter of the group in a single loop."""
import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

from .._grad_mode import enable_grad
from .._zero_grad import zero_grads
from .._dtype import get_default_dtype, float64, float32
from .._tensor import Tensor
from .._creation import tensor, zeros_like

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()
_HOOK_TABLES = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks")


def _handle(table, hook, prepend=False):
    from ..nn.modules._hook_handles import RemovableHandle
    handle = RemovableHandle(table)
    table[handle.id] = hook
    if prepend:
        table.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook):
    """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), before every
    optimizer's step()."""
    return _handle(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """hook(optimizer, args, kwargs), after every optimizer's step()."""
    return _handle(_global_optimizer_post_hooks, hook)


def _hooked_step(func):
    """Wraps a class's step() to run the global and the optimizer's step hooks, as torch."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        self = args[0]
        for pre_hook in chain(_global_optimizer_pre_hooks.values(),
                              self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{func} must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {result}.")
                args, kwargs = result
        out = func(*args, **kwargs)
        for post_hook in chain(self._optimizer_step_post_hooks.values(),
                               _global_optimizer_post_hooks.values()):
            post_hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


class _RequiredParameter:
    """Marks a hyper-parameter that every param group must give (torch.optim.optimizer.required)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj):
    if isinstance(obj, Tensor):
        return "ember.Tensor"
    t = type(obj)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _step_dtype():
    # torch keeps step counts as float32 0-d tensors (float64 when that is the default dtype).
    return float64 if get_default_dtype() == float64 else float32


class Optimizer:
    """Base class. `params` is an iterable of tensors or of dicts (param groups); `defaults`
    holds the hyper-parameters that groups not naming them get.

    >>> class PlainSGD(ember.optim.Optimizer):
    ...     def __init__(self, params, lr):
    ...         super().__init__(params, {"lr": lr})
    ...     def step(self, closure=None):
    ...         for group in self.param_groups:
    ...             for p in group["params"]:
    ...                 p.data.sub_(group["lr"] * p.grad)
    >>> w = ember.nn.Parameter(ember.tensor([1.0]))
    >>> w.grad = ember.tensor([2.0])
    >>> PlainSGD([w], lr=0.5).step()
    >>> w.detach()
    tensor([0.])
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        for name in _HOOK_TABLES:
            setattr(self, name, OrderedDict())
        if not getattr(type(self).step, "hooked", False):
            type(self).step = _hooked_step(type(self).step)
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)
        if defaults.get("fused") and defaults.get("foreach"):
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in _HOOK_TABLES:
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())

    # ---- hooks (torch's: step, state_dict and load_state_dict, before and after) --------
    def register_step_pre_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), before step()."""
        return _handle(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """hook(optimizer, args, kwargs), after step()."""
        return _handle(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer), before state_dict() builds the dict."""
        return _handle(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) -> None or a state_dict to return instead."""
        return _handle(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) -> None or a state_dict to load instead."""
        return _handle(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer), after load_state_dict()."""
        return _handle(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    def add_param_group(self, param_group):
        """Adds a group of parameters (a dict with "params" and optional hyper-parameters)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                            "the ordering of tensors in sets will change between runs. Please use a "
                            "list instead.")
        else:
            param_group["params"] = list(params)

        tensors, names = [], []
        for p in param_group["params"]:
            if isinstance(p, tuple):  # (name, tensor), as from named_parameters()
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. "
                                 "Some param names are missing")
            param_group["param_names"] = names

        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)

        ids = {id(p) for p in tensors}
        if len(ids) != len(tensors):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; "
                          "see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Resets the grads: to None (default), or to zeros in place."""
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure=None):
        raise NotImplementedError

    def _run_closure(self, closure):
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # ---- saving and loading -----------------------------------------------------------
    def state_dict(self):
        """PyTorch's format: {"state": {index: {...}}, "param_groups": [{..., "params": [index]}]},
        parameters numbered in the order the groups list them. The state tensors are the
        optimizer's own (not copies), as in PyTorch."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        index = {}
        start = 0

        def pack(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict):
        """Loads what state_dict() returned (from this optimizer or one built the same way).
        Tensors are copied (cast to their parameter's dtype, except step counters), so the
        loaded optimizer shares no state with the dict."""
        state_dict = state_dict.copy()  # the hooks may change it; the caller's stays as it is
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, key=None):
            if isinstance(value, Tensor):
                if key != "step" and param.dtype != value.dtype:
                    return value.to(param.dtype)  # a new tensor
                return value.clone()
            if isinstance(value, dict):
                return {k: cast(param, v, k) for k, v in value.items()}
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        self.__setstate__({"state": state,
                           "param_groups": [update_group(g, s) for g, s in zip(groups, saved_groups)]})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # ---- helpers for the subclasses' step() --------------------------------------------
    # What torch's message for capturable=True on the CPU names (NAdam and ASGD name more).
    _capturable_tensors = "params and state_steps"
    _capturable_devices = ["cuda", "xpu", "hpu", "privateuseone", "xla"]

    def _refuse_capturable(self, group):
        """capturable=True is for CUDA-graph capture: torch's CPU step refuses it (once a
        parameter of the group has a grad); ember refuses it the same way, before any change."""
        if group.get("capturable"):
            raise AssertionError(f"If capturable=True, {self._capturable_tensors} must be on "
                                 f"supported devices: {self._capturable_devices}.")

    @staticmethod
    def _params_with_grad(group):
        """The group's parameters that have a grad, and those grads (torch skips the others)."""
        params, grads = [], []
        for p in group["params"]:
            g = p.grad
            if g is not None:
                params.append(p)
                grads.append(g)
        return params, grads

    def _groups_with_grads(self):
        """(group, params, grads) for each param group with at least one grad."""
        for group in self.param_groups:
            params, grads = self._params_with_grad(group)
            if params:
                yield group, params, grads

    @staticmethod
    def _new_step():
        return tensor(0.0, dtype=_step_dtype())

    def _lazy_states(self, params, buffers):
        """The parameters' states, created on their first step as torch does: a step
        counter, then a zero tensor like the parameter for each name in `buffers`."""
        states = [self.state[p] for p in params]
        for p, s in zip(params, states):
            if not s:
                s["step"] = self._new_step()
                for name in buffers:
                    s[name] = zeros_like(p)
        return states


def _check_hyperparameters(lr, checks):
    """torch.optim's argument checks: lr a number or a 1-element Tensor, then each
    (name, value) of `checks` in order must be >= 0 ("Invalid <name>: <value>")."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    for name, value in (("learning rate", lr),) + tuple(checks):
        if not 0.0 <= value:
            raise ValueError(f"Invalid {name}: {value}")


def _check_adam_hyperparameters(lr, betas, eps, weight_decay):
    """The checks torch's Adam-family constructors share, in torch's order: lr, eps, each
    beta in [0, 1), weight_decay."""
    _check_hyperparameters(lr, (("epsilon value", eps),))
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
    _check_hyperparameters(0.0, (("weight_decay value", weight_decay),))
