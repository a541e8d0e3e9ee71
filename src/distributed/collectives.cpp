// The collectives of a ProcessGroup: argument checks in the caller's thread, then one
// queued closure that calls Gloo on the communication thread.
//
// Contiguous tensors are handed to Gloo as they are (no copy). A non-contiguous tensor
// is copied into a contiguous buffer when the collective is issued and copied back
// after it ran (PyTorch's ProcessGroupGloo accepts such tensors too). Gloo only moves
// bytes, so broadcast and all_gather work on raw bytes; the reductions are typed.
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>

#include <algorithm>
#include <cstring>

#include "distributed/process_group_impl.h"
#include "distributed/tensor_args.h"
#include "ember/ops.h"

namespace ember::distributed {

// All-reduces n elements at p in place (AVG: SUM, then divided by the group size).
void run_allreduce(const std::shared_ptr<gloo::Context>& ctx, void* p, size_t n, DType dtype,
                   ReduceOp op, uint32_t tag, std::chrono::milliseconds timeout) {
  if (n == 0) return;
  // bfloat16/float16: each partial sum is rounded to 16 bits, as torch's Gloo float16 sums.
  visit_dtype_or_half(dtype, [&]<class T>() {
    gloo::AllreduceOptions o(ctx);
    o.setOutput<T>(static_cast<T*>(p), n);
    o.setReduceFunction(reduce_fn<T>(op));
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::allreduce(o);
  });
  if (op == ReduceOp::Avg) divide_for_avg(p, n, dtype, ctx->size);
}

void divide_for_avg(void* p, size_t n, DType dtype, int world) {
  visit_dtype_or_half(dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
      T* x = static_cast<T*>(p);
      using Acc = std::conditional_t<is_half_v<T>, float, T>;  // 16 bits: divided in float
      const Acc w = Acc(world);
      for (size_t i = 0; i < n; ++i) x[i] = T(Acc(x[i]) / w);
    }
  });
}

void run_allgather(const std::shared_ptr<gloo::Context>& ctx, const Tensor& in, void* out,
                   uint32_t tag, std::chrono::milliseconds timeout) {
  size_t nbytes = size_t(in.numel()) * in.itemsize();
  if (nbytes == 0) return;
  gloo::AllgatherOptions o(ctx);
  auto* dst = static_cast<uint8_t*>(out);
  // In place (the input is this rank's slot of the output): Gloo reads it from there.
  if (in.data_ptr() != reinterpret_cast<char*>(dst + nbytes * ctx->rank))
    o.setInput<uint8_t>(reinterpret_cast<uint8_t*>(in.data_ptr()), nbytes);
  o.setOutput<uint8_t>(dst, nbytes * ctx->size);
  o.setTag(tag);
  o.setTimeout(timeout);
  gloo::allgather(o);
}

// --- the collectives ---

WorkPtr ProcessGroup::all_reduce(const Tensor& t, ReduceOp op) {
  check_tensor(t, "all_reduce");
  check_reduce_op(op, t.dtype(), "all_reduce");
  check_writable(t, "all_reduce");
  Target x(t);
  t.bump_version();
  auto ctx = impl_->context;
  auto timeout = timeout_;
  return impl_->enqueue("all_reduce", [=](uint32_t tag) {
    run_allreduce(ctx, x.data(), size_t(t.numel()), t.dtype(), op, tag, timeout);
    x.copy_back();
  });
}

WorkPtr ProcessGroup::broadcast(const Tensor& t, int src) {
  check_tensor(t, "broadcast");
  EMBER_CHECK(src >= 0 && src < size_, Error, "broadcast: invalid src rank ", src,
              " for a group of size ", size_);
  check_writable(t, "broadcast");
  Target x(t);
  if (rank_ != src) t.bump_version();
  size_t nbytes = size_t(t.numel()) * t.itemsize();
  auto ctx = impl_->context;
  auto timeout = timeout_;
  return impl_->enqueue("broadcast", [=](uint32_t tag) {
    if (nbytes == 0) return;
    gloo::BroadcastOptions o(ctx);
    o.setOutput<uint8_t>(reinterpret_cast<uint8_t*>(x.data()), nbytes);
    o.setRoot(src);
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::broadcast(o);
    if (ctx->rank != src) x.copy_back();
  });
}

