"""torch's default DDP communication hooks: a hook(state, bucket) gets a GradBucket and returns
an ember.futures.Future of the bucket's averaged flat gradient. `state` is the process group
to use (None: the default group)."""
from ... import ReduceOp, all_reduce, group as _group

__all__ = ["allreduce_hook", "fp16_compress_hook", "bf16_compress_hook", "fp16_compress_wrapper",
           "bf16_compress_wrapper"]


def _group_to_use(process_group):
    return process_group if process_group is not None else _group.WORLD


def _allreduce_fut(process_group, tensor):
    """Divides `tensor` by the group size, all-reduces it (SUM) in place; the Future's value
    is the tensor."""
    pg = _group_to_use(process_group)
    tensor.div_(pg.size())
    return all_reduce(tensor, ReduceOp.SUM, group=process_group, async_op=True).get_future().then(
        lambda fut: fut.value()[0])


def allreduce_hook(process_group, bucket):
    """What DDP does without a hook: the mean of the bucket over the ranks."""
    return _allreduce_fut(process_group, bucket.buffer())


def _compress_hook(dtype, process_group, bucket):
    """Casts the bucket to `dtype`, divides it by the group size there, all-reduces the
    16-bit values and writes the result back into the bucket's buffer (its own dtype)."""
    pg = _group_to_use(process_group)
    buffer = bucket.buffer()
    compressed = buffer.to(dtype).div_(pg.size())

    def decompress(fut):
        buffer.copy_(fut.value()[0])
        return buffer
    return all_reduce(compressed, ReduceOp.SUM, group=process_group, async_op=True).get_future().then(
        decompress)


def fp16_compress_hook(process_group, bucket):
    """allreduce_hook through float16: half the bytes on the wire, float16's rounding."""
    from ...._dtype import float16
    return _compress_hook(float16, process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """allreduce_hook through bfloat16."""
    from ...._dtype import bfloat16
    return _compress_hook(bfloat16, process_group, bucket)


def _compress_wrapper(dtype, hook):
    def wrapped(hook_state, bucket):
        bucket.set_buffer(bucket.buffer().to(dtype))
        fut = hook(hook_state, bucket)

        def decompress(fut):
            out = bucket.buffer()
            value = fut.value()
            out.copy_(value[0] if isinstance(value, list) else value)
            return out
        return fut.then(decompress)
    return wrapped


def fp16_compress_wrapper(hook):
    """A hook that runs `hook` on the bucket cast to float16 (torch's wrapper)."""
    from ...._dtype import float16
    return _compress_wrapper(float16, hook)


def bf16_compress_wrapper(hook):
    """A hook that runs `hook` on the bucket cast to bfloat16."""
    from ...._dtype import bfloat16
    return _compress_wrapper(bfloat16, hook)
