"""What a process can ask about how it was launched and which backends it has, as
torch.distributed's helpers of the same names: ember's launcher (run.py) sets torchrun's
variables, and Gloo on the CPU is its one backend."""
import os

__all__ = ["is_torchelastic_launched", "get_node_local_rank", "is_backend_available",
           "is_ucc_available", "is_xccl_available", "get_default_backend_for_device",
           "supports_complex"]


def is_torchelastic_launched():
    """True when the process was started by a launcher (ember.distributed.run / torchrun):
    TORCHELASTIC_RUN_ID is in the environment.

    >>> import os
    >>> ember.distributed.is_torchelastic_launched() == ("TORCHELASTIC_RUN_ID" in os.environ)
    True
    """
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def get_node_local_rank(fallback_rank=None):
    """The rank of this process on its machine: LOCAL_RANK (the launcher sets it), else
    fallback_rank, else RuntimeError.

    >>> ember.distributed.get_node_local_rank(fallback_rank=0) >= 0
    True
    """
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to "
                       "allow `get_node_local_rank` to work, assuming you are not running in a "
                       "multi-device context and want the code to run locally instead.")


def is_backend_available(backend):
    """Whether `backend` ("gloo", or "cpu:gloo" style device:backend pairs) can be used:
    only Gloo in ember.

    >>> dist = ember.distributed
    >>> dist.is_backend_available("gloo"), dist.is_backend_available("nccl")
    (True, False)
    """
    names = [part.split(":")[-1] for part in str(backend).lower().split(",")]
    return all(n == "gloo" for n in names)


def is_ucc_available():
    """False: ember is built with Gloo only.

    >>> ember.distributed.is_ucc_available()
    False
    """
    return False


def is_xccl_available():
    """False: ember is built with Gloo only.

    >>> ember.distributed.is_xccl_available()
    False
    """
    return False


def get_default_backend_for_device(device):
    """The backend a device's tensors use: "gloo" for the CPU (ember's only device).

    >>> ember.distributed.get_default_backend_for_device("cpu")
    'gloo'
    """
    from .. import device as _device
    d = device if not isinstance(device, str) else _device(device)
    if d.type != "cpu":
        raise ValueError(f"Default backend not registered for device : {d.type}")
    return "gloo"


def supports_complex(reduce_op):
    """Whether all_reduce with `reduce_op` is defined on complex tensors (SUM, AVG, PRODUCT;
    not MIN/MAX/bitwise ops).

    >>> rop = ember.distributed.ReduceOp
    >>> ember.distributed.supports_complex(rop.SUM), ember.distributed.supports_complex(rop.MAX)
    (True, False)
    """
    from ._collectives_core import ReduceOp
    no = {getattr(ReduceOp, n) for n in ("MAX", "MIN", "PRODUCT", "BAND", "BOR", "BXOR")
          if hasattr(ReduceOp, n)}
    return reduce_op not in no