WorkPtr ProcessGroup::all_gather(const std::vector<Tensor>& outputs, const Tensor& input) {
  check_tensor(input, "all_gather", "input");
  EMBER_CHECK(int64_t(outputs.size()) == size_, Error, "all_gather: the output list has ",
              outputs.size(), " tensors but the group has ", size_, " ranks");
  std::vector<Tensor> dsts = output_aliases(outputs, input, "all_gather", "tensor_list");
  Tensor in = input.is_contiguous() ? input.alias() : contiguous_copy(input);
  Tensor gathered = Tensor::empty({size_ * input.numel()}, input.dtype());
  auto ctx = impl_->context;
  auto timeout = timeout_;
  return impl_->enqueue("all_gather", [=](uint32_t tag) mutable {
    run_allgather(ctx, in, gathered.data_ptr(), tag, timeout);
    unpack(gathered, dsts);
  });
}

WorkPtr ProcessGroup::all_gather_into_tensor(const Tensor& output, const Tensor& input) {
  const char* op = "all_gather_into_tensor";
  check_tensor(input, op, "input");
  check_tensor(output, op, "output");
  EMBER_CHECK(output.dtype() == input.dtype(), ValueError, op, ": output has dtype ",
              dtype_name(output.dtype()), " but input has dtype ", dtype_name(input.dtype()));
  EMBER_CHECK(output.numel() == size_ * input.numel(), Error, op, ": the output of shape ",
              output.sizes(), " must have world_size (", size_,
              ") times the elements of the input of shape ", input.sizes());
  check_writable(output, op);
  Tensor in = input.is_contiguous() ? input.alias() : contiguous_copy(input);
  Target out(output);
  output.bump_version();
  auto ctx = impl_->context;
  auto timeout = timeout_;
  return impl_->enqueue(op, [=](uint32_t tag) {
    run_allgather(ctx, in, out.data(), tag, timeout);
    out.copy_back();
  });
}

// Reduce-scatter as an all-reduce of a scratch copy of the input followed by taking
// this rank's slice: the input stays untouched (as in torch) and Gloo's tested
// all-reduce does the work (twice the traffic of a dedicated reduce-scatter).
static WorkPtr reduce_scatter_scratch(ProcessGroup::Impl& s, const char* op_name,
                                      const Tensor& output, Tensor scratch, ReduceOp op,
                                      std::chrono::milliseconds timeout) {
  output.bump_version();
  Tensor dst = output.alias();
  auto ctx = s.context;
  return s.enqueue(op_name, [=](uint32_t tag) mutable {
    run_allreduce(ctx, scratch.data_ptr(), size_t(scratch.numel()), scratch.dtype(), op, tag,
                  timeout);
    int64_t n = dst.numel();
    copy_(dst,
          scratch.as_strided(dst.sizes(), contiguous_strides(dst.sizes()), int64_t(ctx->rank) * n));
  });
}

WorkPtr ProcessGroup::reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs,
                                     ReduceOp op) {
  const char* name = "reduce_scatter";
  check_tensor(output, name, "output");
  check_reduce_op(op, output.dtype(), name);
  EMBER_CHECK(int64_t(inputs.size()) == size_, Error, name, ": the input list has ", inputs.size(),
              " tensors but the group has ", size_, " ranks");
  for (size_t i = 0; i < inputs.size(); ++i) check_same(inputs[i], output, name, "input_list", i);
  check_writable(output, name);
  Tensor scratch = pack(inputs, output.dtype());
  return reduce_scatter_scratch(*impl_, name, output, scratch, op, timeout_);
}

WorkPtr ProcessGroup::reduce_scatter_tensor(const Tensor& output, const Tensor& input,
                                            ReduceOp op) {
  const char* name = "reduce_scatter_tensor";
  check_tensor(output, name, "output");
  check_tensor(input, name, "input");
  check_reduce_op(op, output.dtype(), name);
  EMBER_CHECK(output.dtype() == input.dtype(), ValueError, name, ": output has dtype ",
              dtype_name(output.dtype()), " but input has dtype ", dtype_name(input.dtype()));
  EMBER_CHECK(input.numel() == size_ * output.numel(), Error, name, ": the input of shape ",
              input.sizes(), " must have world_size (", size_,
              ") times the elements of the output of shape ", output.sizes());
  check_writable(output, name);
  return reduce_scatter_scratch(*impl_, name, output, contiguous_copy(input), op, timeout_);
}

WorkPtr ProcessGroup::barrier() {
  auto ctx = impl_->context;
  auto timeout = timeout_;
  return impl_->enqueue("barrier", [=](uint32_t tag) {
    gloo::BarrierOptions o(ctx);
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::barrier(o);
  });
}

}  // namespace ember::distributed
