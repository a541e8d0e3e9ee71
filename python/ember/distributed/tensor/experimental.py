"""torch.distributed.tensor.experimental: only `implicit_replication` is here, and it raises.
In torch it lets ops mix DTensors with plain tensors (treated as replicated); ember's ops take
no DTensor (docs/distributed.md), so no op could use it. Importable, because libraries import
it at load time (opacus, for its FSDP optimizer) and use it only on DTensor paths."""

__all__ = ["implicit_replication"]


def implicit_replication():
    """torch's context manager that treats plain tensors as replicated DTensors in DTensor
    ops: not in ember (its ops take no DTensor); raises NotImplementedError."""
    raise NotImplementedError("implicit_replication: ember's ops take no DTensor, so there is no "
                              "DTensor op for plain tensors to be replicated into")
