// ember::distributed: collectives between processes on Gloo, PyTorch's names.
//
//   #include <ember/distributed.h>
//   namespace dist = ember::distributed;
//
//   dist::InitOptions o;
//   o.init_method = "file:///tmp/rendezvous";   // or "redis://host:6379", "env://"
//   o.rank = rank;
//   o.world_size = 2;
//   dist::init_process_group(o);                 // blocks until every rank has joined
//   Tensor g = ones({1000});
//   dist::all_reduce(g);                         // in place: g == 2 everywhere
//   auto work = dist::all_reduce(g, dist::ReduceOp::Avg, /*async_op=*/true);
//   ...                                          // compute while it runs
//   work->wait();                                // re-throws a failure as ember::Error
//   dist::destroy_process_group();
//
// Every process group owns ONE communication thread: collectives run in the order they
// were issued (the same order on every rank), so a caller may issue several and keep
// computing (a waiting caller may run the next item itself: same order, fewer thread
// switches). Arguments are checked in the caller's thread before anything is queued;
// a dead peer or a timeout fails the collective (and every later one on that group)
// with an ember::Error naming the collective, the ranks and the timeout.
#pragma once
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace gloo {
class Context;
}

namespace ember::distributed {

// Band/Bor/Bxor: bitwise and/or/xor, on integer and bool tensors.
enum class ReduceOp { Sum, Avg, Max, Min, Product, Band, Bor, Bxor };
const char* reduce_op_name(ReduceOp op);  // "SUM", "AVG", ...

// The handle of one queued collective (torch.distributed.Work).
class Work {
 public:
  explicit Work(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  bool is_completed() const;
  bool is_success() const;  // completed without error
  // Blocks until the collective ran; throws ember::Error if it failed.
  void wait();
  // Same, giving up after `timeout` (throws ember::Error naming the collective).
  void wait(std::chrono::milliseconds timeout);

  // Called by the process group: `finish` when the collective ran; `help` is called by
  // wait() to run the collective in the waiting thread when it is next in line and the
  // communication thread is idle (saves two thread switches per synchronous call).
  void finish(std::string error);
  void set_helper(std::function<void()> help) { help_ = std::move(help); }
  // Called by wait(timeout) (send/recv: the wait for the transfer itself, with its bound).
  void set_timed_helper(std::function<void(std::chrono::milliseconds)> help) {
    timed_help_ = std::move(help);
  }

 private:
  std::string name_;
  std::function<void()> help_;
  std::function<void(std::chrono::milliseconds)> timed_help_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::string error_;
};
using WorkPtr = std::shared_ptr<Work>;

class ProcessGroup {
 public:
  // Connects `size` processes through a Gloo rendezvous store given as a URL
  // ("file:///dir" or "redis://host:port"); keys are prefixed by `prefix` so several
  // runs (or groups) may share one store. `hostname` is the address this process
  // listens on ("" picks one: see docs/distributed.md). Blocks until all ranks joined
  // or `timeout` passed.
  // `global_ranks`: the default group's rank of each member (empty: 0..size-1).
  ProcessGroup(const std::string& store_url, const std::string& prefix, int rank, int size,
               std::chrono::milliseconds timeout, const std::string& hostname = "",
               std::vector<int> global_ranks = {});
  ~ProcessGroup();  // shutdown()
  // Finishes the queued work and stops the thread; later collectives throw. Idempotent.
  void shutdown();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  std::chrono::milliseconds timeout() const { return timeout_; }
  const std::string& store_url() const { return store_url_; }
  const std::string& prefix() const { return prefix_; }
  // The default group's rank of each member, in group-rank order.
  const std::vector<int>& global_ranks() const { return global_ranks_; }

  // All collectives work in place on ember tensors (contiguous ones without a copy)
  // and return a Work; with the torch semantics of the same names.
  WorkPtr all_reduce(const Tensor& t, ReduceOp op = ReduceOp::Sum);
  WorkPtr broadcast(const Tensor& t, int src);
  WorkPtr all_gather(const std::vector<Tensor>& outputs, const Tensor& input);
  WorkPtr all_gather_into_tensor(const Tensor& output, const Tensor& input);
  WorkPtr reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs,
                         ReduceOp op = ReduceOp::Sum);
  WorkPtr reduce_scatter_tensor(const Tensor& output, const Tensor& input,
                                ReduceOp op = ReduceOp::Sum);
  WorkPtr barrier();

  // Rooted collectives (collectives_rooted.cpp); ranks are group ranks. `outputs` of
  // gather and `inputs` of scatter are given on the root only (empty elsewhere).
  WorkPtr reduce(const Tensor& t, int dst, ReduceOp op = ReduceOp::Sum);
  WorkPtr gather(const Tensor& input, const std::vector<Tensor>& outputs, int dst);
  WorkPtr scatter(const Tensor& output, const std::vector<Tensor>& inputs, int src);
  // all_to_all.cpp: split sizes along dim 0 (empty: equal parts).
  WorkPtr all_to_all_single(const Tensor& output, const Tensor& input,
                            const std::vector<int64_t>& output_split_sizes,
                            const std::vector<int64_t>& input_split_sizes);
  WorkPtr all_to_all(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs);

