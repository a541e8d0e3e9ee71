// A lookup table (torch.nn.Embedding) on the embedding op of ember/functional.h.
//
//   auto emb = std::make_shared<nn::Embedding>(1000, 64, /*padding_idx=*/0);
//   Tensor v = emb->forward(tokens);   // int64 (*) -> (*, 64)
#pragma once
#include <optional>

#include "ember/nn.h"

namespace ember::nn {

class Embedding : public Module {
 public:
  // weight (num_embeddings, embedding_dim) ~ N(0, 1), as torch's; the row at padding_idx
  // (negative counts from the end) is zeros and gets no gradient.
  Embedding(int64_t num_embeddings, int64_t embedding_dim,
            std::optional<int64_t> padding_idx = std::nullopt);
  Tensor forward(const Tensor& indices) override;  // int64 or int32 of any shape
  const char* name() const override { return "Embedding"; }
  Tensor weight;
  const std::optional<int64_t> padding_idx;  // normalized to [0, num_embeddings)
};

}  // namespace ember::nn
