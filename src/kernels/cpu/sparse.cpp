#include "kernels/cpu/sparse.h"

#include <algorithm>
#include <numeric>

namespace ember::kernels {

void coo_linear_index(const int64_t* idx, int64_t sparse_dim, int64_t nnz, const int64_t* sizes,
                      int64_t* out) {
  for (int64_t k = 0; k < nnz; ++k) {
    int64_t lin = 0;
    for (int64_t d = 0; d < sparse_dim; ++d) lin = lin * sizes[d] + idx[d * nnz + k];
    out[k] = lin;
  }
}

int64_t coo_coalesce_plan(const int64_t* lin, int64_t nnz, int64_t* perm, int64_t* slot) {
  std::iota(perm, perm + nnz, int64_t(0));
  std::stable_sort(perm, perm + nnz, [&](int64_t a, int64_t b) { return lin[a] < lin[b]; });
  int64_t n = 0;
  for (int64_t k = 0; k < nnz; ++k) {
    if (k > 0 && lin[perm[k]] != lin[perm[k - 1]]) ++n;
    slot[k] = n;
  }
  return nnz ? n + 1 : 0;
}

template <class T>
void coo_segment_sum(const T* vals, int64_t row, const int64_t* perm, const int64_t* slot,
                     int64_t nnz, T* out) {
  for (int64_t k = 0; k < nnz; ++k) {
    const T* src = vals + perm[k] * row;
    T* dst = out + slot[k] * row;
    for (int64_t j = 0; j < row; ++j) dst[j] += src[j];
  }
}

template <class T>
void coo_scatter_add(const int64_t* lin, const T* vals, int64_t nnz, int64_t row, T* out) {
  for (int64_t k = 0; k < nnz; ++k) {
    T* dst = out + lin[k] * row;
    for (int64_t j = 0; j < row; ++j) dst[j] += vals[k * row + j];
  }
}

template <class T>
void coo_gather(const int64_t* lin, const T* dense, int64_t nnz, int64_t row, T* out) {
  for (int64_t k = 0; k < nnz; ++k) std::copy_n(dense + lin[k] * row, row, out + k * row);
}

template <class T>
void coo_spmm(const int64_t* rows, const int64_t* cols, const T* vals, int64_t nnz, const T* dense,
              int64_t n, T* out) {
  for (int64_t k = 0; k < nnz; ++k) {
    const T v = vals[k];
    const T* src = dense + cols[k] * n;
    T* dst = out + rows[k] * n;
    for (int64_t j = 0; j < n; ++j) dst[j] += v * src[j];
  }
}

void compressed_pointer(const int64_t* keys, int64_t n, int64_t nslots, int64_t* out) {
  std::fill(out, out + nslots + 1, int64_t(0));
  for (int64_t k = 0; k < n; ++k) {
    int64_t j = std::clamp<int64_t>(keys[k] + 1, 0, nslots + 1);  // below 0: below every slot
    if (j <= nslots) ++out[j];
  }
  for (int64_t h = 1; h <= nslots; ++h) out[h] += out[h - 1];
}

#define EMBER_SPARSE_INSTANTIATE(T)                                                               \
  template void coo_segment_sum<T>(const T*, int64_t, const int64_t*, const int64_t*, int64_t,    \
                                   T*);                                                           \
  template void coo_scatter_add<T>(const int64_t*, const T*, int64_t, int64_t, T*);               \
  template void coo_gather<T>(const int64_t*, const T*, int64_t, int64_t, T*);                    \
  template void coo_spmm<T>(const int64_t*, const int64_t*, const T*, int64_t, const T*, int64_t, \
                            T*);
EMBER_SPARSE_INSTANTIATE(float)
EMBER_SPARSE_INSTANTIATE(double)
EMBER_SPARSE_INSTANTIATE(int8_t)
EMBER_SPARSE_INSTANTIATE(int16_t)
EMBER_SPARSE_INSTANTIATE(int32_t)
EMBER_SPARSE_INSTANTIATE(int64_t)
#undef EMBER_SPARSE_INSTANTIATE

}  // namespace ember::kernels
