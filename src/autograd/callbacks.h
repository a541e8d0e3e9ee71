// Final callbacks of a backward (autograd::queue_callback): each backward() or grad() call
// opens a GraphTaskScope on its thread; callbacks queued while it runs (from hooks, usually)
// run when the graph is done. Scopes nest: a hook that calls backward() gets its own.
#pragma once
#include <functional>
#include <vector>

namespace ember::autograd {

class GraphTaskScope {
 public:
  GraphTaskScope();
  ~GraphTaskScope();  // drops callbacks that did not run (backward threw)
  GraphTaskScope(const GraphTaskScope&) = delete;
  GraphTaskScope& operator=(const GraphTaskScope&) = delete;
  // Runs the queued callbacks in order, including those queued by a callback.
  void run_callbacks();

 private:
  friend void queue_callback(std::function<void()> callback);
  std::vector<std::function<void()>> callbacks_;
  GraphTaskScope* prev_;
};

}  // namespace ember::autograd
