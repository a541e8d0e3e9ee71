// The "rows" of a tensor along one dim, as the scan and sort kernels take them: a Loop
// over the shape with that dim set to 1 (one element per row start). Private to src/ops.
#pragma once
#include <initializer_list>

#include "ember/tensor.h"
#include "kernels/cpu/loop.h"

namespace ember::ops {

// Operand k is ts[k]; every tensor has `shape` except, possibly, along `dim`.
inline kernels::Loop row_loop(IntList shape, int64_t dim, std::initializer_list<const Tensor*> ts) {
  Dims rows(shape);
  rows[size_t(dim)] = 1;
  kernels::Operand ops[kernels::Loop::kMaxArgs];
  size_t k = 0;
  for (const Tensor* t : ts) ops[k++] = {t->data_ptr(), t->strides(), int64_t(t->itemsize())};
  return kernels::Loop(rows, std::span<const kernels::Operand>(ops, k));
}

// The byte stride of t along dim.
inline int64_t byte_step(const Tensor& t, int64_t dim) {
  return t.strides()[size_t(dim)] * int64_t(t.itemsize());
}

}  // namespace ember::ops
