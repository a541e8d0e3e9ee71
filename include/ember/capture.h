// Capture and replay (what ember.compile runs on): record the C++ ops a function makes on
// its first call, then run that recording again on new inputs, without the function.
//
//   capture::Recording rec({x});                    // from here, ops on this thread record
//   Tensor y = sum(square(sin(x)) + square(cos(x)));
//   std::shared_ptr<capture::Graph> g = rec.finish({y});   // null: see rec.why()
//   std::string why;
//   if (g && capture::check(*g, {x2}, &why)) Tensor y2 = capture::replay(*g, {x2})[0];
//
// A replay gives the same bits as running the ops again (it calls the same functions, and
// its fused passes the same kernels). The guards (check) are the inputs' sizes, strides,
// storage offsets, dtypes, requires_grad and aliasing, the grad mode, and the metadata of
// every tensor the recording read from outside (parameters, optimizer state). docs/compile.md.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember::capture {

class Graph;
class Recorder;

class Recording {
 public:
  explicit Recording(const std::vector<Tensor>& inputs);
  ~Recording();
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;
  // Stops recording; the graph, or null when the run cannot be replayed (then why()).
  std::shared_ptr<Graph> finish(const std::vector<Tensor>& outputs);
  // Stops recording and keeps nothing (the function raised).
  void abandon();
  bool broken() const;      // an op or a data read stopped the recording early
  std::string why() const;  // why it stopped ("" when it did not)

 private:
  std::unique_ptr<Recorder> r_;
};

// True when `inputs` pass the graph's guards; else `why` says which failed.
bool check(const Graph& g, const std::vector<Tensor>& inputs, std::string* why = nullptr);
// Runs the recording on `inputs` (which passed check) and returns the outputs.
std::vector<Tensor> replay(Graph& g, const std::vector<Tensor>& inputs);
// The recorded calls by name, in order (a fused chain counts once, named "fused[...]").
std::vector<std::string> op_names(const Graph& g);
int64_t num_fused(const Graph& g);  // fused chains
// Steps a replay runs as bare kernel calls (docs/compile.md, Note [Kernel replay]).
int64_t num_kernel_steps(const Graph& g);
// Steps whose results are the same at every replay, run once (Note [Constant steps]).
int64_t num_constant_steps(const Graph& g);
// Whether recordings made from now on use the kernel replay (on by default; off gives the
// op-by-op replay, for comparing the two).
void set_kernel_replay(bool on);
// True when the replay builds no autograd graph (docs/compile.md, Note [Flat replay]).
bool flat(const Graph& g);
// Why a backward() was recorded as one call rather than as its ops (Note [Expanded backward]).
std::vector<std::string> notes(const Graph& g);
std::string describe(const Graph& g);  // one line per step: op(%in...) -> %out...

}  // namespace ember::capture
