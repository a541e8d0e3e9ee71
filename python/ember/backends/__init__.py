"""ember.backends: torch.backends' flags and queries as PyTorch's CPU build answers them.

Flags are plain module attributes: `ember.backends.cudnn.benchmark = True` stores True and reads
back True; ember's CPU kernels do not consult them (there is no cuDNN, no TF32 and no CUDA
matmul). The availability queries answer for ember itself where it differs from torch's wheel:
ember links neither oneDNN (mkldnn) nor MKL, so those say False. (docs/devices.md)
"""
from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: F401

fp32_precision = "none"
