"""Subgroups of the default group (torch.distributed.new_group and friends) and the
translation between global ranks and group ranks. Each group is a C++ ProcessGroup with
its own Gloo context and store prefix (src/distributed/groups.cpp)."""
import warnings

from .. import _C

_d = _C._distributed

NON_GROUP_MEMBER = -100  # torch's GroupMember.NON_GROUP_MEMBER


def not_in_group(group):
    return group is NON_GROUP_MEMBER or (isinstance(group, int) and group == NON_GROUP_MEMBER)


def warn_not_in_group(op):
    warnings.warn(f"Running {op} on global rank {_d.get_rank(None)} which does not belong to the given group.",
                  stacklevel=3)


def world():
    return _d.default_group()


def ranks_of(group, op):
    """The global ranks of `group`'s members (None: the default group)."""
    if group is None:
        if not _d.is_initialized():
            raise ValueError(f"{op}: the default process group has not been initialized, call "
                             "init_process_group first")
        return list(_d.default_group().global_ranks)
    if not_in_group(group):
        raise ValueError(f"{op}: this rank is not a member of the group (GroupMember.NON_GROUP_MEMBER)")
    if not isinstance(group, _d.ProcessGroup):
        raise TypeError(f"{op}: group must be None or a ProcessGroup, got {type(group).__name__}")
    return list(group.global_ranks)


def group_rank(group, global_rank, op):
    ranks = ranks_of(group, op)
    if global_rank not in ranks:
        raise ValueError(f"{op}: global rank {global_rank} is not part of the group (its ranks are {ranks})")
    return ranks.index(global_rank)


def global_rank(group, rank_in_group, op):
    ranks = ranks_of(group, op)
    if not 0 <= rank_in_group < len(ranks):
        raise ValueError(f"{op}: group rank {rank_in_group} is not part of the group (of size {len(ranks)})")
    return ranks[rank_in_group]


def peer(op, group, rank, group_rank_, name):
    """The group rank of a `src`/`dst` given as a global rank or as `group_src`/`group_dst`."""
    if rank is not None and group_rank_ is not None:
        raise ValueError(f"{op}: give either {name} or group_{name}, not both")
    if group_rank_ is not None:
        r = int(group_rank_)
        size = len(ranks_of(group, op))
        if not 0 <= r < size:
            raise ValueError(f"{op}: invalid group_{name} {r} for a group of size {size}")
        return r
    if rank is None:
        raise ValueError(f"{op}: missing the {'source' if name == 'src' else 'destination'} rank `{name}`")
    if group is None:
        return int(rank)  # the C++ side checks the range
    return group_rank(group, int(rank), op)


def root(op, group, rank, group_rank_, name):
    """The group rank of a rooted collective's `src`/`dst` (as peer); rank 0 when neither it
    nor group_src/group_dst is given."""
    return peer(op, group, 0 if rank is None and group_rank_ is None else rank, group_rank_, name)


def seconds(timeout, op):
    import datetime
    if timeout is None:
        return 0.0  # the default group's timeout
    if isinstance(timeout, datetime.timedelta):
        s = timeout.total_seconds()
    elif isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        s = float(timeout)
    else:
        raise TypeError(f"{op}: timeout must be a datetime.timedelta, got {type(timeout).__name__}")
    if s <= 0:
        raise ValueError(f"{op}: timeout must be positive, got {s} s")
    return s


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """torch.distributed.new_group: every rank of the default group must call it, with the
    same ranks, in the same order as the other new_group calls. Members get a ProcessGroup,
    the others GroupMember.NON_GROUP_MEMBER.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.get_process_group_ranks(dist.new_group([0]))
    [0]
    >>> dist.destroy_process_group()
    """
    if backend is not None and str(backend).lower() not in ("gloo", "cpu:gloo"):
        raise ValueError(f"new_group: unknown backend '{backend}' (ember supports 'gloo')")
    if use_local_synchronization:
        raise ValueError("new_group: use_local_synchronization=True is not supported by ember "
                         "(every rank of the default group calls new_group)")
    if ranks is None:
        ranks = []
    elif not isinstance(ranks, (list, tuple, range)) or not all(isinstance(r, int) for r in ranks):
        raise TypeError(f"new_group: ranks must be a list of ints, got {ranks!r}")
    g = _d.new_group([int(r) for r in ranks], seconds(timeout, "new_group"))
    return NON_GROUP_MEMBER if g is None else g


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None, group_desc=None):
    """Splits the default group into consecutive subgroups of `group_size` ranks; returns
    (this rank's subgroup, all subgroups).

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> mine, groups = dist.new_subgroups(1)
    >>> dist.get_process_group_ranks(mine), len(groups)
    ([0], 1)
    >>> dist.destroy_process_group()
    """
    if group is not None:
        raise ValueError("new_subgroups: group= (splitting a subgroup) is not supported by ember; "
                         "use new_subgroups_by_enumeration")
    world_size = _d.get_world_size(None)
    if group_size is None or not isinstance(group_size, int) or group_size <= 0:
        raise ValueError(f"new_subgroups: the arg 'group_size' must be a positive int, got {group_size!r}")
    if group_size > world_size:
        raise ValueError(f"new_subgroups: the arg 'group_size' ({group_size}) must not exceed the world size "
                         f"({world_size})")
    if world_size % group_size != 0:
        raise ValueError(f"new_subgroups: the world size ({world_size}) must be divisible by 'group_size' "
                         f"({group_size})")
    return new_subgroups_by_enumeration(
        [list(range(s, s + group_size)) for s in range(0, world_size, group_size)], timeout=timeout, backend=backend)


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None, pg_options=None,
                                 group_desc=None):
    """One subgroup per list of global ranks; returns (this rank's subgroup or None, all).

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> mine, groups = dist.new_subgroups_by_enumeration([[0]])
    >>> dist.get_process_group_ranks(mine), len(groups)
    ([0], 1)
    >>> dist.destroy_process_group()
    """
    if not ranks_per_subgroup_list:
        raise ValueError("new_subgroups_by_enumeration: the arg 'ranks_per_subgroup_list' cannot be empty")
    seen = {}
    for i, ranks in enumerate(ranks_per_subgroup_list):
        for r in ranks:
            if r in seen:
                raise ValueError(f"new_subgroups_by_enumeration: rank {r} has appeared in both subgroup "
                                 f"{seen[r]} and subgroup {i}")
            seen[r] = i
    me = _d.get_rank(None)
    cur, subgroups = None, []
    for ranks in ranks_per_subgroup_list:
        g = new_group(list(ranks), timeout=timeout, backend=backend)
        subgroups.append(g)
        if me in ranks:
            cur = g
    return cur, subgroups


def destroy(group):
    """destroy_process_group(group): one subgroup, or everything (None or the default group)."""
    if not_in_group(group):
        return
    if group is None or _d.is_default_group(group):
        _d.destroy_process_group()
        return
    if not isinstance(group, _d.ProcessGroup):
        raise TypeError(f"destroy_process_group: group must be None or a ProcessGroup, got {type(group).__name__}")
    _d.destroy_group(group)
