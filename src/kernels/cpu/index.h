// Indexing kernels: the gather/scatter loop behind t[idx], t[idx] = v, index_select,
// gather and scatter, plus the mask compactions behind nonzero and masked_select.
// Like every kernel they see pointers, shapes and strides only, and never throw: the
// ops layer validates first, or (for gathers into a fresh output) asks afterwards.
#pragma once
#include <cstdint>
#include <vector>

#include "ember/dtype.h"
#include "ember/scalar.h"
#include "ember/shape.h"
#include "kernels/cpu/loop.h"

namespace ember::kernels {

// One int64 index operand of an IndexLoop.
struct IndexArg {
  const char* ptr;
  Dims strides;  // in bytes, over the loop shape (0 along dims it is broadcast on)
  int64_t size;  // size of the data dim it picks from
  int64_t step;  // data's byte stride along that dim
};

// Note [Index loop]: one loop serves t[idx], t[idx] = v, index_select, gather and
// scatter. For each position p of `shape`, the data element it touches is
//   q(p) = data + sum_d p[d] * data_strides[d] + sum_k idx_k[p] * idx_k.step
// (data_strides are 0 on the dims that come from the indices). A get copies *q(p) to
// vals[p]; a put copies vals[p] to *q(p), or adds it.
struct IndexLoop {
  Dims shape;
  char* data = nullptr;
  Dims data_strides;  // bytes
  char* vals = nullptr;
  Dims vals_strides;  // bytes
  std::vector<IndexArg> idx;
  int64_t itemsize = 0;
  bool wrap_negative = false;  // t[idx] accepts -size <= i < 0; gather/scatter do not
};

// vals[p] = *q(p), in parallel. Returns false when some index was out of range (such an
// element reads element 0 instead); the caller then discards the output and reports.
bool index_get(const IndexLoop& L);
// *q(p) = vals[p], or *q(p) += vals[p] in dtype `dt` with `accumulate`. Deterministic with
// duplicate indices (the last write wins, sums are in order): it runs on one thread unless
// the outer rows write disjoint memory (scatter along an inner dim), then row-parallel.
// The caller has checked every index with find_bad_index (nothing may be written on error).
void index_put(const IndexLoop& L, DType dt, bool accumulate);
// The reductions of scatter_reduce/index_reduce (mean is a Sum divided by a count).
enum class PutReduce { Sum, Prod, Max, Min };
// *q(p) = op(*q(p), vals[p]) in dtype `dt` (not bool), with index_put's order and threading.
// Max and Min propagate NaN from either side, as torch's amax/amin. Checked by the caller.
void index_reduce_put(const IndexLoop& L, DType dt, PutReduce op);
// Looks for an int64 index outside [0, size) (or [-size, size) with wrap_negative) in the
// tensor at `ptr` of `shape` and element `strides`. Returns true and sets *bad when found.
bool find_bad_index(const int64_t* ptr, IntList shape, IntList strides, int64_t size,
                    bool wrap_negative, int64_t* bad);

// t = mask ? value : t over Loop{t, mask (bool)}: t[mask] = value, the hot case of
// setitem. Vectorized when both are contiguous (a blend, no branch on the mask).
void masked_fill(DType dt, const Loop& L, Scalar value);

// A contiguous bool mask cut into chunks (one per thread) with the number of true values
// before each chunk: the two passes of a parallel compaction share it.
struct MaskChunks {
  std::vector<int64_t> begin;   // chunk c covers [begin[c], begin[c + 1])
  std::vector<int64_t> offset;  // true values before chunk c
  int64_t total = 0;
};
MaskChunks count_mask(const bool* mask, int64_t n);
// out (total x shape.size(), int64, row-major) = the coordinates of the true elements of
// a contiguous bool mask of `shape`.
void nonzero(const bool* mask, IntList shape, const MaskChunks& chunks, int64_t* out);
// Over Loop{mask (contiguous bool), data}: out[j] = the data elements where the mask is
// true, in order. `chunks` comes from count_mask on the same mask.
void masked_select(const Loop& L, const MaskChunks& chunks, char* out, int64_t itemsize);

}  // namespace ember::kernels
