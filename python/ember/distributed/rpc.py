"""torch.distributed.rpc as a build without RPC has it: only is_available(), which is False.
ember has no RPC framework (no agents, RRefs or remote calls). torch's package exports
init_rpc, rpc_sync, ... only when its build has RPC, and programs check for them
(`rpc.is_available()`, `hasattr(rpc, 'api')`: PyG's distributed module imports this one at
`import torch_geometric` and takes its no-RPC branch)."""


def is_available():
    """False: ember has no RPC framework.

    >>> ember.distributed.rpc.is_available()
    False
    """
    return False