  // Point to point (point_to_point.cpp): posted at once, outside the collective queue
  // (as torch's Gloo backend); the Work completes when waited. recv's src -1 takes any
  // rank; `source` then holds the sender's group rank once the Work completed.
  WorkPtr send(const Tensor& t, int dst, int tag = 0);
  WorkPtr recv(const Tensor& t, int src, int tag = 0, std::shared_ptr<int> source = nullptr);
  // Rank 0 waits up to `timeout` for every rank and names the ones that did not arrive.
  WorkPtr monitored_barrier(std::chrono::milliseconds timeout, bool wait_all_ranks);

  struct Impl;  // the queue and the thread (src/distributed/process_group.cpp)

 private:
  int rank_, size_;
  std::chrono::milliseconds timeout_;
  std::string store_url_, prefix_;
  std::vector<int> global_ranks_;
  std::shared_ptr<Impl> impl_;  // shared with the Work helpers (weakly)
};

// --- The default group (torch.distributed's module-level functions) ---

struct InitOptions {
  std::string backend = "gloo";
  // "file:///path", "redis://host:port", "tcp://host:port", "hash://name" (keys in this
  // process's memory) or "env://" (also when empty): see init_process_group below.
  std::string init_method;
  // Put before the group's keys in the store, as "<store_prefix>/..." (torch's PrefixStore).
  std::string store_prefix;
  // tcp:// (and env:// without $EMBER_RENDEZVOUS): rank 0 serves the TCPStore; false when
  // the caller already serves it (torch's init_process_group(store=TCPStore(...))).
  bool serve_tcp_store = true;
  int rank = -1;        // -1: from $RANK (env://)
  int world_size = -1;  // -1: from $WORLD_SIZE (env://)
  std::chrono::milliseconds timeout = std::chrono::minutes(30);
};

// env:// reads RANK and WORLD_SIZE (when not given) and rendezvous through
// $EMBER_RENDEZVOUS (a file://, redis:// or tcp:// URL) if set, else, as PyTorch, through a
// TCPStore (include/ember/tcp_store.h) that rank 0 serves on $MASTER_ADDR:$MASTER_PORT until
// destroy_process_group; tcp://host:port likewise.
// The store's keys are prefixed with $EMBER_RUN_ID (or "default") and a count of the
// groups this process created, so a store reused by another run or a re-init is not mixed up.
void init_process_group(const InitOptions& options);
// How long a peer's host may stay silent (keepalive probes or data unacknowledged) before
// every rank's collectives fail naming it: $EMBER_DIST_PEER_TIMEOUT seconds when set (0
// turns the watch off), else the smaller of kDefaultPeerTimeout and the group's timeout.
constexpr std::chrono::milliseconds kDefaultPeerTimeout{60'000};
std::chrono::milliseconds peer_timeout_for(std::chrono::milliseconds op_timeout);
bool is_initialized();
void destroy_process_group();
// The default group; throws ValueError naming `op` when init_process_group was not called.
std::shared_ptr<ProcessGroup> default_group(const char* op);
int get_rank();
int get_world_size();

// On the default group; async_op=false waits and returns nullptr.
WorkPtr all_reduce(const Tensor& t, ReduceOp op = ReduceOp::Sum, bool async_op = false);
WorkPtr broadcast(const Tensor& t, int src, bool async_op = false);
WorkPtr all_gather(const std::vector<Tensor>& outputs, const Tensor& input, bool async_op = false);
WorkPtr all_gather_into_tensor(const Tensor& output, const Tensor& input, bool async_op = false);
WorkPtr reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs,
                       ReduceOp op = ReduceOp::Sum, bool async_op = false);
WorkPtr reduce_scatter_tensor(const Tensor& output, const Tensor& input,
                              ReduceOp op = ReduceOp::Sum, bool async_op = false);
WorkPtr barrier(bool async_op = false);

// --- Groups (groups.cpp) ---

// torch.distributed.new_group: every rank of the default group calls it with the same
// `ranks` (global, distinct, any order: sorted as torch does); members get a group with
// its own Gloo context (its own store prefix), others get nullptr. timeout 0: the
// default group's.
std::shared_ptr<ProcessGroup> new_group(const std::vector<int>& ranks,
                                        std::chrono::milliseconds timeout = {});
// Shuts the group down and removes the store keys it wrote (file://, redis://, tcp://) once
// every member finished connecting. The default group: destroy_process_group().
void destroy_group(const std::shared_ptr<ProcessGroup>& group);

}  // namespace ember::distributed
