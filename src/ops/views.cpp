// View ops: new shape/strides/offset over the same storage, no data copied.
#include <algorithm>

#include "ember/ops.h"
#include "ops/iter.h"

namespace ember {

Tensor view(const Tensor& t, IntList shape) {
  ops::check_defined(t, "view");
  Dims target = infer_shape(shape, t.numel(), "view");
  Dims strides;
  EMBER_CHECK(view_strides(t.sizes(), t.strides(), target, strides), Error,
              "view: view size ", target, " is not compatible with input tensor's size ",
              t.sizes(), " and stride ", t.strides(),
              " (at least one dimension spans across two contiguous subspaces). "
              "Use .reshape(...) instead.");
  return t.as_strided(target, strides, t.offset());
}

Tensor reshape(const Tensor& t, IntList shape) {
  ops::check_defined(t, "reshape");
  Dims target = infer_shape(shape, t.numel(), "reshape");
  Dims strides;
  if (view_strides(t.sizes(), t.strides(), target, strides))
    return t.as_strided(target, strides, t.offset());
  Tensor c = clone(t);
  return c.as_strided(target, contiguous_strides(target), 0);
}

Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
  ops::check_defined(t, "flatten");
  if (t.dim() == 0) return reshape(t, {1});
  int64_t s = wrap_dim(start_dim, t.dim(), "flatten"), e = wrap_dim(end_dim, t.dim(), "flatten");
  EMBER_CHECK(s <= e, ValueError, "flatten: start_dim (", start_dim,
              ") cannot come after end_dim (", end_dim, ")");
  Dims shape;
  for (int64_t d = 0; d < s; ++d) shape.push_back(t.sizes()[d]);
  int64_t n = 1;
  for (int64_t d = s; d <= e; ++d) n *= t.sizes()[d];
  shape.push_back(n);
  for (int64_t d = e + 1; d < t.dim(); ++d) shape.push_back(t.sizes()[d]);
  return reshape(t, shape);
}

Tensor unflatten(const Tensor& t, int64_t dim, IntList sizes) {
  ops::check_defined(t, "unflatten");
  int64_t d = wrap_dim(dim, t.dim(), "unflatten");
  EMBER_CHECK(!sizes.empty(), ValueError, "unflatten: sizes must be non-empty");
  Dims inner = infer_shape(sizes, t.sizes()[d], "unflatten");
  Dims shape;
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (i == d) for (int64_t s : inner) shape.push_back(s);
    else shape.push_back(t.sizes()[i]);
  }
  return view(t, shape);
}

Tensor squeeze(const Tensor& t) {
  ops::check_defined(t, "squeeze");
  Dims sh, st;
  for (int64_t i = 0; i < t.dim(); ++i)
    if (t.sizes()[i] != 1) sh.push_back(t.sizes()[i]), st.push_back(t.strides()[i]);
  return t.as_strided(sh, st, t.offset());
}

Tensor squeeze(const Tensor& t, IntList dims) {
  ops::check_defined(t, "squeeze");
  uint64_t mask = dim_mask(dims, t.dim(), "squeeze");
  if (dims.empty()) return squeeze(t);
  Dims sh, st;
  for (int64_t i = 0; i < t.dim(); ++i) {
    if ((mask >> i & 1) && t.sizes()[i] == 1) continue;
    sh.push_back(t.sizes()[i]);
    st.push_back(t.strides()[i]);
  }
  return t.as_strided(sh, st, t.offset());
}

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  ops::check_defined(t, "unsqueeze");
  int64_t d = wrap_dim(dim, t.dim() + 1, "unsqueeze");
  Dims sh(t.sizes()), st(t.strides());
  int64_t stride = d < t.dim() ? t.sizes()[d] * t.strides()[d] : 1;
  sh.insert(size_t(d), 1);
  st.insert(size_t(d), stride);
  return t.as_strided(sh, st, t.offset());
}

Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
  ops::check_defined(t, "transpose");
  int64_t a = wrap_dim(dim0, t.dim(), "transpose"), b = wrap_dim(dim1, t.dim(), "transpose");
  if (t.dim() == 0) return t.alias();
  Dims sh(t.sizes()), st(t.strides());
  std::swap(sh[a], sh[b]);
  std::swap(st[a], st[b]);
  return t.as_strided(sh, st, t.offset());
}

