// Private entry points of the sparse COO ops (ember/sparse/__init__.py and ember/_sparse_tensor.py
// give them torch's signatures).
#include "common.h"
#include "ember/sparse.h"

namespace ember::py {

void bind_sparse(nb::module_& m) {
  m.def("_sparse_coo_tensor",
        [](const Tensor& indices, const Tensor& values, std::optional<std::vector<int64_t>> size) {
          return sparse_coo_tensor(indices, values,
                                   size ? std::optional<Dims>(Dims(*size)) : std::nullopt);
        });
  m.def("_to_dense", [](const Tensor& t) { return to_dense(t); });
  m.def("_to_sparse", [](const Tensor& t, std::optional<int64_t> sparse_dim) {
    return to_sparse(t, sparse_dim);
  });
  m.def("_coalesce", [](const Tensor& t) { return coalesce(t); });
  m.def("_sparse_transpose",
        [](const Tensor& t, int64_t d0, int64_t d1) { return sparse_transpose(t, d0, d1); });
  m.def("_is_sparse", [](const Tensor& t) { return t.defined() && t.is_sparse(); });
  m.def("_sparse_indices", [](const Tensor& t) { return t.sparse_indices(); });
  m.def("_sparse_values", [](const Tensor& t) { return t.sparse_values(); });
  m.def("_sparse_values_grad", [](const Tensor& t) { return sparse_values_of(t); });
  // Compressed layouts (Note [Compressed sparse layouts]): -1 strided, 0 COO, 1 CSR, 2 CSC.
  m.def("_sparse_layout", [](const Tensor& t) {
    return t.defined() && t.is_sparse() ? int(t.impl()->sparse_->layout) : -1;
  });
  m.def("_sparse_int32_indices",
        [](const Tensor& t) { return t.is_sparse() && t.impl()->sparse_->int32_indices; });
  m.def("_compressed_pointer",
        [](const Tensor& keys, int64_t nslots) { return compressed_pointer(keys, nslots); });
  m.def("_sparse_relayout",
        [](const Tensor& t, int layout) { return sparse_relayout(t, SparseLayout(layout)); });
  // Tags a COO tensor just built in compressed order (ember/_sparse_compressed.py checks it).
  m.def("_set_sparse_layout", [](const Tensor& t, int layout, bool int32_indices) {
    EMBER_CHECK(t.defined() && t.is_sparse() && layout >= 0 && layout <= 2, ValueError,
                "_set_sparse_layout: expected a sparse tensor and a layout in 0..2");
    t.impl()->sparse_->layout = SparseLayout(layout);
    t.impl()->sparse_->int32_indices = int32_indices;
  });
  m.def("_is_coalesced", [](const Tensor& t) { return t.sparse_coalesced(); });
  // torch's _coalesced_: the flag set without checking the indices (the caller vouches).
  m.def("_set_coalesced", [](const Tensor& t, bool c) {
    EMBER_CHECK(t.defined() && t.is_sparse(), NotImplementedError,
                "_coalesced_: only a sparse COO tensor has a coalesced flag");
    t.impl()->sparse_->coalesced = c;
  });
}

}  // namespace ember::py
