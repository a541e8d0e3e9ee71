// A captured program: the C++ calls a function made, in order, over numbered values
// ("slots"), with the guards a later call must pass to be replayed by it.
// See include/ember/capture.h for the public side and docs/compile.md for the design.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/capture.h"
#include "ember/record.h"
#include "kernels/cpu/elementwise.h"

namespace ember::capture {

// What a slot held when it was recorded (the fusion pass and the guards read it).
struct SlotInfo {
  enum class Kind : uint8_t { Input, External, Produced };
  Kind kind = Kind::Produced;
  Dims sizes, strides;
  int64_t offset = 0;
  DType dtype = DType::Float32;
  bool requires_grad = false;
  bool contiguous = true;
};

struct FusedProgram;  // fusion.cpp
struct KernelStep;    // kernel_replay.cpp

struct Step {
  Call call;                            // op name, replay closure, what fusion may know
  std::vector<int> in, out;             // slots of call's tensor inputs / outputs (-1: undefined)
  std::vector<int> release;             // slots last used here: dropped after the step
  std::shared_ptr<FusedProgram> fused;  // set: this step runs a fused chain instead
  std::shared_ptr<KernelStep> kernel;   // set: a flat replay may run it as its kernel
  // Note [Constant steps] (kernel_replay.cpp): the same results at every replay; computed
  // by the first replay and kept in `kept`.
  bool constant = false;
  std::vector<Tensor> kept;
};

// A tensor's metadata, as guarded.
struct Meta {
  Dims sizes, strides;
  int64_t offset = 0;
  DType dtype = DType::Float32;
  bool requires_grad = false;
  static Meta of(const Tensor& t);
  bool matches(const Tensor& t) const;
};

class Graph {
 public:
  // True when `inputs` (and the tensors read from outside: parameters, state) may be
  // replayed by this graph; else `why` names the first guard that failed.
  bool check(const std::vector<Tensor>& inputs, std::string* why) const;
  // Runs the recording on `inputs`; the caller has checked it.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);

  // For explain() and the tests.
  std::vector<std::string> op_names() const;
  int64_t num_fused() const;
  std::string describe() const;
  int64_t num_kernel_steps() const;    // steps a replay runs as kernels (Note [Kernel replay])
  int64_t num_constant_steps() const;  // steps run once (Note [Constant steps])

  int num_slots = 0;
  std::vector<int> input_slots, output_slots;
  std::vector<Meta> input_meta;
  std::vector<int> input_alias;  // per input: an earlier input sharing its storage, or -1
  std::vector<std::pair<int, Tensor>> externals;
  std::vector<Meta> external_meta;
  std::vector<SlotInfo> slots;
  std::vector<Step> steps;
  bool grad_mode = true;
  // Note [Expanded backward]: each leaf (an input or external slot) whose .grad an expanded
  // backward found defined (true) or not: a replay needs the same.
  std::vector<std::pair<int, bool>> leaf_grads;
  // Note [Flat replay]: every backward was recorded as its ops and nothing returned needs
  // the autograd graph: the replay runs every step with grad mode off, building no nodes.
  bool flat = false;
  std::vector<std::string> notes;  // why backward() calls were recorded whole (explain)
  std::vector<Tensor> buffers;     // Note [Kernel replay]: the kernel steps' planned results
  // What run() walks: the steps in order, compact (a recording of thousands of steps is
  // walked at each replay), with their release lists in one array. Built by plan_kernels.
  struct RunStep {
    Step* step;
    KernelStep* kernel;
    FusedProgram* fused;
    int rel0, rel1;  // released[rel0, rel1): slots dropped after the step
  };
  std::vector<RunStep> order;
  std::vector<int> released;
};

// A step's name: the op's, or "fused[sin,pow,...]" for a fused chain.
std::string fused_name(const Step& s);

// Plans and fuses a finished recording (fusion.cpp): merges chains of elementwise steps
// into one pass over memory and sets each step's `release` list.
void optimize(Graph& g);

// Note [Kernel replay] (kernel_replay.cpp): picks the steps of a flat graph that run as
// kernels and plans their buffers (called by optimize); runs one (false: run the op instead);
// learns its kernel call from the tensors of a replay that ran the op; and whether the op's
// result has the layout the plan expects.
// x ** 2, x ** 0.5, x ** -1 (a float exponent) run as one unary kernel in eager
// (pow_as_unary in src/ops/elementwise.cpp): fused chains and kernel steps do the same.
bool pow_as_unary(const Fusable& f, kernels::UnaryOp* u);
// Note [Scalar pow in a replay]: a `tensor ** scalar` step that fused chains and kernel steps
// may run as a kernel call: one whose exponent, in `dt`, is 2 or -1 (the Square/Reciprocal
// kernel both the ops layer and kernels::binary pick), or that pow_as_unary maps. Every other
// scalar pow (3, -2, -0.5, 1.7, `2 ** x`, ...) runs as its op, whose choice of kernel (std::pow,
// products, rsqrt) the replay then cannot get wrong. Other steps: true.
bool scalar_pow_replayable(const Fusable& f, DType dt);
void plan_kernels(Graph& g);
void share_views(Graph& g);  // called by optimize before fusion
bool run_kernel(KernelStep& k, std::vector<Tensor>& v, std::vector<Tensor>& buffers,
                bool check_all);
void prepare_kernel(KernelStep& k, const std::vector<Tensor>& v);
bool kernel_result_as_planned(const KernelStep& k, const std::vector<Tensor>& v);

// The recording sink: installed on the calling thread while a function runs.
class Recorder final : public Sink {
 public:
  explicit Recorder(const std::vector<Tensor>& inputs);
  ~Recorder() override;
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Stops recording. The graph, or null when the run cannot be replayed (why()).
  std::shared_ptr<Graph> finish(const std::vector<Tensor>& outputs);
  // Stops recording without a graph (the function raised).
  void abandon();
  bool broken() const { return !why_.empty(); }
  const std::string& why() const { return why_; }

