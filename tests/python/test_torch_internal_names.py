"""Names from torch's internals that real programs import (Lightning, among others), each
checked to play the role it plays in torch 2.13."""
import torch

import ember


def test_reduce_op_red_op_type():
    import ember.distributed as dist
    import torch.distributed as tdist
    for name in ("SUM", "AVG", "MAX", "MIN", "PRODUCT"):
        assert getattr(dist.ReduceOp.RedOpType, name) == getattr(dist.ReduceOp, name)
        assert getattr(tdist.ReduceOp.RedOpType, name) == getattr(tdist.ReduceOp, name)


def test_distributed_constants():
    import ember.distributed.constants as ec
    import torch.distributed.constants as tc
    assert ec.default_pg_timeout == tc.default_pg_timeout
    assert ec.default_pg_nccl_timeout is None  # no NCCL (torch's CPU build: None too)
    assert ember.distributed.default_pg_timeout is ec.default_pg_timeout


def test_tensor_meta_is_the_tensor_metaclass():
    assert ember._C._TensorMeta is type(ember.Tensor)
    assert torch._C._TensorMeta is type(torch.Tensor)


def test_optimized_module_is_what_compile_returns():
    import ember._dynamo
    import torch._dynamo
    for lib in (ember, torch):
        assert isinstance(lib.compile(lib.nn.Linear(2, 2)), lib._dynamo.OptimizedModule)


def test_dataloader_iterator_classes():
    from ember.utils.data import dataloader as ed
    from torch.utils.data import dataloader as td
    for lib, mod in ((ember, ed), (torch, td)):
        it = iter(lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.ones(4, 2)),
                                            batch_size=2))
        assert isinstance(it, mod._BaseDataLoaderIter)
        assert isinstance(it, mod._SingleProcessDataLoaderIter)
        assert not isinstance(it, mod._MultiProcessingDataLoaderIter)
        assert issubclass(mod._MultiProcessingDataLoaderIter, mod._BaseDataLoaderIter)


def test_batchnorm_base():
    from ember.nn.modules.batchnorm import _BatchNorm
    from torch.nn.modules.batchnorm import _BatchNorm as _TBatchNorm
    for cls, base, lib in ((ember.nn.BatchNorm2d, _BatchNorm, ember),
                           (torch.nn.BatchNorm2d, _TBatchNorm, torch)):
        assert issubclass(cls, base) and issubclass(lib.nn.SyncBatchNorm, base)
