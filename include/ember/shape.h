// Shapes and strides. Dims keeps up to 6 sizes inline (no heap allocation for a
// small tensor); all broadcasting and stride arithmetic lives in src/core/shape.cpp.
#pragma once
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <ostream>

#include "ember/int_list.h"

namespace ember {

class Dims {
 public:
  static constexpr int kInline = 6;
  Dims() = default;
  explicit Dims(size_t n, int64_t fill = 0) { resize(n, fill); }
  Dims(IntList v) { assign(v.data(), v.size()); }
  Dims(std::initializer_list<int64_t> v) { assign(v.begin(), v.size()); }
  Dims(const Dims& o) { assign(o.data(), o.size()); }
  Dims(Dims&& o) noexcept { steal(o); }
  Dims& operator=(const Dims& o) {
    if (this != &o) assign(o.data(), o.size());
    return *this;
  }
  Dims& operator=(Dims&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~Dims() { release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* data() { return heap_ ? heap_ : inline_; }
  const int64_t* data() const { return heap_ ? heap_ : inline_; }
  int64_t& operator[](size_t i) { return data()[i]; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t* begin() { return data(); }
  int64_t* end() { return data() + size_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t back() const { return data()[size_ - 1]; }
  operator IntList() const { return IntList(data(), size_); }

  // Inline because every op copies shapes: only growing past the inline buffer calls out.
  void resize(size_t n, int64_t fill = 0) {
    if (n > cap_) grow(n);
    int64_t* d = data();
    for (size_t i = size_; i < n; ++i) d[i] = fill;
    size_ = uint32_t(n);
  }
  void push_back(int64_t v) { resize(size_ + 1, v); }
  void insert(size_t pos, int64_t v);
  void erase(size_t pos);
  bool operator==(const Dims& o) const { return equal(*this, o); }
  static bool equal(IntList a, IntList b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 8) == 0;
  }

 private:
  void assign(const int64_t* p, size_t n) {
    if (n > cap_) grow(n);
    size_ = uint32_t(n);
    if (n) std::memmove(data(), p, n * sizeof(int64_t));
  }
  void grow(size_t n);
  void steal(Dims& o) {
    size_ = o.size_;
    cap_ = o.cap_;
    heap_ = o.heap_;
    if (!heap_) std::memcpy(inline_, o.inline_, sizeof(inline_));
    o.heap_ = nullptr;
    o.size_ = 0;
    o.cap_ = kInline;
  }
  void release() {
    delete[] heap_;
    heap_ = nullptr;
    cap_ = kInline;
  }
  int64_t inline_[kInline];
  int64_t* heap_ = nullptr;
  uint32_t size_ = 0, cap_ = kInline;
};

inline std::ostream& operator<<(std::ostream& os, const Dims& s) { return os << IntList(s); }

int64_t numel_of(IntList shape);
Dims contiguous_strides(IntList shape);
bool is_contiguous_layout(IntList shape, IntList strides);
// Wraps a possibly negative dim into [0, ndim); throws IndexError naming `op` otherwise.
// A 0-d tensor accepts dims -1 and 0 (as in PyTorch).
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);
// The broadcast of two shapes; throws ValueError naming `op` when they do not broadcast.
Dims broadcast_shapes(IntList a, IntList b, const char* op);
// Strides that view a tensor of (shape, strides) as `target` (its broadcast), 0 on new dims.
Dims broadcast_strides(IntList shape, IntList strides, IntList target);
// Strides for viewing (shape, strides) as `new_shape` without copying, or false when
// the layout does not allow it (PyTorch's computeStride).
bool view_strides(IntList shape, IntList strides, IntList new_shape, Dims& out);
// Resolves one -1 in a requested shape against numel; throws ValueError naming `op`.
Dims infer_shape(IntList requested, int64_t numel, const char* op);
// A bitmask of the dims named in `dims` (all dims when empty); throws on repeats.
uint64_t dim_mask(IntList dims, int64_t ndim, const char* op);
// The shape after reducing the dims in `mask`.
Dims reduced_shape(IntList shape, uint64_t mask, bool keepdim);

}  // namespace ember
