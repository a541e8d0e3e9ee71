#include "ember/shape.h"

#include <algorithm>

#include "ember/error.h"

namespace ember {

void Dims::grow(size_t n) {
  size_t cap = std::max<size_t>(n, 2 * cap_);
  auto* p = new int64_t[cap];
  std::memcpy(p, data(), size_ * sizeof(int64_t));
  delete[] heap_;
  heap_ = p;
  cap_ = uint32_t(cap);
}

void Dims::insert(size_t pos, int64_t v) {
  resize(size_ + 1);
  int64_t* d = data();
  std::memmove(d + pos + 1, d + pos, (size_ - 1 - pos) * sizeof(int64_t));
  d[pos] = v;
}

void Dims::erase(size_t pos) {
  int64_t* d = data();
  std::memmove(d + pos, d + pos + 1, (size_ - 1 - pos) * sizeof(int64_t));
  --size_;
}

std::ostream& operator<<(std::ostream& os, IntList s) {
  os << '(';
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  return os << (s.size() == 1 ? ",)" : ")");
}

int64_t numel_of(IntList shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

Dims contiguous_strides(IntList shape) {
  Dims st(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    st[i] = acc;
    acc *= std::max<int64_t>(shape[i], 1);
  }
  return st;
}

bool is_contiguous_layout(IntList shape, IntList strides) {
  // No elements: contiguous whatever the strides (NumPy gives an empty array zero strides).
  if (std::find(shape.begin(), shape.end(), int64_t(0)) != shape.end()) return true;
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = std::max<int64_t>(ndim, 1);
  EMBER_CHECK(dim >= -n && dim < n, IndexError, op, ": dim ", dim,
              " is out of range for a tensor of ", ndim, " dims (expected to be in range [", -n,
              ", ", n - 1, "])");
  return dim < 0 ? dim + n : dim;
}

Dims broadcast_shapes(IntList a, IntList b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  Dims out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK(x == y || x == 1 || y == 1, ValueError, op, ": shapes ", a, " and ", b,
                " cannot be broadcast (dim ", i, ": ", x, " != ", y, ")");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

Dims broadcast_strides(IntList shape, IntList strides, IntList target) {
  Dims out(target.size(), 0);
  size_t off = target.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    out[off + i] = shape[i] == 1 && target[off + i] != 1 ? 0 : strides[i];
  return out;
}

bool view_strides(IntList shape, IntList strides, IntList new_shape, Dims& out) {
  out = Dims(new_shape.size());
  if (numel_of(shape) == 0 || shape.empty()) {
    out = contiguous_strides(new_shape);
    return true;
  }
  // Walk chunks of the old shape that are contiguous among themselves and match
  // them against runs of the new shape with the same number of elements.
  int64_t view_d = int64_t(new_shape.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= shape[d];
    if (d == 0 || (shape[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

Dims infer_shape(IntList requested, int64_t numel, const char* op) {
  Dims out(requested);
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      EMBER_CHECK(infer < 0, ValueError, op, ": only one dimension can be inferred in shape ",
                  requested);
      infer = int64_t(i);
    } else {
      EMBER_CHECK(out[i] >= 0, ValueError, op, ": invalid shape dimension ", out[i], " in ",
                  requested);
      known *= out[i];
    }
  }
  if (infer >= 0) {
    EMBER_CHECK(known != 0 && numel % known == 0, ValueError, op, ": shape ", requested,
                " is invalid for input of size ", numel);
    out[infer] = numel / known;
  }
  EMBER_CHECK(numel_of(out) == numel, ValueError, op, ": shape ", requested,
              " is invalid for input of size ", numel);
  return out;
}

uint64_t dim_mask(IntList dims, int64_t ndim, const char* op) {
  EMBER_CHECK(ndim <= 64, ValueError, op, ": at most 64 dims are supported");
  if (dims.empty()) return ndim == 0 ? 0 : (~uint64_t(0) >> (64 - ndim));
  uint64_t mask = 0;
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim, op);
    if (ndim == 0) continue;
    EMBER_CHECK(!(mask & (uint64_t(1) << w)), ValueError, op, ": dim ", w,
                " appears multiple times in the list of dims");
    mask |= uint64_t(1) << w;
  }
  return mask;
}

Dims reduced_shape(IntList shape, uint64_t mask, bool keepdim) {
  Dims out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (mask & (uint64_t(1) << i)) {
      if (keepdim) out.push_back(1);
    } else {
      out.push_back(shape[i]);
    }
  }
  return out;
}

}  // namespace ember