  void on_enter(const char* op) override;
  void on_call(Call&& call) override;
  void on_unrecorded(const char* op) override;
  void on_data_read(const char* what) override;
  bool begin_expand(const std::vector<Tensor>& roots, bool retain_graph) override;
  bool end_expand() override;
  void expand_fails(const std::string& why) override;
  void on_alias(const Tensor& alias, const Tensor& of) override;
  void on_leaf_grad(const Tensor& leaf, bool defined) override;
  // Why backward() calls were recorded whole rather than as their ops.
  const std::vector<std::string>& expand_notes() const { return expand_notes_; }

 private:
  int slot_of(const Tensor& t, const char* op);  // -1 for an undefined tensor
  int new_slot(const Tensor& t, SlotInfo::Kind kind);
  void breaks(std::string why);
  void uninstall();

  std::shared_ptr<Graph> g_;
  struct Seen {
    int slot;
    uint64_t serial;
  };
  std::unordered_map<TensorImpl*, Seen> seen_;  // an address reused later has a new serial
  struct Alias {
    uint64_t serial;  // the alias's
    TensorImpl* of;   // the tensor whose value it has
    uint64_t of_serial;
  };
  std::unordered_map<TensorImpl*, Alias> aliases_;
  // The backward being expanded (Note [Expanded backward]): what to restore if it fails.
  struct Expansion {
    size_t steps, slots, externals, leaf_grads;
    int num_slots;
    // What new_slot changed in seen_ during the expansion, to undo it if it fails (a copy
    // of seen_ at each backward cost the regression's 100 epochs ~10^5 map nodes).
    struct Undo {
      TensorImpl* impl;
      bool had;  // seen_ held impl before: `old` is what it held
      Seen old;
    };
    std::vector<Undo> undo;
    std::vector<TensorImpl*> roots;  // retain_graph=False: their graphs are freed
    std::string failed;              // why it cannot stand ("" while it can)
  };
  std::unique_ptr<Expansion> expanding_;
  std::vector<std::pair<TensorImpl*, uint64_t>> freed_roots_;  // of the expansions that stood
  int opaque_backwards_ = 0;                                   // backward/grad calls recorded whole
  std::vector<std::string> expand_notes_;                      // why expansions did not stand
  std::vector<TensorImpl*> grad_written_;  // leaves whose .grad a recorded set_grad wrote
  bool flat_ok(const std::vector<Tensor>& outputs) const;
  uint64_t start_serial_;
  int64_t bytes_;
  bool installed_ = false;
  Sink* prev_ = nullptr;
  std::string why_;
};

}  // namespace ember::capture
