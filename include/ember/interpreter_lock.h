// Big kernels run without the embedding interpreter's lock (Python's GIL), so other Python
// threads run meanwhile, as PyTorch's ops let them. The core knows no Python: the bindings
// install the two functions that drop and retake the lock; a C++ program installs none and
// pays one branch.
//
// Only code that touches raw memory runs unlocked: the kernel calls inside an op, after its
// checks and allocations and before autograd records it. Nothing in there calls back into the
// interpreter (hooks, sinks and the profiler run outside), and what it shares between threads
// (the allocator, OpenMP, OpenBLAS) is thread-safe.
#pragma once
#include <cstdint>

namespace ember {

struct InterpreterLockHooks {
  // Drops the lock if the calling thread holds it; returns what reacquire needs, or nullptr
  // when there was nothing to drop (a thread that never held it, or a nested release).
  void* (*release)() = nullptr;
  void (*reacquire)(void* token) = nullptr;
};
// Installed once, before any op runs on another thread (the Python module does it on import).
void set_interpreter_lock_hooks(InterpreterLockHooks hooks);

// Work (multiply-adds, or elements touched) below which an op keeps the lock: dropping and
// retaking it costs about a microsecond alone, and up to the interpreter's switch interval
// (5 ms) when other threads are running Python.
inline constexpr int64_t kUnlockedWork = int64_t(1) << 18;

// While alive, the interpreter's other threads may run (when work >= kUnlockedWork).
class WithoutInterpreterLock {
 public:
  explicit WithoutInterpreterLock(int64_t work);
  ~WithoutInterpreterLock();
  WithoutInterpreterLock(const WithoutInterpreterLock&) = delete;
  WithoutInterpreterLock& operator=(const WithoutInterpreterLock&) = delete;

 private:
  void* token_ = nullptr;
};

}  // namespace ember
