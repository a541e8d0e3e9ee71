"""Lazy modules: LazyModuleMixin and the lazy layers, whose input size is inferred from the
first forward, as torch.nn.modules.lazy.

A lazy module holds UninitializedParameter/UninitializedBuffer objects. A forward pre-hook
calls initialize_parameters(input): the parameters are materialized in place (an optimizer
built before that keeps working), initialised as the non-lazy layer's, and the module
becomes its cls_to_become (LazyLinear -> Linear). Loading a state_dict materializes them too.

torch keeps LazyLinear in torch.nn.modules.linear, LazyConv* in .conv, LazyBatchNorm* in
.batchnorm and LazyInstanceNorm* in .instancenorm; here they live together in this file."""
import itertools

from ..._grad_mode import no_grad
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from ..._creation import tensor
from ..._dtype import int64
from .conv import Conv1d, Conv2d, Conv3d
from .conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d", "LazyConv3d", "LazyConvTranspose3d",
           "LazyBatchNorm3d"]


def _lazy_load_hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
                    unexpected_keys, error_msgs):
    """Materializes each lazy parameter/buffer that state_dict holds a real tensor for."""
    for name, param in itertools.chain(module._parameters.items(), module._buffers.items()):
        key = prefix + name
        if key in state_dict and param is not None and is_lazy(param):
            value = state_dict[key]
            if not is_lazy(value):
                with no_grad():
                    param.materialize(value.shape)


class LazyModuleMixin:
    """Mixed in before a layer class: its parameters are inferred from the first input."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self.register_load_state_dict_pre_hook(_lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # an uninitialized tensor is saved as itself (detach() would give a plain tensor)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = (param if is_lazy(param) or keep_vars
                                              else param.detach())
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(),
                                                       self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize the "
                           "modules")


# ---- linear ---------------------------------------------------------------------------------
class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is the last dim of the first input.

    >>> m = ember.nn.LazyLinear(2)
    >>> m(ember.ones(3, 5)).shape, m.weight.shape
    (ember.Size([3, 2]), ember.Size([2, 5]))
    """

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


