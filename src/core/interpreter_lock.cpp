#include "ember/interpreter_lock.h"

namespace ember {
namespace {
InterpreterLockHooks g_hooks;  // written once at import, before threads use ops
}  // namespace

void set_interpreter_lock_hooks(InterpreterLockHooks hooks) { g_hooks = hooks; }

WithoutInterpreterLock::WithoutInterpreterLock(int64_t work) {
  if (work >= kUnlockedWork && g_hooks.release) token_ = g_hooks.release();
}

WithoutInterpreterLock::~WithoutInterpreterLock() {
  if (token_) g_hooks.reacquire(token_);
}

}  // namespace ember
