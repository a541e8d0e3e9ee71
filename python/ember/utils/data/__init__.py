"""ember.utils.data: datasets, samplers and the DataLoader, with torch.utils.data's API.

    from ember.utils.data import DataLoader, TensorDataset
    loader = DataLoader(TensorDataset(x, y), batch_size=128, shuffle=True)
    for xb, yb in loader: ...

A TensorDataset (or a Subset of one) with the default collate_fn is batched by one
index_select per tensor. Random orders are reproducible (ember.manual_seed, or
generator=ember.Generator().manual_seed(s)) but differ from PyTorch's.

DataPipes (datapipes, graph, graph_settings) chain data-loading steps and go to a DataLoader
as its dataset: IterableWrapper(files).map(load).shuffle().sharding_filter().batch(32).
"""
from ._collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset,
                      TensorDataset, random_split)
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)
from . import datapipes, graph, graph_settings  # noqa: E402
from .datapipes import (DataChunk, DFIterDataPipe, IterDataPipe, MapDataPipe,  # noqa: E402
                        argument_validation, functional_datapipe,
                        guaranteed_datapipes_determinism, non_deterministic, runtime_validation,
                        runtime_validation_disabled)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "default_collate", "default_convert", "get_worker_info", "random_split",
           "DataChunk", "DFIterDataPipe", "IterDataPipe", "MapDataPipe", "argument_validation",
           "datapipes", "functional_datapipe", "graph", "graph_settings",
           "guaranteed_datapipes_determinism", "non_deterministic", "runtime_validation",
           "runtime_validation_disabled"]
