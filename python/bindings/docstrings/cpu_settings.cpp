// Per-thread CPU settings (python/bindings/cpu_settings.cpp).
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kCpuSettings[] = {
    {"init_num_threads",
     R"(Gives the calling thread the thread count set_num_threads last set (OpenMP keeps that count per
thread, so a thread started later would otherwise use OpenMP's default); returns None.

>>> ember.init_num_threads()
>>> ember.get_num_threads() >= 1
True)"},
    {"set_flush_denormal",
     R"(Turns flushing of denormal floats to zero on the CPU on (mode=True) or off; applies to the
calling thread and ember's pool threads. Returns True, or False (changing nothing) on a CPU
without that mode (x86 has it).

>>> ember.set_flush_denormal(True)
True
>>> ember.tensor([1e-323], dtype=ember.float64)
tensor([0.], dtype=ember.float64)
>>> ember.set_flush_denormal(False)
True
>>> ember.tensor([1e-323], dtype=ember.float64)
tensor([9.8813e-324], dtype=ember.float64))"},
};

}  // namespace

std::span<const Docstring> cpu_settings_docstrings() { return kCpuSettings; }

}  // namespace ember::py
