"""torch.utils.data.datapipes: composable data-loading steps (DataPipes). The iterable-style
ones (iter) and map-style ones (map) chain as methods: IterableWrapper(range(10)).map(f)
.filter(g).shuffle().batch(4); a DataLoader takes them as datasets, shuffles their Shufflers
with its seed each epoch and shards their ShardingFilters over its workers (graph_settings)."""
from . import iter, map  # noqa: A004
from ._decorator import (argument_validation, functional_datapipe,
                         guaranteed_datapipes_determinism, non_deterministic, runtime_validation,
                         runtime_validation_disabled)
from .datapipe import DataChunk, DFIterDataPipe, IterDataPipe, MapDataPipe

__all__ = ["DFIterDataPipe", "DataChunk", "IterDataPipe", "MapDataPipe", "argument_validation",
           "functional_datapipe", "guaranteed_datapipes_determinism", "iter", "map",
           "non_deterministic", "runtime_validation", "runtime_validation_disabled"]
