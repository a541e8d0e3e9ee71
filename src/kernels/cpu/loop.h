// Strided iteration over N operands of the same shape (PyTorch's TensorIterator,
// reduced to its core). Kernels see only this: base pointers, a shape and byte
// strides per operand, never a Tensor. Dims that can be walked as one are merged
// ("coalesced"), so a contiguous tensor of any shape is a single flat loop.
#pragma once
#include <cstdint>

#include "ember/shape.h"
#include "kernels/cpu/parallel.h"

namespace ember::kernels {

struct Operand {
  char* ptr;
  IntList strides;  // in elements
  int64_t itemsize;
};

struct Loop {
  static constexpr int kMaxArgs = 4;
  int nargs = 0;
  Dims shape;              // coalesced, outermost first; at least one dim
  Dims strides[kMaxArgs];  // in bytes
  char* ptrs[kMaxArgs] = {};
  int64_t numel = 0;

  Loop(IntList shape, std::span<const Operand> ops);
  Loop(IntList shape, std::initializer_list<Operand> ops)
      : Loop(shape, std::span<const Operand>(ops.begin(), ops.size())) {}

  // The common case, built without coalescing: every operand walks `numel` elements in
  // order, with byte stride `byte_strides[k]` (its itemsize, or 0 for one broadcast element).
  static Loop flat(int64_t numel, int nargs, char* const* ptrs, const int64_t* byte_strides) {
    Loop L;
    L.nargs = nargs;
    L.numel = numel;
    L.shape.push_back(numel);
    for (int k = 0; k < nargs; ++k) {
      L.ptrs[k] = ptrs[k];
      L.strides[k].push_back(byte_strides[k]);
    }
    return L;
  }

 private:
  Loop() = default;
};

// Runs inner(ptrs, strides, n) over every innermost run of elements with linear index
// in [begin, end). ptrs[k] points at operand k's first element of the run, strides[k]
// is its byte stride along the run.
template <class F>
void loop_range(const Loop& L, int64_t begin, int64_t end, F&& inner) {
  const int nd = int(L.shape.size()), na = L.nargs;
  const int64_t inner_size = L.shape[nd - 1];
  int64_t idx[64];
  int64_t rem = begin;
  for (int d = nd - 1; d >= 0; --d) {
    idx[d] = rem % L.shape[d];
    rem /= L.shape[d];
  }
  char* ptrs[Loop::kMaxArgs];
  int64_t istr[Loop::kMaxArgs];
  for (int k = 0; k < na; ++k) istr[k] = L.strides[k][nd - 1];
  int64_t pos = begin;
  while (pos < end) {
    for (int k = 0; k < na; ++k) {
      int64_t off = 0;
      for (int d = 0; d < nd; ++d) off += idx[d] * L.strides[k][d];
      ptrs[k] = L.ptrs[k] + off;
    }
    int64_t n = std::min(inner_size - idx[nd - 1], end - pos);
    inner(ptrs, istr, n);
    pos += n;
    idx[nd - 1] += n;
    for (int d = nd - 1; d > 0 && idx[d] >= L.shape[d]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
    }
  }
}

// The whole loop, split over threads when it has more than `grain` elements.
template <class F>
void for_each(const Loop& L, F&& inner, int64_t grain = kGrain) {
  parallel_for(0, L.numel, grain, [&](int64_t b, int64_t e) { loop_range(L, b, e, inner); });
}

}  // namespace ember::kernels
