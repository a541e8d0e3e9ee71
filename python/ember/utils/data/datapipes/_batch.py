"""The batch size, drop_last and wrapper class shared by the iterable and the map-style
Batcher."""
from .datapipe import DataChunk


class _Batching:
    """Batches of batch_size items of `datapipe`, wrapped in wrapper_class; a last shorter
    batch is dropped with drop_last."""

    def __init__(self, datapipe, batch_size, drop_last=False, wrapper_class=DataChunk):
        if not isinstance(batch_size, int) or batch_size <= 0:
            raise AssertionError("Batch size is required to be larger than 0!")
        self.datapipe = datapipe
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.wrapper_class = wrapper_class

    def _num_batches(self, n):
        """How many batches n items make."""
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
