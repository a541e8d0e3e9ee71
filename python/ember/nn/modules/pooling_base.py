"""The base of the max-pooling modules of every dimension (pooling.py, pooling_3d.py), as
torch.nn.modules.pooling._MaxPoolNd."""
from .module import Module


class _MaxPoolNd(Module):
    """Max over kernel_size windows; stride defaults to kernel_size. return_indices=True
    returns (output, indices)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, "
                "dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))
