// Reductions into positions chosen by an index (src/ops/scatter_reduce.cpp), as torch's
// scatter_reduce, index_reduce and segment_reduce:
//
//   Tensor out = ember::scatter_reduce(t, 0, index, src, "amax", /*include_self=*/false);
//
// `reduce` is "sum", "prod", "mean", "amax" or "amin" (index_reduce: not "sum"; segment_reduce:
// "sum", "prod", "mean", "max", "min"). Gradients flow to self and src (data) for every reduce.
#pragma once
#include <optional>
#include <string_view>

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

// out = t; out[... index[p] ...] = reduce(out[...], src[p]) along `dim`, p over index's shape.
// include_self=false: the positions that receive a value start from the values alone.
Tensor scatter_reduce(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self = true);
Tensor& scatter_reduce_(Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
                        std::string_view reduce, bool include_self = true);

// The slices of `source` along `dim` reduced into t's slices index[i] (a 1-d index).
Tensor index_reduce(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source,
                    std::string_view reduce, bool include_self = true);
Tensor& index_reduce_(Tensor& t, int64_t dim, const Tensor& index, const Tensor& source,
                      std::string_view reduce, bool include_self = true);

// data's consecutive runs along `axis` (lengths, or offsets into it) each reduced to one value;
// lengths/offsets have data's leading dims before `axis` (axis == lengths.dim() - 1). An empty
// run gives `initial` when given, else 0 (sum), 1 (prod), NaN (mean), -inf (max), inf (min).
// With `initial`, every run starts from it; mean is (initial + sum) / max(length, 1), as torch.
Tensor segment_reduce(const Tensor& data, std::string_view reduce,
                      const std::optional<Tensor>& lengths, const std::optional<Tensor>& offsets,
                      int64_t axis, bool unsafe, std::optional<double> initial);

}  // namespace ember
