// Normalization layers (torch.nn.BatchNorm1d / BatchNorm2d / LayerNorm) on the batch_norm
// and layer_norm ops of ember/functional.h.
//
//   auto bn = std::make_shared<nn::BatchNorm2d>(16);
//   Tensor y = bn->forward(x);   // training: batch statistics, running stats updated
//   bn->eval();
//   Tensor z = bn->forward(x);   // eval: normalized by the running statistics
//
// State dict keys are torch's: weight, bias (affine), running_mean, running_var and
// num_batches_tracked (a 0-d int64 tensor) when tracking running statistics.
#pragma once
#include <optional>
#include <vector>

#include "ember/nn.h"

namespace ember::nn {

struct BatchNormOptions {
  double eps = 1e-5;
  // The running statistics' update factor; nullopt: a cumulative average (1 / batches seen).
  std::optional<double> momentum = 0.1;
  bool affine = true;               // a learnable weight (ones) and bias (zeros)
  bool track_running_stats = true;  // without: batch statistics in eval mode too
};

// What BatchNorm1d and BatchNorm2d share; they differ in the input ranks they accept.
class BatchNormBase : public Module {
 public:
  Tensor forward(const Tensor& x) override;
  Tensor weight, bias;                                    // (C) or undefined
  Tensor running_mean, running_var, num_batches_tracked;  // undefined without tracking
  const int64_t num_features;
  const BatchNormOptions options;

 protected:
  BatchNormBase(const char* op, int64_t num_features, BatchNormOptions options);
  virtual void check_input(const Tensor& x) const = 0;
};

class BatchNorm1d : public BatchNormBase {
 public:
  explicit BatchNorm1d(int64_t num_features, BatchNormOptions options = {})
      : BatchNormBase("BatchNorm1d", num_features, options) {}
  const char* name() const override { return "BatchNorm1d"; }

 protected:
  void check_input(const Tensor& x) const override;  // (N, C) or (N, C, L)
};

class BatchNorm2d : public BatchNormBase {
 public:
  explicit BatchNorm2d(int64_t num_features, BatchNormOptions options = {})
      : BatchNormBase("BatchNorm2d", num_features, options) {}
  const char* name() const override { return "BatchNorm2d"; }

 protected:
  void check_input(const Tensor& x) const override;  // (N, C, H, W)
};

struct LayerNormOptions {
  double eps = 1e-5;
  bool elementwise_affine = true;  // weight (ones) of normalized_shape
  bool bias = true;                // and bias (zeros), when elementwise_affine
};

// Normalizes over the trailing dims `normalized_shape`.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(IntList normalized_shape, LayerNormOptions options = {});
  Tensor forward(const Tensor& x) override;
  const char* name() const override { return "LayerNorm"; }
  Tensor weight, bias;
  const std::vector<int64_t> normalized_shape;
  const LayerNormOptions options;
};

}  // namespace ember::nn
