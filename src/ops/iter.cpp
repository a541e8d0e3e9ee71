#include "ops/iter.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "ember/ops.h"

namespace ember::ops {
namespace {

// The dims ordered by decreasing |stride| (outermost first); ties keep their order, so a
// contiguous tensor gives the identity.
Dims memory_order(IntList strides) {
  Dims perm(strides.size(), 0);
  for (size_t d = 0; d < perm.size(); ++d) perm[d] = int64_t(d);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t x, int64_t y) {
    return std::abs(strides[x]) > std::abs(strides[y]);
  });
  return perm;
}

// Strides that visit each of numel elements exactly once (size-1 dims do not count).
bool non_overlapping_and_dense(IntList sizes, IntList strides) {
  Dims order(sizes.size(), 0);
  for (size_t d = 0; d < order.size(); ++d) order[d] = int64_t(d);
  std::sort(order.begin(), order.end(),
            [&](int64_t x, int64_t y) { return strides[x] < strides[y]; });
  int64_t expected = 1;
  for (int64_t d : order) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

}  // namespace

Tensor empty_like_inputs(IntList shape, DType dt, std::initializer_list<const Tensor*> inputs) {
  const Tensor* first = inputs.size() ? *inputs.begin() : nullptr;
  bool keep = first && !first->is_contiguous() && numel_of(shape) > 1;
  for (const Tensor* t : inputs) {
    if (!keep) break;
    keep = Dims::equal(t->sizes(), shape) && Dims::equal(t->strides(), first->strides());
  }
  if (!keep || !non_overlapping_and_dense(shape, first->strides())) return Tensor::empty(shape, dt);
  Tensor flat = Tensor::empty({numel_of(shape)}, dt);
  return flat.as_strided(shape, first->strides(), 0);
}

kernels::Loop make_loop(IntList shape, std::initializer_list<const Tensor*> ts) {
  return make_loop_with_scalar(shape, ts, nullptr, 0);
}

kernels::Loop make_loop_with_scalar(IntList shape, std::initializer_list<const Tensor*> ts,
                                    void* scalar, int64_t itemsize) {
  // Fast path (most small ops): each operand is contiguous with the loop's shape, or one
  // element broadcast everywhere. Nothing to coalesce.
  char* ptrs[kernels::Loop::kMaxArgs];
  int64_t bstr[kernels::Loop::kMaxArgs];
  int n = 0;
  for (const Tensor* t : ts) {
    if (t->is_contiguous() && Dims::equal(t->sizes(), shape)) bstr[n] = int64_t(t->itemsize());
    else if (t->numel() == 1) bstr[n] = 0;
    else break;
    ptrs[n++] = t->data_ptr();
  }
  if (n == int(ts.size())) {
    if (scalar) {
      ptrs[n] = static_cast<char*>(scalar);
      bstr[n++] = 0;
    }
    return kernels::Loop::flat(numel_of(shape), n, ptrs, bstr);
  }
  Dims strides[kernels::Loop::kMaxArgs];
  kernels::Operand ops[kernels::Loop::kMaxArgs];
  int k = 0;
  for (const Tensor* t : ts) strides[k++] = broadcast_strides(t->sizes(), t->strides(), shape);
  // Walk in the first operand's memory order (the output, or the tensor an in-place op
  // writes): for a transposed output, a loop in logical order would jump a row per element.
  const Dims perm = memory_order(strides[0]);
  Dims pshape(shape.size(), 0), pstrides[kernels::Loop::kMaxArgs];
  for (size_t d = 0; d < perm.size(); ++d) pshape[d] = shape[perm[d]];
  for (int a = 0; a < k; ++a) {
    pstrides[a] = Dims(shape.size(), 0);
    for (size_t d = 0; d < perm.size(); ++d) pstrides[a][d] = strides[a][perm[d]];
  }
  k = 0;
  for (const Tensor* t : ts) {
    ops[k] = {t->data_ptr(), pstrides[k], int64_t(t->itemsize())};
    ++k;
  }
  Dims zeros(shape.size(), 0);
  if (scalar) ops[k++] = {static_cast<char*>(scalar), zeros, itemsize};
  return kernels::Loop(pshape, std::span<const kernels::Operand>(ops, size_t(k)));
}