# ---- convolutions -----------------------------------------------------------------------------
class _LazyConvXdMixin(LazyModuleMixin):
    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            with no_grad():
                self.weight.materialize(shape + tuple(self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()

    def _get_in_channels(self, input):
        unbatched = self.nd + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) "
                               f"input to {self.__class__.__name__}, but got input of size: "
                               f"{input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def _lazy_weights(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)


# The example of each Lazy class's docstring: the input's channels become the weight's.
_EXAMPLES = {
    "LazyConv1d": (">>> m = ember.nn.LazyConv1d(4, 3)\n"
                ">>> m(ember.ones(1, 2, 5)).shape, m.weight.shape\n"
                "(ember.Size([1, 4, 3]), ember.Size([4, 2, 3]))"),
    "LazyConv2d": (">>> m = ember.nn.LazyConv2d(4, 3)\n"
                ">>> m(ember.ones(1, 2, 5, 5)).shape, m.weight.shape\n"
                "(ember.Size([1, 4, 3, 3]), ember.Size([4, 2, 3, 3]))"),
    "LazyConv3d": (">>> m = ember.nn.LazyConv3d(4, 1)\n"
                ">>> m(ember.ones(1, 2, 3, 3, 3)).shape, m.weight.shape\n"
                "(ember.Size([1, 4, 3, 3, 3]), ember.Size([4, 2, 1, 1, 1]))"),
    "LazyConvTranspose1d": (">>> m = ember.nn.LazyConvTranspose1d(4, 3)\n"
                ">>> m(ember.ones(1, 2, 5)).shape, m.weight.shape\n"
                "(ember.Size([1, 4, 7]), ember.Size([2, 4, 3]))"),
    "LazyConvTranspose2d": (">>> m = ember.nn.LazyConvTranspose2d(4, 2, stride=2)\n"
                ">>> m(ember.ones(1, 2, 3, 3)).shape, m.weight.shape\n"
                "(ember.Size([1, 4, 6, 6]), ember.Size([2, 4, 2, 2]))"),
    "LazyConvTranspose3d": (">>> m = ember.nn.LazyConvTranspose3d(4, 1)\n"
                ">>> m(ember.ones(1, 2, 2, 2, 2)).shape, m.weight.shape\n"
                "(ember.Size([1, 4, 2, 2, 2]), ember.Size([2, 4, 1, 1, 1]))"),
    "LazyBatchNorm1d": (">>> m = ember.nn.LazyBatchNorm1d()\n"
                ">>> m(ember.ones(3, 5)).shape, m.weight.shape\n"
                "(ember.Size([3, 5]), ember.Size([5]))"),
    "LazyBatchNorm2d": (">>> m = ember.nn.LazyBatchNorm2d()\n"
                ">>> m(ember.ones(2, 3, 4, 4)).shape, m.weight.shape\n"
                "(ember.Size([2, 3, 4, 4]), ember.Size([3]))"),
    "LazyBatchNorm3d": (">>> m = ember.nn.LazyBatchNorm3d()\n"
                ">>> m(ember.ones(2, 3, 2, 2, 2)).shape, m.weight.shape\n"
                "(ember.Size([2, 3, 2, 2, 2]), ember.Size([3]))"),
    "LazyInstanceNorm1d": (">>> m = ember.nn.LazyInstanceNorm1d()\n"
                ">>> m(ember.ones(2, 3, 4)).shape, m.weight.shape\n"
                "(ember.Size([2, 3, 4]), ember.Size([3]))"),
    "LazyInstanceNorm2d": (">>> m = ember.nn.LazyInstanceNorm2d()\n"
                ">>> m(ember.ones(2, 3, 4, 4)).shape, m.weight.shape\n"
                "(ember.Size([2, 3, 4, 4]), ember.Size([3]))"),
    "LazyInstanceNorm3d": (">>> m = ember.nn.LazyInstanceNorm3d()\n"
                ">>> m(ember.ones(2, 3, 2, 2, 2)).shape, m.weight.shape\n"
                "(ember.Size([2, 3, 2, 2, 2]), ember.Size([3]))"),
}


def _lazy_conv(base):
    class LazyConv(_LazyConvXdMixin, base):
        cls_to_become = base

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                     bias=True, padding_mode="zeros", device=None, dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                             padding_mode, device, dtype)
            self._lazy_weights(out_channels, bias, device, dtype)

    LazyConv.__name__ = LazyConv.__qualname__ = "Lazy" + base.__name__
    LazyConv.__doc__ = (f"{base.__name__} whose in_channels is read from the first input.\n\n"
                        + _EXAMPLES[LazyConv.__name__])
    return LazyConv


def _lazy_conv_transpose(base):
    class LazyConvTranspose(_LazyConvXdMixin, base):
        cls_to_become = base

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                     groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                     dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                             dilation, padding_mode, device, dtype)
            self._lazy_weights(out_channels, bias, device, dtype)

    LazyConvTranspose.__name__ = LazyConvTranspose.__qualname__ = "Lazy" + base.__name__
    LazyConvTranspose.__doc__ = (f"{base.__name__} whose in_channels is read from the first "
                                 "input.\n\n" + _EXAMPLES[LazyConvTranspose.__name__])
    return LazyConvTranspose


LazyConv1d = _lazy_conv(Conv1d)
LazyConv2d = _lazy_conv(Conv2d)
LazyConvTranspose1d = _lazy_conv_transpose(ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv_transpose(ConvTranspose2d)
LazyConv3d = _lazy_conv(Conv3d)
LazyConvTranspose3d = _lazy_conv_transpose(ConvTranspose3d)


# ---- normalization ----------------------------------------------------------------------------
class _LazyNormBase(LazyModuleMixin):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=int64)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    self.bias.materialize((self.num_features,))
                if self.track_running_stats:
                    self.running_mean.materialize((self.num_features,))
                    self.running_var.materialize((self.num_features,))
                self.reset_parameters()


def _lazy_norm(base):
    class LazyNorm(_LazyNormBase, base):
        cls_to_become = base

    LazyNorm.__name__ = LazyNorm.__qualname__ = "Lazy" + base.__name__
    LazyNorm.__doc__ = (f"{base.__name__} whose num_features is read from the first input.\n\n"
                        + _EXAMPLES[LazyNorm.__name__])
    return LazyNorm


LazyBatchNorm1d = _lazy_norm(BatchNorm1d)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d)
