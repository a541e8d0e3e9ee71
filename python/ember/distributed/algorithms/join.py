"""Join: training with uneven inputs, as torch.distributed.algorithms.join.

    with Join([ddp_model]):                  # or: with ddp_model.join():
        for x, y in my_batches:              # a different number of batches on each rank
            loss_fn(ddp_model(x), y).backward()
            opt.step()

Every iteration, each rank still training all-reduces a 1 (Join.notify_join_context, called by
the Joinable's forward). A rank that has run out of inputs leaves the loop and enters
__exit__, where it all-reduces a 0 and, while the sum (the ranks still training) is not 0,
runs its JoinHooks' main_hook(), which issue the same collectives as one training iteration
(for DDP: all-reduces of zero gradients), so the others do not hang. When the sum is 0 every
rank runs post_hook(is_last_joiner)."""
import warnings
from abc import ABC, abstractmethod

__all__ = ["JoinHook", "Joinable", "Join"]


class JoinHook:
    """What a Joinable does while it is joined: main_hook() shadows one iteration's
    collectives, post_hook(is_last_joiner) runs once every rank has joined."""

    def main_hook(self):
        pass

    def post_hook(self, is_last_joiner):
        pass


class Joinable(ABC):
    """A class that takes part in Join: join_hook(**kwargs) gives its JoinHook,
    join_device and join_process_group where the join collectives run."""

    @abstractmethod
    def __init__(self):
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs):
        ...

    @property
    @abstractmethod
    def join_device(self):
        ...

    @property
    @abstractmethod
    def join_process_group(self):
        ...


class _JoinConfig:
    def __init__(self, enable, throw_on_early_termination, is_first_joinable):
        self.enable = enable
        self.throw_on_early_termination = throw_on_early_termination
        self.is_first_joinable = is_first_joinable

    @staticmethod
    def construct_disabled_join_config():
        return _JoinConfig(enable=False, throw_on_early_termination=False, is_first_joinable=False)


def _dist():
    from ... import distributed
    return distributed


class Join:
    """Context manager for uneven inputs (torch's Join). joinables: the Joinable objects
    (each at most once), all on one process group; enable=False makes it a no-op;
    throw_on_early_termination=True raises a RuntimeError on every rank as soon as one
    runs out of inputs, instead of shadowing; kwargs go to each join_hook()."""

    def __init__(self, joinables, enable=True, throw_on_early_termination=False, **kwargs):
        joinables = list(joinables)
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        for j in joinables:
            if not isinstance(j, Joinable):
                raise TypeError(f"Join: expected Joinable objects, got {type(j).__name__}")
        if len({id(j) for j in joinables}) != len(joinables):
            raise ValueError("Join: a joinable was given twice")
        self._joinables = joinables
        self._join_hooks = [j.join_hook(**kwargs) for j in joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        self._set_joinable_configs()
        self._extract_dist_info()

    def _set_joinable_configs(self):
        for i, j in enumerate(self._joinables):
            j._join_config = _JoinConfig(self._enable, self._throw_on_early_termination, i == 0)

    def _extract_dist_info(self):
        groups = {id(j.join_process_group): j.join_process_group for j in self._joinables}
        if len(groups) > 1:
            raise ValueError("Using join context manager with multiple process groups")
        self._process_group = next(iter(groups.values()))
        self._rank = _dist().get_rank(self._process_group)

    def __enter__(self):
        return None

    def __exit__(self, type, value, traceback):
        if not self._enable or type:
            return  # an exception propagates as it is
        all_procs_joined = False
        is_last_joiner = True
        i = 0
        warned = False
        while not all_procs_joined:
            if i > 1000 and not warned:
                warnings.warn(f"Detected uneven input skew of greater than 1000. This means that rank "
                              f"{self._rank} has at least 1000 fewer inputs than other currently-active "
                              "ranks. This level of skew could lead to performance degradation during "
                              "training.")
                warned = True
            if self._get_num_nonjoined_procs() == 0:
                all_procs_joined = True
            else:
                if self._throw_on_early_termination:
                    self._notify_procs_to_terminate()
                for hook in self._join_hooks:
                    hook.main_hook()
                is_last_joiner = False
            i += 1
        for hook in self._join_hooks:
            hook.post_hook(is_last_joiner)

    def _get_num_nonjoined_procs(self):
        from ... import zeros
        n = zeros(1)
        _dist().all_reduce(n, group=self._process_group)
        return int(n.item())

    def _notify_procs_to_terminate(self):
        from ... import ones
        _dist().all_reduce(ones(1), group=self._process_group)
        raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")

    @staticmethod
    def notify_join_context(joinable):
        """Called by a Joinable once per iteration (before its collectives): the first
        joinable all-reduces a 1 (asynchronously: the returned Work, else None) to match the
        0 of the joined ranks; with throw_on_early_termination it raises once a rank joined."""
        from ... import ones, zeros
        if not isinstance(joinable, Joinable):
            raise TypeError(f"Join.notify_join_context: expected a Joinable, got {type(joinable).__name__}")
        config = joinable._join_config
        if not config.is_first_joinable or not config.enable:
            return None
        pg = joinable.join_process_group
        work = _dist().all_reduce(ones(1), group=pg, async_op=True)  # meets the joined ranks' 0
        if config.throw_on_early_termination:
            should_throw = zeros(1)  # meets a joined rank's 1 (_notify_procs_to_terminate)
            _dist().all_reduce(should_throw, group=pg)
            if should_throw.item():
                raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing across "
                                   "all ranks.")
        return work
