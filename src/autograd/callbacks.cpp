#include "autograd/callbacks.h"

#include "ember/autograd.h"
#include "ember/error.h"

namespace ember::autograd {
namespace {
thread_local GraphTaskScope* t_task = nullptr;
}  // namespace

GraphTaskScope::GraphTaskScope() : prev_(t_task) { t_task = this; }

GraphTaskScope::~GraphTaskScope() { t_task = prev_; }

void GraphTaskScope::run_callbacks() {
  // By index: a callback may queue another one (the vector may grow under us).
  for (size_t i = 0; i < callbacks_.size(); ++i) {
    std::function<void()> cb = std::move(callbacks_[i]);
    cb();
  }
  callbacks_.clear();
}

void queue_callback(std::function<void()> callback) {
  EMBER_CHECK(t_task != nullptr, Error,
              "queue_callback: Final callbacks can only be installed during backward pass.");
  t_task->callbacks_.push_back(std::move(callback));
}

}  // namespace ember::autograd
