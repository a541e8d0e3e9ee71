"""GradBucket: what a DDP communication hook receives (torch.distributed.GradBucket)."""


class GradBucket:
    """One bucket of a DistributedDataParallel backward: the flat buffer holding its
    parameters' gradients (in bucket order), and where each parameter's gradient sits in it.
    DistributedDataParallel builds them and passes them to a communication hook.

    >>> buf = ember.tensor([1.0, 2.0, 3.0])
    >>> b = ember.distributed.GradBucket(0, buf, [buf[:2], buf[2:]], [], True)
    >>> b.index(), b.buffer(), b.gradients()[1], b.is_last()
    (0, tensor([1., 2., 3.]), tensor([3.]), True)
    """

    def __init__(self, index, buffer, views, params, is_last):
        self._index = index
        self._buffer = buffer
        self._views = views
        self._params = params
        self._is_last = is_last

    def index(self):
        """The bucket's index (0 holds the last parameters: backward produces them first)."""
        return self._index

    def buffer(self):
        """The flat 1-D tensor of the bucket's gradients."""
        return self._buffer

    def gradients(self):
        """The bucket's gradients, one per parameter (views of the buffer, parameter-shaped)."""
        return list(self._views)

    def parameters(self):
        """The bucket's parameters, in the order of gradients()."""
        return list(self._params)

    def is_last(self):
        """True for the last bucket of the step."""
        return self._is_last

    def set_buffer(self, buffer):
        """Replaces the tensor buffer() returns (the wrappers put a 16-bit copy there)."""
        from .._tensor import Tensor
        if not isinstance(buffer, Tensor):
            raise TypeError(f"GradBucket.set_buffer: expected a Tensor, got {type(buffer).__name__}")
        self._buffer = buffer

    def __repr__(self):
        return f"<ember.distributed.GradBucket index={self._index} numel={self._buffer.numel()}>"
