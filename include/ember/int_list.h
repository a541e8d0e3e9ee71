// IntList: a non-owning view of int64 values (a shape, strides, a list of dims).
// Unlike std::span it also binds to a braced list, so `zeros({2, 3})` works.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <span>
#include <vector>

namespace ember {

class IntList {
 public:
  constexpr IntList() = default;
  constexpr IntList(const int64_t* p, size_t n) : p_(p), n_(n) {}
  // Binds to a braced list for the duration of a call, like std::initializer_list itself
  // (g++ warns about exactly that; clang has no such warning).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  constexpr IntList(std::initializer_list<int64_t> v) : p_(v.begin()), n_(v.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  IntList(const std::vector<int64_t>& v) : p_(v.data()), n_(v.size()) {}
  constexpr IntList(std::span<const int64_t> v) : p_(v.data()), n_(v.size()) {}

  constexpr const int64_t* data() const { return p_; }
  constexpr size_t size() const { return n_; }
  constexpr bool empty() const { return n_ == 0; }
  constexpr int64_t operator[](size_t i) const { return p_[i]; }
  constexpr const int64_t* begin() const { return p_; }
  constexpr const int64_t* end() const { return p_ + n_; }
  constexpr int64_t back() const { return p_[n_ - 1]; }

 private:
  const int64_t* p_ = nullptr;
  size_t n_ = 0;
};

// Prints (3, 4) as PyTorch prints a shape; () for 0-d, (5,) for 1-d.
std::ostream& operator<<(std::ostream& os, IntList s);

}  // namespace ember
