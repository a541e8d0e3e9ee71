// Conv1d / Conv2d (include/ember/nn/conv.h): parameters initialised as torch's, the math in
// the conv ops.
#include "ember/error.h"
#include "ember/nn/conv.h"
#include "nn/init.h"

namespace ember::nn {
namespace {

// Checks the configuration as torch's _ConvNd does (ValueError) and returns the fan-in.
int64_t check_conv(const char* op, int64_t in, int64_t out, IntList kernel, const ConvOptions& o,
                   size_t nd) {
  EMBER_CHECK(in > 0 && out > 0, ValueError, op,
              ": in_channels and out_channels must be positive, got ", in, " and ", out);
  EMBER_CHECK(kernel.size() == 1 || kernel.size() == nd, ValueError, op,
              ": kernel_size must hold 1 or ", nd, " values, got ", kernel);
  for (int64_t k : kernel)
    EMBER_CHECK(k > 0, ValueError, op, ": kernel_size must be positive, got ", kernel);
  EMBER_CHECK(o.groups > 0, ValueError, op, ": groups must be a positive integer, got ", o.groups);
  EMBER_CHECK(in % o.groups == 0, ValueError, op, ": in_channels (", in,
              ") must be divisible by groups (", o.groups, ")");
  EMBER_CHECK(out % o.groups == 0, ValueError, op, ": out_channels (", out,
              ") must be divisible by groups (", o.groups, ")");
  for (auto [v, what] : {std::pair{&o.stride, "stride"}, std::pair{&o.padding, "padding"},
                         std::pair{&o.dilation, "dilation"}}) {
    EMBER_CHECK(v->size() == 1 || v->size() == nd, ValueError, op, ": ", what, " must hold 1 or ",
                nd, " values, got ", IntList(*v));
    for (int64_t x : *v)
      EMBER_CHECK(what[0] == 'p' ? x >= 0 : x > 0, ValueError, op, ": ", what, " must be ",
                  what[0] == 'p' ? "non-negative" : "positive", ", got ", IntList(*v));
  }
  int64_t fan_in = in / o.groups;
  for (size_t i = 0; i < nd; ++i) fan_in *= kernel.size() == 1 ? kernel[0] : kernel[i];
  return fan_in;
}

}  // namespace

Conv1d::Conv1d(int64_t in, int64_t out, int64_t k, ConvOptions o) : options(std::move(o)) {
  const double bound = layer_init::fan_in_bound(check_conv("Conv1d", in, out, {k}, options, 1));
  weight =
      register_parameter("weight", layer_init::uniform_init({out, in / options.groups, k}, bound));
  if (options.bias) bias = register_parameter("bias", layer_init::uniform_init({out}, bound));
}

Tensor Conv1d::forward(const Tensor& x) {
  return conv1d(x, weight, bias, options.stride, options.padding, options.dilation, options.groups);
}

Conv2d::Conv2d(int64_t in, int64_t out, IntList k, ConvOptions o) : options(std::move(o)) {
  const double bound = layer_init::fan_in_bound(check_conv("Conv2d", in, out, k, options, 2));
  const int64_t kh = k.size() ? k[0] : 0, kw = k.size() ? k.back() : 0;
  weight = register_parameter("weight",
                              layer_init::uniform_init({out, in / options.groups, kh, kw}, bound));
  if (options.bias) bias = register_parameter("bias", layer_init::uniform_init({out}, bound));
}

Conv2d::Conv2d(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t padding, bool with_bias)
    : Conv2d(in, out, IntList{k},
             ConvOptions{.stride = {stride}, .padding = {padding}, .bias = with_bias}) {}

Tensor Conv2d::forward(const Tensor& x) {
  return conv2d(x, weight, bias, options.stride, options.padding, options.dilation, options.groups);
}

}  // namespace ember::nn
