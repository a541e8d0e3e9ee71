// Saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks).
//
//   autograd::push_saved_tensors_hooks({pack, unpack});
//   Tensor y = mul(x, w);        // MulBackward0 saves pack(x), pack(w) instead of x and w
//   autograd::pop_saved_tensors_hooks();
//   backward(y.sum());           // the node calls unpack(...) to get its tensors back
//
// While hooks are pushed (per thread; the innermost wins), every tensor an op saves for backward
// goes through `pack` (run under no_grad) and only what pack returns is kept; `unpack` runs when
// the backward node reads it. An op's own output is packed without its history (no cycle), and
// a saved tensor that required grad gets its history back on unpack under create_graph, so
// double backward still reaches the graph. No version check is made for packed tensors.
#pragma once
#include <functional>
#include <memory>

#include "ember/tensor.h"

namespace ember::autograd {

using PackedTensor = std::shared_ptr<void>;

struct SavedTensorHooks {
  std::function<PackedTensor(const Tensor&)> pack;
  std::function<Tensor(const PackedTensor&)> unpack;
};

void push_saved_tensors_hooks(SavedTensorHooks hooks);
void pop_saved_tensors_hooks();  // throws when none is pushed
bool has_saved_tensors_hooks();

}  // namespace ember::autograd
