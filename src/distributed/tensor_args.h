// What the collectives share: the checks of their tensor arguments (in the caller's
// thread, before anything is queued), the contiguous buffer a written tensor travels
// in, and the Gloo calls that several collectives build on. Out of collectives.cpp so
// that new collective files (reduce/gather/scatter/all_to_all, send/recv) reuse them.
#pragma once
#include <memory>

#include <gloo/context.h>

#include "ember/distributed.h"
#include "ember/ops.h"

namespace ember::distributed {

// --- checks (caller's thread) ---

inline void check_tensor(const Tensor& t, const char* op, bool bytes_ok,
                         const char* what = "tensor") {
  EMBER_CHECK(t.defined(), TypeError, op, ": expected a tensor as ", what,
              ", got an undefined tensor");
  DType d = t.dtype();
  bool ok = is_floating_point(d) || d == DType::Int32 || d == DType::Int64 ||
            (bytes_ok && (d == DType::Bool || d == DType::UInt8));
  EMBER_CHECK(ok, TypeError, op, ": unsupported dtype ", dtype_name(d),
              " (supported: float32, float64, bfloat16, float16, int32, int64", bytes_ok ? ", bool, uint8)" : ")");
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

inline void check_avg(ReduceOp op, DType d, const char* name) {
  EMBER_CHECK(op != ReduceOp::Avg || is_floating_point(d), TypeError, name,
              ": ReduceOp.AVG needs a floating-point tensor, got ", dtype_name(d));
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

// All-reduces n elements at p in place (AVG: SUM, then divided by the group size).
void run_allreduce(const std::shared_ptr<gloo::Context>& ctx, void* p, size_t n, DType dtype,
                   ReduceOp op, uint32_t tag, std::chrono::milliseconds timeout);
// Gathers `in` of every rank into `out` (size * in's bytes), in rank order.
void run_allgather(const std::shared_ptr<gloo::Context>& ctx, const Tensor& in, void* out,
                   uint32_t tag, std::chrono::milliseconds timeout);

}  // namespace ember::distributed
