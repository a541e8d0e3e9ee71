// all_to_all_single and all_to_all: every rank sends a part of its input to every rank,
// on Gloo's alltoallv (byte counts per rank, so unequal parts cost nothing extra).
// all_to_all_single splits along dim 0 (torch's input/output_split_sizes); all_to_all
// takes one tensor per rank, each of any shape, and packs them into one block.
#include <gloo/alltoallv.h>

#include <numeric>

#include "distributed/process_group_impl.h"
#include "distributed/tensor_args.h"
#include "ember/ops.h"

namespace ember::distributed {
namespace {

// Elements per rank of a tensor split along dim 0 by `splits` (empty: equal parts).
std::vector<int64_t> elements_per_rank(const Tensor& t, const std::vector<int64_t>& splits,
                                       int size, const char* what) {
  const char* op = "all_to_all_single";
  int64_t rows = t.dim() == 0 ? 1 : t.size(0);
  int64_t row = rows == 0 ? 0 : t.numel() / rows;
  std::vector<int64_t> out;
  if (splits.empty()) {
    EMBER_CHECK(rows % size == 0, Error, op, ": the ", what, " of shape ", t.sizes(),
                " cannot be split into ", size, " equal parts along dim 0 (give ", what,
                "_split_sizes)");
    out.assign(size_t(size), rows / size * row);
    return out;
  }
  EMBER_CHECK(int64_t(splits.size()) == size, Error, op, ": ", what, "_split_sizes has ",
              splits.size(), " entries but the group has ", size, " ranks");
  int64_t total = 0;
  for (int64_t s : splits) {
    EMBER_CHECK(s >= 0, Error, op, ": ", what, "_split_sizes has a negative entry ", s);
    total += s;
    out.push_back(s * row);
  }
  EMBER_CHECK(total == rows, Error, op, ": ", what, "_split_sizes sum to ", total, " but the ",
              what, " of shape ", t.sizes(), " has ", rows, " rows");
  return out;
}

WorkPtr enqueue_alltoallv(ProcessGroup::Impl& s, const char* name, Tensor in, Target out,
                          std::vector<int64_t> in_counts, std::vector<int64_t> out_counts,
                          std::function<void()> after, std::chrono::milliseconds timeout) {
  auto ctx = s.context;
  size_t item = in.itemsize();
  for (auto& c : in_counts) c *= int64_t(item);
  for (auto& c : out_counts) c *= int64_t(item);
  return s.enqueue(name, [=](uint32_t tag) {
    int64_t total_in = std::accumulate(in_counts.begin(), in_counts.end(), int64_t(0));
    int64_t total_out = std::accumulate(out_counts.begin(), out_counts.end(), int64_t(0));
    if (total_in + total_out > 0) {
      // Gloo refuses a null pointer: a zero-byte side points at a dummy byte.
      uint8_t dummy = 0;
      gloo::AlltoallvOptions o(ctx);
      o.setInput<uint8_t>(total_in ? reinterpret_cast<uint8_t*>(in.data_ptr()) : &dummy, in_counts);
      o.setOutput<uint8_t>(total_out ? reinterpret_cast<uint8_t*>(out.data()) : &dummy, out_counts);
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::alltoallv(o);
    }
    out.copy_back();
    if (after) after();
  });
}

}  // namespace

WorkPtr ProcessGroup::all_to_all_single(const Tensor& output, const Tensor& input,
                                        const std::vector<int64_t>& output_split_sizes,
                                        const std::vector<int64_t>& input_split_sizes) {
  const char* name = "all_to_all_single";
  check_tensor(input, name, "input");
  check_tensor(output, name, "output");
  EMBER_CHECK(output.dtype() == input.dtype(), ValueError, name, ": output has dtype ",
              dtype_name(output.dtype()), " but input has dtype ", dtype_name(input.dtype()));
  auto in_counts = elements_per_rank(input, input_split_sizes, size_, "input");
  auto out_counts = elements_per_rank(output, output_split_sizes, size_, "output");
  check_writable(output, name);
  // The input is read in place when contiguous and apart from the output's memory.
  const char* ib = input.data_ptr();
  const char* ob = output.data_ptr();
  size_t in_bytes = size_t(input.numel()) * input.itemsize();
  size_t out_bytes = size_t(output.numel()) * output.itemsize();
  bool apart = ib + in_bytes <= ob || ob + out_bytes <= ib;
  Tensor in = input.is_contiguous() && output.is_contiguous() && apart ? input.alias()
                                                                       : contiguous_copy(input);
  Target out(output);
  output.bump_version();
  return enqueue_alltoallv(*impl_, name, in, out, in_counts, out_counts, nullptr, timeout_);
}

WorkPtr ProcessGroup::all_to_all(const std::vector<Tensor>& outputs,
                                 const std::vector<Tensor>& inputs) {
  const char* name = "all_to_all";
  EMBER_CHECK(int64_t(inputs.size()) == size_ && int64_t(outputs.size()) == size_, Error, name,
              ": expected one tensor per rank (", size_, ") in output_tensor_list and ",
              "input_tensor_list, got ", outputs.size(), " and ", inputs.size());
  check_tensor(inputs[0], name, "input_tensor_list[0]");
  DType dtype = inputs[0].dtype();
  std::vector<int64_t> in_counts, out_counts;
  int64_t out_total = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (const Tensor* t : {&inputs[i], &outputs[i]}) {
      const char* what = t == &inputs[i] ? "input_tensor_list" : "output_tensor_list";
      EMBER_CHECK(t->defined(), TypeError, name, ": ", what, "[", i, "] is an undefined tensor");
      EMBER_CHECK(t->dtype() == dtype, ValueError, name, ": ", what, "[", i, "] has dtype ",
                  dtype_name(t->dtype()), " but input_tensor_list[0] has dtype ",
                  dtype_name(dtype));
    }
    check_writable(outputs[i], name);
    in_counts.push_back(inputs[i].numel());
    out_counts.push_back(outputs[i].numel());
    out_total += outputs[i].numel();
  }
  // The inputs packed into one block, the outputs received into another then copied out.
  Tensor in = pack(inputs, dtype);
  Tensor block = Tensor::empty({out_total}, dtype);
  std::vector<Tensor> dsts;
  for (const Tensor& o : outputs) {
    dsts.push_back(o.alias());
    o.bump_version();
  }
  auto unpack_all = [block, dsts] { unpack(block, dsts); };
  return enqueue_alltoallv(*impl_, name, in, Target(block), in_counts, out_counts, unpack_all,
                           timeout_);
}

}  // namespace ember::distributed
