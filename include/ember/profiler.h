// Where the time goes: a built-in op profiler.
//
//   profiler::start();
//   ... run ops, forward and backward ...
//   for (const profiler::OpStats& s : profiler::stop()) ...  // by self time, largest first
//
// or, as ember.profiler.profile in Python (the same table):
//
//   profiler::Profile prof;                       // starts
//   { profiler::RecordFunction r("data"); ... }   // a labelled block, a row of its own
//   ... train a few steps ...
//   prof.stop();
//   std::puts(prof.table("self_cpu_time_total", 10).c_str());
//
// Each public op opens an EMBER_PROFILE_OP scope; the autograd engine opens one per
// backward node (named like "MmBackward0"). A scope costs one relaxed atomic load when the
// profiler is off. When on, it measures wall time and the bytes the caching allocator
// handed out, both inclusive ("total") and minus the scopes nested in it ("self": the op's
// own kernel, not the ops it calls). Ops called from several threads are all counted.
#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/record.h"

namespace ember::profiler {

struct OpStats {
  std::string name;  // the op ("add", "linear") or the backward node ("AddmmBackward0")
  bool backward = false;
  int64_t calls = 0;
  int64_t total_ns = 0, self_ns = 0;
  int64_t total_bytes = 0, self_bytes = 0;  // allocated by the caching allocator
};

void start();                 // clears the counts and turns the profiler on
std::vector<OpStats> stop();  // turns it off; the counts, by self time descending
bool enabled();

namespace detail {
extern std::atomic<bool> g_on;
// The innermost op scope's name on this thread (for errors that name the op: see
// current_op_name in dtype.h); one thread-local store per scope, on or off.
inline thread_local const char* t_op = nullptr;
}  // namespace detail

// Times the enclosing block as op `name` (a string literal) while the profiler is on.
class Scope {
 public:
  explicit Scope(const char* name, bool backward = false) : prev_op_(detail::t_op) {
    detail::t_op = name;
    capture::unrecorded(name);  // an op a capture would miss: it refuses to replay
    if (detail::g_on.load(std::memory_order_relaxed)) begin(name, backward);
  }
  explicit Scope(const std::string& name, bool backward) : prev_op_(detail::t_op) {
    if (detail::g_on.load(std::memory_order_relaxed)) begin(name, backward);
  }
  ~Scope() {
    detail::t_op = prev_op_;
    if (active_) end();
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  void begin(std::string name, bool backward);
  void end();
  const char* prev_op_;
  bool active_ = false;
};

// ---- tables and scopes for programs (src/core/profiler_table.cpp) -----------------------
// The rows as ember.profiler's table: name, self %, self time, total time, calls, average self
// time, self allocation, then the wall time and the part of it spent outside ember's ops.
// sort_by: torch's names ("self_cpu_time_total", "cpu_time_total", "count",
// "self_cpu_memory_usage", "cpu_memory_usage"); row_limit < 0: every row. An unknown
// sort_by throws ValueError.
std::string table(const std::vector<OpStats>& rows, int64_t wall_ns,
                  std::string_view sort_by = "self_cpu_time_total", int64_t row_limit = 100);

// Profiles the ops run while it is alive (on every thread): torch.profiler.profile.
// Starting while another profile runs throws Error (profiles do not nest).
class Profile {
 public:
  Profile();
  ~Profile();  // stops, if stop() was not called
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;
  const std::vector<OpStats>& stop();        // once; later calls return the same rows
  const std::vector<OpStats>& rows() const;  // Error before stop()
  int64_t wall_ns() const { return wall_ns_; }
  std::string table(std::string_view sort_by = "self_cpu_time_total",
                    int64_t row_limit = 100) const;

 private:
  int64_t start_ns_, wall_ns_ = 0;
  std::optional<std::vector<OpStats>> rows_;
};

// Labels the enclosing block in the profile (torch.profiler.record_function): its self time
// is the block's time outside the ember ops it runs.
class RecordFunction {
 public:
  explicit RecordFunction(const std::string& name) : scope_(name, false) {}

 private:
  Scope scope_;
};

}  // namespace ember::profiler

#define EMBER_PROFILE_OP(name) ::ember::profiler::Scope ember_profile_scope_(name)
