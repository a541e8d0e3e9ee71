"""F.bilinear (and torch.bilinear): y[..., o] = x1[..., :] @ weight[o] @ x2[..., :] + bias[o],
as one matmul of x1 with the weight's (in1, out * in2) matrix and one batched product with x2.
Re-exported by ember.nn.functional and ember."""
from .. import _C
from .._pointwise import _check_tensor

__all__ = ["bilinear"]


def bilinear(input1, input2, weight, bias=None):
    """bilinear(input1, input2, weight, bias=None) -> Tensor

    y[..., o] = input1 @ weight[o] @ input2 + bias[o]: input1 (*, in1), input2 (*, in2),
    weight (out, in1, in2), bias (out) -> (*, out).

    >>> w = ember.tensor([[[1.0], [1.0]]])
    >>> ember.nn.functional.bilinear(ember.tensor([[1.0, 2.0]]), ember.tensor([[3.0]]), w)
    tensor([[9.]])
    """
    for x, arg in ((input1, "input1"), (input2, "input2"), (weight, "weight")):
        _check_tensor(x, "bilinear", arg)
    if bias is not None:
        _check_tensor(bias, "bilinear", "bias")
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and "
                           f"{input2.dim()}")
    if input1.dim() == 0:
        raise RuntimeError("bilinear(): expected inputs with at least 1 dimension, got 0-d inputs")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match: got "
                               f"{input1.shape[i]} and {input2.shape[i]}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): expected a 3-d weight (out, in1, in2), got weight of "
                           f"shape {list(weight.shape)}")
    out, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {in1}")
    if input2.shape[-1] != in2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {in2}")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0] if bias.dim() else list(bias.shape)} but expected {out}")
    batch = list(input1.shape[:-1])
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    t = x1.matmul(weight.permute(1, 0, 2).reshape(in1, out * in2)).reshape(-1, out, in2)
    y = _C.bmm(t, x2.unsqueeze(2)).squeeze(2)
    if bias is not None:
        y = y + bias
    return y.reshape(batch + [out])
