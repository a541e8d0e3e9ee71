// Note [Caching allocator]: MiniTorch pays a fresh NumPy array per op. ember keeps
// freed blocks in power-of-two size classes (from 64 B up to 256 MB) and hands them out
// again, so a training step allocates from the OS only in its first iteration. Blocks
// above the largest class go straight to the OS. The cache holds at most 1 GB or, when the
// program once had more in use, as much as it had in use at its peak (the size classes'
// bytes): a step whose tensors pass 1 GB (minGPT's gpt-mini at batch 64: ~2.2 GB) would
// otherwise free and re-fault its largest blocks every iteration, and with huge pages each
// fault zeroes (and may compact) 2 MB: 12 s of system time in a 20 s run. empty_cache()
// gives it all back.
//
// Note [Huge pages]: a block of 4 MB or more is aligned to 2 MB, and one of 64 MB or more is
// marked MADV_HUGEPAGE (NumPy marks its large arrays too): where transparent huge pages are
// "madvise" (Debian's default), a 360 MB matrix otherwise sits on 92,000 4 KB pages, and a
// gemv streaming through it pays a TLB miss every 4 KB and a page fault per page on first
// touch (bench/, least squares). Not below 64 MB: a huge-page fault may compact memory first
// (defrag "madvise"), ~4 ms per 2 MB on a machine up for a day, and a training step's 25 MB
// activations, touched once per step, paid 4.7 s of system time in minGPT's first step
// (8.9 s against 4.1 s unmarked; later steps the same either way, the cache keeps them).
#include <atomic>
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "ember/error.h"
#include "ember/storage.h"

namespace ember {
namespace {

constexpr size_t kAlign = 64;
constexpr int kMinShift = 6;   // 64 B
constexpr int kMaxShift = 28;  // 256 MB
constexpr size_t kCacheLimit = size_t(1) << 30;

struct Cache {
  std::mutex mu;
  std::vector<void*> free_[kMaxShift + 1];
  size_t cached = 0;
  size_t in_use = 0, peak_in_use = 0;  // bytes of the classes handed out (under mu)
  std::atomic<int64_t> live{0}, allocations{0}, hits{0};
};
Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: tensors may die during exit
  return *c;
}

int size_class(size_t nbytes) {
  if (nbytes <= (size_t(1) << kMinShift)) return kMinShift;
  return int(std::bit_width(nbytes - 1));
}

constexpr size_t kHugePage = size_t(2) << 20;
// Blocks from this size on are marked MADV_HUGEPAGE (Note [Huge pages]).
constexpr size_t kHugeAdvise = size_t(64) << 20;

void* os_alloc(size_t nbytes) {
  const size_t align = nbytes >= 2 * kHugePage ? kHugePage : kAlign;
  const size_t rounded = (nbytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  EMBER_CHECK(p != nullptr, Error, "out of memory: could not allocate ", nbytes, " bytes");
#if defined(MADV_HUGEPAGE)
  if (nbytes >= kHugeAdvise) madvise(p, rounded, MADV_HUGEPAGE);  // a hint: failure is harmless
#endif
  return p;
}

thread_local int64_t t_requested = 0;

}  // namespace

int64_t thread_allocated_bytes() { return t_requested; }

void* allocate(size_t nbytes) {
  Cache& c = cache();
  t_requested += int64_t(nbytes);
  c.allocations.fetch_add(1, std::memory_order_relaxed);
  c.live.fetch_add(int64_t(nbytes), std::memory_order_relaxed);
  if (nbytes == 0) nbytes = 1;
  int cls = size_class(nbytes);
  if (cls > kMaxShift) return os_alloc(nbytes);
  {
    std::lock_guard<std::mutex> lock(c.mu);
    c.in_use += size_t(1) << cls;
    c.peak_in_use = std::max(c.peak_in_use, c.in_use);
    auto& list = c.free_[cls];
    if (!list.empty()) {
      void* p = list.back();
      list.pop_back();
      c.cached -= size_t(1) << cls;
      c.hits.fetch_add(1, std::memory_order_relaxed);
      return p;
    }
  }
  return os_alloc(size_t(1) << cls);
}

void deallocate(void* p, size_t nbytes) {
  if (!p) return;
  Cache& c = cache();
  c.live.fetch_sub(int64_t(nbytes), std::memory_order_relaxed);
  if (nbytes == 0) nbytes = 1;
  int cls = size_class(nbytes);
  if (cls <= kMaxShift) {
    std::lock_guard<std::mutex> lock(c.mu);
    c.in_use -= size_t(1) << cls;
    if (c.cached + (size_t(1) << cls) <= std::max(kCacheLimit, c.peak_in_use)) {
      c.free_[cls].push_back(p);
      c.cached += size_t(1) << cls;
      return;
    }
  }
  std::free(p);
}

AllocatorStats allocator_stats() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return {c.live.load(), int64_t(c.cached), c.allocations.load(), c.hits.load()};
}

void empty_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  for (auto& list : c.free_) {
    for (void* p : list) std::free(p);
    list.clear();
  }
  c.cached = 0;
  c.peak_in_use = c.in_use;  // the bound starts again from what is in use now
}

Storage::Storage(size_t nbytes) : nbytes_(nbytes) {
  if (shared_allocation()) init_shared(nbytes);  // src/core/shared_memory.cpp
  else data_ = allocate(nbytes);
}

Storage::Storage(void* data, size_t nbytes, void (*release)(void*), void* ctx)
    : data_(data), nbytes_(nbytes), release_(release), ctx_(ctx), owned_(false) {}

void Storage::resize(size_t nbytes) {
  EMBER_CHECK(owned_ && !exported_, Error, "Trying to resize storage that is not resizable");
  EMBER_CHECK(nbytes <= (size_t(1) << 46), Error, "resize: cannot allocate ", nbytes,
              " bytes (more than 64 TB)");
  void* fresh = allocate(nbytes);
  if (nbytes_ > 0 && nbytes > 0) std::memcpy(fresh, data_, std::min(nbytes, nbytes_));
  deallocate(data_, nbytes_);
  data_ = fresh;
  nbytes_ = nbytes;
}

Storage::~Storage() {
  if (owned_) deallocate(data_, nbytes_);
  else if (release_) release_(ctx_);
}

}  // namespace ember
