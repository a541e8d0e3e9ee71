// Convolution and pooling (python/bindings/nn.cpp).
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kConvolutionPooling[] = {
    {"conv2d",
     R"(2-d convolution (cross-correlation) of input (N, C, H, W) or (C, H, W) with weight (out,
C/groups, kH, kW); stride, padding ('valid', 'same' or ints), dilation, groups as torch.

>>> x = ember.ones(1, 1, 3, 3)
>>> ember.conv2d(x, ember.ones(1, 1, 2, 2))
tensor([[[[4., 4.],
          [4., 4.]]]])
>>> ember.conv2d(x, ember.ones(2, 1, 3, 3), padding=1).shape
ember.Size([1, 2, 3, 3]))"},
    {"conv3d",
     R"(3-d convolution of input (N, C, D, H, W) or (C, D, H, W) with weight (out, C/groups, kD, kH,
kW).

>>> ember.conv3d(ember.ones(1, 1, 2, 2, 2), ember.ones(1, 1, 2, 2, 2))
tensor([[[[[8.]]]]]))"},
    {"max_pool2d",
     R"(The maximum of each kernel_size window of input (N, C, H, W) or (C, H, W); stride defaults to
kernel_size.

>>> x = ember.arange(16.0).reshape(1, 1, 4, 4)
>>> ember.max_pool2d(x, 2)
tensor([[[[ 5.,  7.],
          [13., 15.]]]]))"},
    {"max_pool2d_with_indices",
     R"(max_pool2d and the flat index (within each H*W plane) of each maximum.

>>> x = ember.arange(16.0).reshape(1, 1, 4, 4)
>>> ember.max_pool2d_with_indices(x, 2)
(tensor([[[[ 5.,  7.],
          [13., 15.]]]]), tensor([[[[ 5,  7],
          [13, 15]]]])))"},
    {"max_pool3d",
     R"(The maximum of each kernel_size window of input (N, C, D, H, W) or (C, D, H, W).

>>> ember.max_pool3d(ember.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
tensor([[[[[7.]]]]]))"},
    {"avg_pool2d",
     R"(The mean of each kernel_size window of input (N, C, H, W) or (C, H, W); padding, ceil_mode,
count_include_pad, divisor_override as torch.

>>> x = ember.arange(16.0).reshape(1, 1, 4, 4)
>>> ember.avg_pool2d(x, 2)
tensor([[[[ 2.5000,  4.5000],
          [10.5000, 12.5000]]]]))"},
    {"avg_pool3d", R"(The mean of each kernel_size window of input (N, C, D, H, W) or (C, D, H, W).

>>> ember.avg_pool3d(ember.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
tensor([[[[[3.5000]]]]]))"},
    {"adaptive_avg_pool2d",
     R"(The mean over output_size (H, W) windows that tile input's last two dimensions as evenly as
possible.

>>> x = ember.arange(16.0).reshape(1, 1, 4, 4)
>>> ember.adaptive_avg_pool2d(x, 1)
tensor([[[[7.5000]]]])
>>> ember.adaptive_avg_pool2d(x, (2, 1)).shape
ember.Size([1, 1, 2, 1]))"},
    {"adaptive_avg_pool3d",
     R"(The mean over output_size (D, H, W) windows that tile input's last three dimensions.

>>> ember.adaptive_avg_pool3d(ember.arange(8.0).reshape(1, 2, 2, 2), 1)
tensor([[[[3.5000]]]]))"},
};

}  // namespace

std::span<const Docstring> convolution_pooling_docstrings() { return kConvolutionPooling; }

}  // namespace ember::py
