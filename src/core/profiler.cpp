// The op profiler of include/ember/profiler.h. Each thread keeps a stack of open scopes;
// a closing scope adds its time and bytes to the global table (under a mutex: this path
// only runs while profiling) and to its parent's "children" sums, from which self time is
// derived.
#include "ember/profiler.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

#include "ember/storage.h"

namespace ember::profiler {

namespace detail {
std::atomic<bool> g_on{false};
}

namespace {

struct Frame {
  std::string name;
  bool backward;
  int64_t start_ns, start_bytes;
  int64_t child_ns = 0, child_bytes = 0;
};

thread_local std::vector<Frame> t_stack;

struct Table {
  std::mutex mu;
  std::map<std::pair<std::string, bool>, OpStats> ops;
};
Table& table() {
  static Table* t = new Table;  // never destroyed: scopes may close during exit
  return *t;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void start() {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  t.ops.clear();
  detail::g_on.store(true);
}

std::vector<OpStats> stop() {
  detail::g_on.store(false);
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  std::vector<OpStats> out;
  for (auto& [key, s] : t.ops) out.push_back(s);
  std::sort(out.begin(), out.end(),
            [](const OpStats& a, const OpStats& b) { return a.self_ns > b.self_ns; });
  return out;
}

bool enabled() { return detail::g_on.load(std::memory_order_relaxed); }

void Scope::begin(std::string name, bool backward) {
  active_ = true;
  t_stack.push_back({std::move(name), backward, now_ns(), thread_allocated_bytes()});
}

void Scope::end() {
  Frame f = std::move(t_stack.back());
  t_stack.pop_back();
  const int64_t ns = now_ns() - f.start_ns, bytes = thread_allocated_bytes() - f.start_bytes;
  if (!t_stack.empty()) {
    t_stack.back().child_ns += ns;
    t_stack.back().child_bytes += bytes;
  }
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  OpStats& s = t.ops[{f.name, f.backward}];
  if (s.calls == 0) {
    s.name = f.name;
    s.backward = f.backward;
  }
  s.calls += 1;
  s.total_ns += ns;
  s.self_ns += ns - f.child_ns;
  s.total_bytes += bytes;
  s.self_bytes += bytes - f.child_bytes;
}

}  // namespace ember::profiler
