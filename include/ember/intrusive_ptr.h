// A reference count inside the object (one allocation per tensor, not two as with
// std::shared_ptr), atomic so tensors can cross threads (DataLoader, DDP hooks).
#pragma once
#include <atomic>
#include <cstdint>
#include <utility>

namespace ember {

class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;
  virtual ~RefCounted() = default;
  void incref() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Returns true when this was the last reference.
  bool decref() const { return refs_.fetch_sub(1, std::memory_order_acq_rel) == 1; }
  uint32_t use_count() const { return refs_.load(std::memory_order_relaxed); }
  // Takes a reference unless the count already reached zero (the object is being
  // destroyed): for caches that hold raw pointers (the shared-memory registry).
  bool try_incref() const {
    uint32_t n = refs_.load(std::memory_order_relaxed);
    while (n != 0)
      if (refs_.compare_exchange_weak(n, n + 1, std::memory_order_acq_rel)) return true;
    return false;
  }

 private:
  mutable std::atomic<uint32_t> refs_{0};
};

template <class T>
class IntrusivePtr {
 public:
  IntrusivePtr() = default;
  IntrusivePtr(std::nullptr_t) {}
  explicit IntrusivePtr(T* p) : p_(p) {
    if (p_) p_->incref();
  }
  IntrusivePtr(const IntrusivePtr& o) : p_(o.p_) {
    if (p_) p_->incref();
  }
  IntrusivePtr(IntrusivePtr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U>
  IntrusivePtr(IntrusivePtr<U> o) : p_(o.release()) {}
  ~IntrusivePtr() { reset(); }
  IntrusivePtr& operator=(IntrusivePtr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  void reset() {
    if (p_ && p_->decref()) delete p_;
    p_ = nullptr;
  }
  T* release() { return std::exchange(p_, nullptr); }
  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  bool operator==(const IntrusivePtr& o) const { return p_ == o.p_; }

 private:
  T* p_ = nullptr;
};

template <class T, class... Args>
IntrusivePtr<T> make_intrusive(Args&&... args) {
  return IntrusivePtr<T>(new T(std::forward<Args>(args)...));
}

}  // namespace ember