Tensor t(const Tensor& x) {
  ops::check_defined(x, "t");
  EMBER_CHECK(x.dim() <= 2, ValueError, "t: expects a tensor with <= 2 dimensions, but self is ",
              x.dim(), "D (shape ", x.sizes(), ")");
  return x.dim() < 2 ? x.alias() : transpose(x, 0, 1);
}

Tensor permute(const Tensor& t, IntList dims) {
  ops::check_defined(t, "permute");
  EMBER_CHECK(int64_t(dims.size()) == t.dim(), ValueError, "permute: number of dims ",
              IntList(dims), " doesn't match the number of dims of the tensor of shape ", t.sizes());
  dim_mask(dims, t.dim(), "permute");  // checks range and repeats
  Dims sh(t.dim()), st(t.dim());
  for (int64_t i = 0; i < t.dim(); ++i) {
    int64_t d = wrap_dim(dims[i], t.dim(), "permute");
    sh[i] = t.sizes()[d];
    st[i] = t.strides()[d];
  }
  return t.as_strided(sh, st, t.offset());
}

Tensor expand(const Tensor& t, IntList shape) {
  ops::check_defined(t, "expand");
  int64_t n = int64_t(shape.size());
  EMBER_CHECK(n >= t.dim(), ValueError, "expand: the number of sizes provided (", n,
              ") must be greater or equal to the number of dimensions in the tensor (", t.dim(), ")");
  Dims sh(n), st(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t j = i - (n - t.dim());
    int64_t want = shape[i];
    if (j >= 0) {
      int64_t have = t.sizes()[j];
      if (want == -1) want = have;
      EMBER_CHECK(have == want || have == 1, ValueError, "expand: the expanded size of the tensor (",
                  want, ") must match the existing size (", have, ") at non-singleton dimension ",
                  i, ". Target sizes: ", shape, ". Tensor sizes: ", t.sizes());
      sh[i] = want;
      st[i] = have == want ? t.strides()[j] : 0;
    } else {
      EMBER_CHECK(want >= 0, ValueError, "expand: the expanded size ", want,
                  " is not allowed in a leading, non-existing dimension ", i);
      sh[i] = want;
      st[i] = 0;
    }
  }
  return t.as_strided(sh, st, t.offset());
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  ops::check_defined(t, "narrow");
  EMBER_CHECK(t.dim() > 0, IndexError, "narrow: cannot be applied to a 0-dim tensor");
  int64_t d = wrap_dim(dim, t.dim(), "narrow");
  int64_t size = t.sizes()[d];
  if (start < 0) start += size;
  EMBER_CHECK(start >= 0 && start <= size, IndexError, "narrow: start (", start,
              ") is out of bounds for dim ", d, " of size ", size);
  EMBER_CHECK(length >= 0 && start + length <= size, IndexError, "narrow: start (", start,
              ") + length (", length, ") exceeds dimension size (", size, ")");
  return slice(t, d, start, start + length, 1);
}

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  ops::check_defined(t, "select");
  EMBER_CHECK(t.dim() > 0, IndexError, "select: invalid index of a 0-dim tensor");
  int64_t d = wrap_dim(dim, t.dim(), "select");
  int64_t size = t.sizes()[d];
  EMBER_CHECK(index >= -size && index < size, IndexError, "select: index ", index,
              " is out of bounds for dimension ", d, " with size ", size);
  if (index < 0) index += size;
  Dims sh(t.sizes()), st(t.strides());
  int64_t off = t.offset() + index * st[d];
  sh.erase(size_t(d));
  st.erase(size_t(d));
  return t.as_strided(sh, st, off);
}

Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step) {
  ops::check_defined(t, "slice");
  EMBER_CHECK(step > 0, ValueError, "slice: step must be greater than zero, got ", step);
  int64_t d = wrap_dim(dim, t.dim(), "slice");
  int64_t size = t.sizes()[d];
  // Python's slice rules: negative counts from the end, out-of-range clamps.
  auto clampi = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v < 0 ? *v + size : *v;
    return std::clamp<int64_t>(x, 0, size);
  };
  int64_t b = clampi(start, 0), e = clampi(stop, size);
  int64_t len = e > b ? (e - b + step - 1) / step : 0;
  Dims sh(t.sizes()), st(t.strides());
  int64_t off = t.offset() + (len > 0 ? b * st[d] : 0);
  sh[d] = len;
  st[d] *= step;
  return t.as_strided(sh, st, off);
}

Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  ops::check_defined(t, "diagonal");
  int64_t a = wrap_dim(dim1, t.dim(), "diagonal"), b = wrap_dim(dim2, t.dim(), "diagonal");
  EMBER_CHECK(a != b, ValueError, "diagonal: dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t n, off = t.offset();
  if (offset >= 0) {
    n = std::max<int64_t>(std::min(t.sizes()[a], t.sizes()[b] - offset), 0);
    if (n > 0) off += offset * t.strides()[b];
  } else {
    n = std::max<int64_t>(std::min(t.sizes()[a] + offset, t.sizes()[b]), 0);
    if (n > 0) off -= offset * t.strides()[a];
  }
  Dims sh, st;
  for (int64_t i = 0; i < t.dim(); ++i)
    if (i != a && i != b) sh.push_back(t.sizes()[i]), st.push_back(t.strides()[i]);
  sh.push_back(n);
  st.push_back(t.strides()[a] + t.strides()[b]);
  return t.as_strided(sh, st, off);
}

