"""torch.utils.data.datapipes.iter: the iterable-style DataPipes, each also a chained method
of every IterDataPipe (the name in parentheses)."""
from .callable import Collator, Mapper  # collate, map
from .combinatorics import Sampler, Shuffler  # shuffle
from .combining import Concater, Demultiplexer, Forker, Multiplexer, Zipper  # concat, demux, fork, mux, zip
from .grouping import Batcher, Grouper, UnBatcher  # batch, groupby, unbatch
from .selecting import Filter  # filter
from .sharding import ShardingFilter  # sharding_filter
from .utils import IterableWrapper

__all__ = ["Batcher", "Collator", "Concater", "Demultiplexer", "Filter", "Forker", "Grouper",
           "IterableWrapper", "Mapper", "Multiplexer", "Sampler", "ShardingFilter", "Shuffler",
           "UnBatcher", "Zipper"]
