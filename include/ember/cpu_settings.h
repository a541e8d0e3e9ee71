// Per-thread CPU settings that torch exposes (torch.init_num_threads, torch.set_flush_denormal);
// the pool's size itself is get_num_threads/set_num_threads in ops.h.
#pragma once

namespace ember {

// Gives the calling thread the thread count set_num_threads last set: OpenMP keeps that count
// per thread, so a thread started later would otherwise use OpenMP's default.
void init_num_threads();
// Denormal floats flushed to zero (on) or kept (off) on the calling thread and ember's pool
// threads (x86 MXCSR FTZ and DAZ). Returns false, changing nothing, where the CPU has no such mode.
bool set_flush_denormal(bool on);

}  // namespace ember