std::vector<Tensor> split_with_sizes(const Tensor& t, IntList sizes, int64_t dim) {
  ops::check_defined(t, "split_with_sizes");
  EMBER_CHECK(t.dim() > 0, ValueError, "split: cannot split a 0-dim tensor");
  int64_t d = wrap_dim(dim, t.dim(), "split");
  int64_t total = 0;
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, ValueError, "split_with_sizes: split sizes must be non-negative, got ", sizes);
    total += s;
  }
  EMBER_CHECK(total == t.sizes()[d], ValueError, "split_with_sizes: split sizes ", sizes,
              " must sum to the size of dim ", d, " (", t.sizes()[d], ")");
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(slice(t, d, start, start + s, 1));
    start += s;
  }
  return out;
}

std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim) {
  ops::check_defined(t, "split");
  EMBER_CHECK(t.dim() > 0, ValueError, "split: cannot split a 0-dim tensor");
  int64_t d = wrap_dim(dim, t.dim(), "split");
  int64_t size = t.sizes()[d];
  EMBER_CHECK(split_size > 0 || (split_size == 0 && size == 0), ValueError,
              "split: split_size must be positive, got ", split_size);
  Dims sizes;
  if (size == 0) sizes.push_back(0);
  for (int64_t s = 0; s < size; s += split_size) sizes.push_back(std::min(split_size, size - s));
  return split_with_sizes(t, sizes, d);
}

std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim) {
  ops::check_defined(t, "chunk");
  EMBER_CHECK(chunks > 0, ValueError, "chunk: chunks must be greater than 0, got ", chunks);
  EMBER_CHECK(t.dim() > 0, ValueError, "chunk: expects at least a 1-dimensional tensor");
  int64_t d = wrap_dim(dim, t.dim(), "chunk");
  int64_t size = t.sizes()[d];
  int64_t each = (size + chunks - 1) / chunks;
  if (each == 0) each = 1;
  if (size == 0) return split_with_sizes(t, Dims(size_t(chunks), 0), d);
  return split(t, each, d);
}

std::vector<Tensor> unbind(const Tensor& t, int64_t dim) {
  ops::check_defined(t, "unbind");
  EMBER_CHECK(t.dim() > 0, ValueError, "unbind: dimension specified as ", dim,
              " but tensor has no dimensions");
  int64_t d = wrap_dim(dim, t.dim(), "unbind");
  std::vector<Tensor> out;
  for (int64_t i = 0; i < t.sizes()[d]; ++i) out.push_back(select(t, d, i));
  return out;
}

}  // namespace ember
