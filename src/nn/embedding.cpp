// Embedding (include/ember/nn/embedding.h).
#include "ember/error.h"
#include "ember/nn/embedding.h"

namespace ember::nn {
namespace {
std::optional<int64_t> normalized_padding(int64_t num, std::optional<int64_t> idx) {
  if (!idx) return idx;
  EMBER_CHECK(*idx >= -num && *idx < num, ValueError, "Embedding: padding_idx must be within ",
              "num_embeddings (", num, "), got ", *idx);
  return *idx < 0 ? *idx + num : *idx;
}
}  // namespace

Embedding::Embedding(int64_t num, int64_t dim, std::optional<int64_t> pad)
    : padding_idx(normalized_padding(num, pad)) {
  EMBER_CHECK(num >= 0 && dim >= 0, ValueError,
              "Embedding: num_embeddings and embedding_dim must be ", "non-negative, got (", num,
              ", ", dim, ")");
  Tensor w = empty({num, dim});
  normal_(w);
  if (padding_idx) {
    Tensor row = select(w, 0, *padding_idx);
    zero_(row);
  }
  weight = register_parameter("weight", w);
}

Tensor Embedding::forward(const Tensor& indices) { return embedding(indices, weight, padding_idx); }

}  // namespace ember::nn
