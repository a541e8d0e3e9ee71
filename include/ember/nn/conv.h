// Convolutions as modules (torch.nn.Conv1d / Conv2d), on the conv ops of ember/ops.h.
//
//   auto conv = std::make_shared<nn::Conv2d>(3, 16, 3, nn::ConvOptions{.padding = {1}});
//   Tensor y = conv->forward(x);   // (N, 3, H, W) -> (N, 16, H, W)
//
// Weights are (out_channels, in_channels / groups, *kernel_size) and, like the bias,
// initialised as torch's: uniform in +-1/sqrt(in_channels / groups * prod(kernel_size)).
// Inputs may be batched (N, C, *) or unbatched (C, *), as torch's.
#pragma once
#include <vector>

#include "ember/nn.h"

namespace ember::nn {

// Each spatial argument holds one value for every spatial dim, or one value per dim.
struct ConvOptions {
  std::vector<int64_t> stride = {1};
  std::vector<int64_t> padding = {0};
  std::vector<int64_t> dilation = {1};
  int64_t groups = 1;
  bool bias = true;
};

class Conv1d : public Module {
 public:
  Conv1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, ConvOptions options = {});
  Tensor forward(const Tensor& x) override;  // (N, C, L) or (C, L)
  const char* name() const override { return "Conv1d"; }
  Tensor weight, bias;  // (out, in / groups, k), (out) or undefined
  const ConvOptions options;
};

class Conv2d : public Module {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, IntList kernel_size, ConvOptions options = {});
  // A square kernel; the positional form of the first C++ frontend.
  Conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1,
         int64_t padding = 0, bool bias = true);
  Tensor forward(const Tensor& x) override;  // (N, C, H, W) or (C, H, W)
  const char* name() const override { return "Conv2d"; }
  Tensor weight, bias;  // (out, in / groups, kH, kW), (out) or undefined
  const ConvOptions options;
};

}  // namespace ember::nn
