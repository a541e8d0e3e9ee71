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

  // Shared memory between processes (src/core/shared_memory.cpp, Note [Shared memory]).
  // The bytes live in an anonymous memfd mapped MAP_SHARED: it has no name in /dev/shm, so
  // nothing can leak; the kernel frees it when the last mapping and fd are gone, in whichever
  // process, however that process ended.
  //
  // Moves the bytes into shared memory in place (a no-op when already shared): every view
  // keeps working and sees the new memory, and the version counter is kept. Throws Error
  // when the kernel refuses the memory.
  void share_memory_();
  bool is_shared() const;
  // The memfd of a shared storage (owned by the storage; -1 when not shared). Another
  // process maps a dup of it with from_shared_fd.
  int shared_fd() const;
  // The storage of a memfd received from another process; takes ownership of `fd` (closed
  // on error too). A memfd this process already maps returns the same Storage object.
  static IntrusivePtr<Storage> from_shared_fd(int fd, size_t nbytes);
  // While on, Storage(nbytes) on the calling thread allocates shared memory (what a
  // DataLoader worker's collate uses, so a batch is born shared instead of copied).
  static void set_shared_allocation(bool on);
  static bool shared_allocation();
  // Exporters of the raw pointer (NumPy, DLPack) call this: share_memory_() then keeps the
  // old buffer alive until the storage dies, so the exported array never dangles.
  void mark_exported() { exported_ = true; }
  // Grows or shrinks owned memory to nbytes, keeping the first bytes (resize_); every view
  // sees the new memory. Throws Error for borrowed, shared or exported memory.
  void resize(size_t nbytes);

  // Note [Meta tensors]: a storage made for device 'meta' is marked so; every tensor viewing it
  // (views, Parameters made from it) is a meta tensor. Its bytes are allocated (virtual memory,
  // untouched until written) but are no data: the bindings refuse to read them out.
  bool meta() const { return meta_; }
  void set_meta() { meta_ = true; }

 private:
  void init_shared(size_t nbytes);  // Storage(nbytes) in shared-allocation mode
  void* data_ = nullptr;
  size_t nbytes_;
  void (*release_)(void*) = nullptr;
  void* ctx_ = nullptr;
  uint32_t version_ = 0;
  bool owned_ = true;
  bool exported_ = false;
  bool meta_ = false;
};

}  // namespace ember
