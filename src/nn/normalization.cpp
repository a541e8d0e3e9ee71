// BatchNorm1d / BatchNorm2d / LayerNorm (include/ember/nn/normalization.h): torch's
// _BatchNorm.forward and LayerNorm around the batch_norm and layer_norm ops.
#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/nn/normalization.h"

namespace ember::nn {

BatchNormBase::BatchNormBase(const char* op, int64_t c, BatchNormOptions o)
    : num_features(c), options(o) {
  EMBER_CHECK(c > 0, ValueError, op, ": num_features must be positive, got ", c);
  EMBER_CHECK(!o.momentum || (*o.momentum >= 0 && *o.momentum <= 1), ValueError, op,
              ": momentum must be in [0, 1], got ", o.momentum.value_or(0));
  EMBER_CHECK(o.eps >= 0, ValueError, op, ": eps must be non-negative, got ", o.eps);
  if (o.affine) {
    weight = register_parameter("weight", ones({c}));
    bias = register_parameter("bias", zeros({c}));
  }
  if (o.track_running_stats) {
    running_mean = register_buffer("running_mean", zeros({c}));
    running_var = register_buffer("running_var", ones({c}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, DType::Int64));
  }
}

Tensor BatchNormBase::forward(const Tensor& x) {
  EMBER_CHECK(x.defined(), ValueError, name(), ": got an undefined input");
  check_input(x);
  double factor = options.momentum.value_or(0.0);
  if (is_training() && options.track_running_stats) {
    {
      NoGradGuard no_grad;
      add_(num_batches_tracked, Scalar(int64_t(1)));
    }
    if (!options.momentum) factor = 1.0 / double(num_batches_tracked.item().to_int());
  }
  // Batch statistics in training, and in eval when there are no running statistics; the
  // running statistics are updated only in training (torch's bn_training rule).
  const bool batch_stats = is_training() || !options.track_running_stats;
  return batch_norm(x, running_mean, running_var, weight, bias, batch_stats, factor, options.eps);
}

void BatchNorm1d::check_input(const Tensor& x) const {
  EMBER_CHECK(x.dim() == 2 || x.dim() == 3, ValueError, name(), ": expected 2D or 3D input (got ",
              x.dim(), "D input of shape ", x.sizes(), ")");
}

void BatchNorm2d::check_input(const Tensor& x) const {
  EMBER_CHECK(x.dim() == 4, ValueError, name(), ": expected 4D input (got ", x.dim(),
              "D input of shape ", x.sizes(), ")");
}

LayerNorm::LayerNorm(IntList shape, LayerNormOptions o)
    : normalized_shape(shape.begin(), shape.end()), options(o) {
  EMBER_CHECK(!shape.empty(), ValueError, "LayerNorm: normalized_shape must not be empty");
  for (int64_t d : shape)
    EMBER_CHECK(d > 0, ValueError, "LayerNorm: normalized_shape must hold positive sizes, got ",
                shape);
  if (o.elementwise_affine) {
    weight = register_parameter("weight", ones(shape));
    if (o.bias) bias = register_parameter("bias", zeros(shape));
  }
}

Tensor LayerNorm::forward(const Tensor& x) {
  return layer_norm(x, normalized_shape, weight, bias, options.eps);
}

}  // namespace ember::nn
