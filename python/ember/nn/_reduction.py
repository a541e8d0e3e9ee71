"""The reduction string PyTorch derives from the deprecated size_average / reduce flags
(torch.nn._reduction.legacy_get_string), shared by every loss."""
import warnings


def legacy_reduction(size_average, reduce):
    """The reduction string PyTorch derives from the deprecated size_average / reduce flags."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' "
                  "instead.", stacklevel=3)
    return ret
