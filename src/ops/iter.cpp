#include "ops/iter.h"

namespace ember::ops {

kernels::Loop make_loop(IntList shape, std::initializer_list<const Tensor*> ts) {
  return make_loop_with_scalar(shape, ts, nullptr, 0);
}

kernels::Loop make_loop_with_scalar(IntList shape, std::initializer_list<const Tensor*> ts,
                                    void* scalar, int64_t itemsize) {
  Dims strides[kernels::Loop::kMaxArgs];
  kernels::Operand ops[kernels::Loop::kMaxArgs];
  Dims zeros(shape.size(), 0);
  int k = 0;
  for (const Tensor* t : ts) {
    strides[k] = broadcast_strides(t->sizes(), t->strides(), shape);
    ops[k] = {t->data_ptr(), strides[k], int64_t(t->itemsize())};
    ++k;
  }
  if (scalar) ops[k++] = {static_cast<char*>(scalar), zeros, itemsize};
  return kernels::Loop(shape, std::span<const kernels::Operand>(ops, size_t(k)));
}

void store_scalar(DType dt, Scalar v, void* buf) {
  visit_dtype(dt, [&]<class T>() { *static_cast<T*>(buf) = v.to<T>(); });
}

void check_defined(const Tensor& t, const char* op) {
  EMBER_CHECK(t.defined(), ValueError, op, ": got an undefined tensor");
}

}  // namespace ember::ops
