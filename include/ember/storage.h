// Storage: one buffer of bytes shared by a tensor and all its views.
// It also holds the version counter: every in-place write to any view bumps it,
// which is how autograd notices that a tensor saved for backward was modified.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ember/intrusive_ptr.h"

namespace ember {

// The caching allocator (src/core/allocator.cpp): 64-byte aligned blocks in size
// classes, reused instead of returned to the OS. Thread-safe.
void* allocate(size_t nbytes);
void deallocate(void* p, size_t nbytes);
struct AllocatorStats {
  int64_t allocated_bytes;  // in live tensors
  int64_t cached_bytes;     // kept for reuse
  int64_t allocations;      // calls to allocate()
  int64_t cache_hits;
};
AllocatorStats allocator_stats();
// Bytes requested from allocate() by the calling thread since it started (the profiler
// reads it before and after an op).
int64_t thread_allocated_bytes();
void empty_cache();

class Storage : public RefCounted {
 public:
  // Owned memory from the caching allocator.
  explicit Storage(size_t nbytes);
  // Borrowed memory (a NumPy array, a DLPack tensor, a memory map): `release(ctx)` runs
  // when the last tensor using it dies.
  Storage(void* data, size_t nbytes, void (*release)(void*), void* ctx);
  ~Storage() override;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  bool owned() const { return owned_; }
  uint32_t version() const { return version_; }
  void bump_version() { ++version_; }

 private:
  void* data_;
  size_t nbytes_;
  void (*release_)(void*) = nullptr;
  void* ctx_ = nullptr;
  uint32_t version_ = 0;
  bool owned_ = true;
};

}  // namespace ember
