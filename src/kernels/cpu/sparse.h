// COO sparse kernels: pointers and sizes only (Note [Sparse COO tensors] in
// include/ember/tensor.h). Indices are int64 [sparse_dim, nnz] row-major; a value "row" is the
// product of the dense dims.
#pragma once
#include <cstdint>

namespace ember::kernels {

// out[k] = row-major position of COO index k in a tensor of sizes[0..sparse_dim).
void coo_linear_index(const int64_t* idx, int64_t sparse_dim, int64_t nnz, const int64_t* sizes,
                      int64_t* out);
// Stable sort order `perm` of lin and, for each sorted entry, its slot among the distinct keys;
// returns the number of distinct keys (coalesce = sort + sum of duplicates).
int64_t coo_coalesce_plan(const int64_t* lin, int64_t nnz, int64_t* perm, int64_t* slot);
// out[slot[k]] += vals[perm[k]] (rows of `row` elements; out zeroed by the caller).
template <class T>
void coo_segment_sum(const T* vals, int64_t row, const int64_t* perm, const int64_t* slot,
                     int64_t nnz, T* out);
// out[lin[k]] += vals[k] (to_dense; out zeroed by the caller).
template <class T>
void coo_scatter_add(const int64_t* lin, const T* vals, int64_t nnz, int64_t row, T* out);
// out[k] = dense[lin[k]] (the values of a dense tensor at COO positions).
template <class T>
void coo_gather(const int64_t* lin, const T* dense, int64_t nnz, int64_t row, T* out);
// out[rows[k], :] += vals[k] * dense[cols[k], :]; dense and out have n columns, out zeroed.
template <class T>
void coo_spmm(const int64_t* rows, const int64_t* cols, const T* vals, int64_t nnz, const T* dense,
              int64_t n, T* out);
// out[h] = the number of keys below h, h = 0..nslots (a CSR row pointer from sorted row keys).
void compressed_pointer(const int64_t* keys, int64_t n, int64_t nslots, int64_t* out);
}  // namespace ember::kernels
