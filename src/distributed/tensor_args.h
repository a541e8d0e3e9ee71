// What the collectives share: the checks of their tensor arguments (in the caller's
// thread, before anything is queued), the contiguous buffer a written tensor travels
// in, and the Gloo calls that several collectives build on. Out of collectives.cpp so
// that new collective files (reduce/gather/scatter/all_to_all, send/recv) reuse them.
#pragma once
#include <functional>
#include <type_traits>
#include <memory>

#include <gloo/context.h>

#include "ember/distributed.h"
#include "ember/ops.h"

namespace ember::distributed {

// --- checks (caller's thread) ---

inline void check_tensor(const Tensor& t, const char* op, const char* what = "tensor") {
  EMBER_CHECK(t.defined(), TypeError, op, ": expected a tensor as ", what,
              ", got an undefined tensor");
  DType d = t.dtype();
  // int8 as torch's Gloo (its ScalarType list has Char, not Short); bool and uint8 as bytes
  bool ok = is_floating_point(d) || d == DType::Int8 || d == DType::Int32 || d == DType::Int64 ||
            d == DType::Bool || d == DType::UInt8;
  EMBER_CHECK(ok, TypeError, op, ": unsupported dtype ", dtype_name(d),
              " (supported: float32, float64, bfloat16, float16, int8, int32, int64, bool, uint8)");
}

// A tensor written in place must not have two elements on one memory location (expand):
// the result would depend on the order of the writes.
inline void check_writable(const Tensor& t, const char* op) {
  for (int64_t d = 0; d < t.dim(); ++d)
    EMBER_CHECK(
        t.stride(d) != 0 || t.size(d) <= 1, Error, op, ": the output tensor of shape ", t.sizes(),
        " has several elements in one memory location (an expanded tensor); clone it first");
}

inline void check_same(const Tensor& t, const Tensor& ref, const char* op, const char* what,
                       size_t i) {
  EMBER_CHECK(t.defined(), TypeError, op, ": ", what, "[", i, "] is an undefined tensor");
  EMBER_CHECK(t.dtype() == ref.dtype(), ValueError, op, ": ", what, "[", i, "] has dtype ",
              dtype_name(t.dtype()), " but the input has dtype ", dtype_name(ref.dtype()));
  EMBER_CHECK(t.sizes() == ref.sizes(), Error, op, ": invalid tensor size in ", what, "[", i,
              "] (expected ", ref.sizes(), ", got ", t.sizes(), ")");
}

// A rank argument (a group rank) of a rooted collective or of send/recv.
inline void check_rank(int r, int size, const char* op, const char* what) {
  EMBER_CHECK(r >= 0 && r < size, Error, op, ": invalid ", what, " rank ", r,
              " for a group of size ", size, " (group ranks are 0..", size - 1, ")");
}

// A list given on the root of gather/scatter only, with one tensor per rank there.
inline void check_root_list(const std::vector<Tensor>& list, bool is_root, int size, const char* op,
                            const char* what, const char* root) {
  if (!is_root) {
    EMBER_CHECK(list.empty(), ValueError, op, ": argument `", what,
                "` must NOT be specified on non-", root, " ranks");
    return;
  }
  EMBER_CHECK(int64_t(list.size()) == size, Error, op, ": argument `", what, "` has ", list.size(),
              " tensors on the ", root, " rank but the group has ", size, " ranks");
}

// AVG needs a floating-point tensor, the bitwise ops an integer or bool one.
inline void check_reduce_op(ReduceOp op, DType d, const char* name) {
  EMBER_CHECK(op != ReduceOp::Avg || is_floating_point(d), TypeError, name,
              ": ReduceOp.AVG needs a floating-point tensor, got ", dtype_name(d));
  bool bitwise = op == ReduceOp::Band || op == ReduceOp::Bor || op == ReduceOp::Bxor;
  EMBER_CHECK(!bitwise || !(is_floating_point(d) || is_complex(d)), TypeError, name, ": ReduceOp.",
              reduce_op_name(op), " needs an integer or bool tensor, got ", dtype_name(d));
}

// A contiguous copy made without recording autograd history (the collective is not
// differentiable, and the copy must not keep the graph alive).
inline Tensor contiguous_copy(const Tensor& t) { return clone(t.alias()); }

// What a queued collective holds of a tensor it writes: an alias (same memory, no
// autograd state, so the communication thread never drops a Python hook) and the
// contiguous buffer Gloo works on (the alias itself when the tensor is contiguous).
struct Target {
  Tensor alias, buf;
  explicit Target(const Tensor& t)
      : alias(t.alias()), buf(t.is_contiguous() ? alias : contiguous_copy(t)) {}
  char* data() const { return buf.data_ptr(); }
  // Writes the buffer back into a non-contiguous tensor (communication thread).
  void copy_back() const {
    if (buf.is_same(alias)) return;
    Tensor dst = alias;
    copy_(dst, buf);
  }
};

// The output list of all_gather/gather: checked against the input (same dtype and shape,
// writable), bumped, and returned as aliases the communication thread may write.
inline std::vector<Tensor> output_aliases(const std::vector<Tensor>& outputs, const Tensor& input,
                                          const char* op, const char* what) {
  std::vector<Tensor> dsts;
  for (size_t i = 0; i < outputs.size(); ++i) {
    check_same(outputs[i], input, op, what, i);
    check_writable(outputs[i], op);
  }
  for (const Tensor& o : outputs) {
    dsts.push_back(o.alias());
    o.bump_version();
  }
  return dsts;
}

// The tensors' elements one after the other in a new contiguous block of `dtype`
// (caller's thread: the originals may change once the collective is issued).
inline Tensor pack(const std::vector<Tensor>& ts, DType dtype) {
  int64_t total = 0;
  for (const Tensor& t : ts) total += t.numel();
  Tensor block = Tensor::empty({total}, dtype);
  int64_t at = 0;
  for (const Tensor& t : ts) {
    Tensor slot = block.as_strided(t.sizes(), contiguous_strides(t.sizes()), at);
    copy_(slot, t.alias());  // copy_ takes the no-autograd path on aliases
    at += t.numel();
  }
  return block;
}

// The reverse (communication thread): consecutive slices of `block` into `dsts`.
inline void unpack(const Tensor& block, const std::vector<Tensor>& dsts) {
  int64_t at = 0;
  for (Tensor d : dsts) {
    copy_(d, block.as_strided(d.sizes(), contiguous_strides(d.sizes()), at));
    at += d.numel();
  }
}

// --- reductions (communication thread; pointers only) ---

using ReduceFunc = std::function<void(void*, const void*, const void*, size_t)>;
template <class T, class F>
ReduceFunc elementwise(F f) {
  return [f](void* c, const void* a, const void* b, size_t n) {
    T* out = static_cast<T*>(c);
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    for (size_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
  };
}

template <class T>
ReduceFunc reduce_fn(ReduceOp op) {
  switch (op) {
    case ReduceOp::Max: return elementwise<T>([](T a, T b) { return a < b ? b : a; });
    case ReduceOp::Min: return elementwise<T>([](T a, T b) { return b < a ? b : a; });
    case ReduceOp::Product: return elementwise<T>([](T a, T b) { return T(a * b); });
    case ReduceOp::Band:
    case ReduceOp::Bor:
    case ReduceOp::Bxor:
      // integer and bool tensors only (check_reduce_op refuses the others before queueing)
      if constexpr (std::is_integral_v<T>) {
        if (op == ReduceOp::Band) return elementwise<T>([](T a, T b) { return T(a & b); });
        if (op == ReduceOp::Bor) return elementwise<T>([](T a, T b) { return T(a | b); });
        return elementwise<T>([](T a, T b) { return T(a ^ b); });
      } else {
        throw TypeError(detail::cat("ReduceOp.", reduce_op_name(op), " on a non-integer dtype"));
      }
    default: return elementwise<T>([](T a, T b) { return T(a + b); });  // SUM, AVG
  }
}

// Divides n elements at p by `world` (AVG after a SUM); no-op for integer dtypes, which
// the checks refuse for AVG before queueing.
void divide_for_avg(void* p, size_t n, DType dtype, int world);

// All-reduces n elements at p in place (AVG: SUM, then divided by the group size).
void run_allreduce(const std::shared_ptr<gloo::Context>& ctx, void* p, size_t n, DType dtype,
                   ReduceOp op, uint32_t tag, std::chrono::milliseconds timeout);
// Gathers `in` of every rank into `out` (size * in's bytes), in rank order.
void run_allgather(const std::shared_ptr<gloo::Context>& ctx, const Tensor& in, void* out,
                   uint32_t tag, std::chrono::milliseconds timeout);

}  // namespace ember::distributed
