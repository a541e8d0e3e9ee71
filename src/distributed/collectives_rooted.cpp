// The rooted collectives of a ProcessGroup: reduce (to one rank), gather (to one rank)
// and scatter (from one rank), on Gloo's own algorithms (gloo::reduce, gloo::gather,
// gloo::scatter). Same shape as collectives.cpp: checks in the caller's thread, one
// queued closure for the communication thread. Gather and scatter move raw bytes (every
// dtype the byte collectives take); reduce is typed like all_reduce.
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/scatter.h>

#include "distributed/process_group_impl.h"
#include "distributed/tensor_args.h"
#include "ember/ops.h"

namespace ember::distributed {

// Only `dst` receives the result; the other ranks' tensors are left as they were (Gloo
// reduces in a scratch copy there, torch leaves them unspecified).
WorkPtr ProcessGroup::reduce(const Tensor& t, int dst, ReduceOp op) {
  const char* name = "reduce";
  check_tensor(t, name);
  check_reduce_op(op, t.dtype(), name);
  check_rank(dst, size_, name, "dst");
  check_writable(t, name);
  bool root = rank_ == dst;
  Target x = root ? Target(t) : Target(contiguous_copy(t));
  if (root) t.bump_version();
  auto ctx = impl_->context;
  auto timeout = timeout_;
  size_t n = size_t(t.numel());
  DType dtype = t.dtype();
  return impl_->enqueue(name, [=](uint32_t tag) {
    if (n == 0) return;
    visit_dtype_or_half(dtype, [&]<class T>() {
      gloo::ReduceOptions o(ctx);
      o.setOutput<T>(reinterpret_cast<T*>(x.data()), n);
      o.setRoot(dst);
      o.setReduceFunction(reduce_fn<T>(op));
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::reduce(o);
    });
    if (ctx->rank != dst) return;
    if (op == ReduceOp::Avg) divide_for_avg(x.data(), n, dtype, ctx->size);
    x.copy_back();
  });
}

WorkPtr ProcessGroup::gather(const Tensor& input, const std::vector<Tensor>& outputs, int dst) {
  const char* name = "gather";
  check_tensor(input, name, "input");
  check_rank(dst, size_, name, "dst");
  bool root = rank_ == dst;
  check_root_list(outputs, root, size_, name, "gather_list", "destination");
  std::vector<Tensor> dsts = output_aliases(outputs, input, name, "gather_list");
  Tensor in = input.is_contiguous() ? input.alias() : contiguous_copy(input);
  Tensor gathered = root ? Tensor::empty({size_ * input.numel()}, input.dtype()) : Tensor();
  auto ctx = impl_->context;
  auto timeout = timeout_;
  return impl_->enqueue(name, [=](uint32_t tag) {
    size_t nbytes = size_t(in.numel()) * in.itemsize();
    if (nbytes == 0) return;
    gloo::GatherOptions o(ctx);
    o.setInput<uint8_t>(reinterpret_cast<uint8_t*>(in.data_ptr()), nbytes);
    if (ctx->rank == dst)
      o.setOutput<uint8_t>(reinterpret_cast<uint8_t*>(gathered.data_ptr()), nbytes * ctx->size);
    o.setRoot(dst);
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::gather(o);
    if (ctx->rank == dst) unpack(gathered, dsts);
  });
}

WorkPtr ProcessGroup::scatter(const Tensor& output, const std::vector<Tensor>& inputs, int src) {
  const char* name = "scatter";
  check_tensor(output, name, "output");
  check_rank(src, size_, name, "src");
  bool root = rank_ == src;
  check_root_list(inputs, root, size_, name, "scatter_list", "source");
  for (size_t i = 0; i < inputs.size(); ++i) check_same(inputs[i], output, name, "scatter_list", i);
  check_writable(output, name);
  // The source's tensors as they are when contiguous (read on the communication thread,
  // like broadcast's source: async_op=True callers leave them alone until wait(), as
  // torch asks), else as contiguous copies.
  int64_t n = output.numel();
  std::vector<Tensor> srcs;
  for (const Tensor& t : inputs) srcs.push_back(t.is_contiguous() ? t.alias() : contiguous_copy(t));
  Target out(output);
  output.bump_version();
  auto ctx = impl_->context;
  auto timeout = timeout_;
  return impl_->enqueue(name, [=](uint32_t tag) {
    size_t nbytes = size_t(n) * out.buf.itemsize();
    if (nbytes == 0) return;
    gloo::ScatterOptions o(ctx);
    if (ctx->rank == src) {
      std::vector<uint8_t*> ptrs;
      for (const Tensor& t : srcs) ptrs.push_back(reinterpret_cast<uint8_t*>(t.data_ptr()));
      o.setInputs<uint8_t>(ptrs, nbytes);
    }
    o.setOutput<uint8_t>(reinterpret_cast<uint8_t*>(out.data()), nbytes);
    o.setRoot(src);
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::scatter(o);
    out.copy_back();
  });
}

}  // namespace ember::distributed