void store_scalar(DType dt, Scalar v, void* buf) {
  visit_dtype_with_half(dt, [&]<class T>() { *static_cast<T*>(buf) = v.to<T>(); });
}

void check_scalar_fits(DType dt, Scalar v, const char* op) {
  bool fits = visit_dtype_with_half(dt, [&]<class T>() {
    if constexpr (is_half_v<T>) {  // torch's checked_convert: |finite value| <= the type's max
      if (v.is_complex() && v.imag() != 0) return false;
      double d = v.to_double(), max = std::is_same_v<T, float16_t> ? 65504.0 : 0x1.FEp127;
      return !std::isfinite(d) || std::fabs(d) <= max;
    } else if constexpr (is_complex_v<T>) {
      using L = std::numeric_limits<typename T::value_type>;
      double re = v.to_double(), im = v.imag();
      return (!std::isfinite(re) || std::fabs(re) <= double(L::max())) &&
             (!std::isfinite(im) || std::fabs(im) <= double(L::max()));
    } else {
      if (v.is_complex() && v.imag() != 0) return false;  // a real dtype cannot hold 1j
      using L = std::numeric_limits<T>;
      if constexpr (std::is_same_v<T, bool>) {
        return true;
      } else if constexpr (std::is_floating_point_v<T>) {
        double d = v.to_double();
        return !std::isfinite(d) || std::fabs(d) <= double(L::max());
      } else if (v.is_floating() || v.is_complex()) {
        double d = v.to_double();  // NaN fails both comparisons
        return d >= double(L::lowest()) && d <= double(L::max()) && d < 0x1p63;
      } else {
        int64_t i = v.to_int();
        if constexpr (std::is_same_v<T, uint64_t>)
          return true;  // a negative int64 wraps, as torch (full(-1, dtype=uint64))
        else if constexpr (std::is_unsigned_v<T>)
          return i <= int64_t(L::max()) && i >= -int64_t(L::max());
        else return i >= int64_t(L::lowest()) && i <= int64_t(L::max());
      }
    }
  });
  if (fits) return;
  if (v.is_complex())
    throw Error(detail::cat(op, ": value (", v.to_double(), (v.imag() < 0 ? "" : "+"), v.imag(),
                            "j) cannot be converted to type ", dtype_name(dt),
                            " without overflow"));
  if (v.is_floating())
    throw Error(detail::cat(op, ": value ", v.to_double(), " cannot be converted to type ",
                            dtype_name(dt), " without overflow"));
  throw Error(detail::cat(op, ": value ", v.to_int(), " cannot be converted to type ",
                          dtype_name(dt), " without overflow"));
}

void check_no_internal_overlap(const Tensor& t, const char* op) {
  if (t.numel() == 0) return;  // nothing is written (NumPy gives empty arrays 0 strides)
  for (int64_t d = 0; d < t.dim(); ++d)
    EMBER_CHECK(t.strides()[d] != 0 || t.sizes()[d] <= 1, Error, op,
                ": unsupported operation: more than one element of the written-to tensor "
                "refers to a single memory location (shape ",
                t.sizes(), ", strides ", t.strides(),
                "). Please clone() the tensor before performing the operation.");
}

void check_result_cast(const char* op, DType result, DType out) {
  EMBER_CHECK(can_cast(result, out), Error, op, ": result type ", dtype_name(result),
              " can't be cast to the desired output type ", dtype_name(out));
}

Tensor unaliased(const Tensor& a, const Tensor& b) {
  if (a.storage() == b.storage() &&
      !(a.offset() == b.offset() && a.strides() == b.strides() && a.sizes() == b.sizes()))
    return clone(b);
  return b;
}

void check_floating_input(const Tensor& x, const char* op) {
  EMBER_CHECK(is_floating_point(x.dtype()), TypeError, op,
              ": expected a floating point input, but got ", dtype_name(x.dtype()),
              " (input of shape ", x.sizes(), ")");
}

void check_defined(const Tensor& t, const char* op) {
  EMBER_CHECK(t.defined(), ValueError, op, ": got an undefined tensor");
  if (t.is_sparse()) throw_sparse_unsupported(op);
}

}  // namespace ember::ops
