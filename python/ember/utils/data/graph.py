"""torch.utils.data.graph: the graph of a DataPipe pipeline. traverse_dps(dp) ->
{id(dp): (dp, {id(source): (source, {...}), ...})}: each pipe with the pipes it reads from,
found among its attributes (directly or inside lists, tuples, sets and dicts), the way the
pipes were built; a pipe reached twice (a fork) appears under each reader."""
from .datapipes.datapipe import IterDataPipe, MapDataPipe

__all__ = ["DataPipe", "DataPipeGraph", "traverse", "traverse_dps"]

DataPipe = (IterDataPipe, MapDataPipe)
DataPipeGraph = dict  # {int: (DataPipe, DataPipeGraph)}


def _sources(dp):
    """The DataPipes among dp's attributes, in attribute order (each once)."""
    found, seen = [], {id(dp)}

    def visit(value, depth):
        if isinstance(value, DataPipe):
            if id(value) not in seen:
                seen.add(id(value))
                found.append(value)
        elif depth < 3 and isinstance(value, (list, tuple, set, frozenset)):
            for v in value:
                visit(v, depth + 1)
        elif depth < 3 and isinstance(value, dict):
            for v in value.values():
                visit(v, depth + 1)

    for value in getattr(dp, "__dict__", {}).values():
        visit(value, 0)
    return found


def _graph(dp, path):
    if id(dp) in path:  # a cycle: stop here
        return {}
    path = path | {id(dp)}
    return {id(s): (s, _graph(s, path)) for s in _sources(dp)}


def traverse_dps(datapipe):
    """The graph of every DataPipe that `datapipe` reads from, directly or not."""
    if not isinstance(datapipe, DataPipe):
        raise RuntimeError(f"Expected `IterDataPipe` or `MapDataPipe`, but {type(datapipe)} is "
                           "found")
    return {id(datapipe): (datapipe, _graph(datapipe, frozenset()))}


def traverse(datapipe, only_datapipe=None):
    """traverse_dps (only_datapipe is accepted for torch's deprecated signature)."""
    import warnings
    warnings.warn("`traverse` function and will be removed after 1.13. Please use "
                  "`traverse_dps` instead.", FutureWarning, stacklevel=2)
    return traverse_dps(datapipe)
