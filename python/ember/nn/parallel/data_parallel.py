"""DataParallel and data_parallel as torch's on a machine without accelerators: ember runs
on the CPU only, so DataParallel wraps the module without replicating it (device_ids is
[], forward calls the module; state_dict keys get torch's "module." prefix), and
data_parallel raises as torch's does when it finds no device type."""
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """torch.nn.DataParallel on a CPU-only build: a pass-through wrapper around `module`.
    device_ids, output_device and dim are accepted; there is no device to split the batch
    over, so, as torch, the wrapper keeps only `module` and `device_ids = []`.

    >>> m = ember.nn.DataParallel(ember.nn.Identity())
    >>> m(ember.tensor([1.0, 2.0])), type(m.module).__name__
    (tensor([1., 2.]), 'Identity')
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """torch.nn.parallel.data_parallel: needs an accelerator, so it raises on ember as on a
    CPU-only torch."""
    raise RuntimeError("device type could not be determined")
