// View ops: new shape/strides/offset over the same storage, no data copied.
#include <algorithm>

#include "autograd/function.h"
#include "ember/record.h"
#include "ember/ops.h"
#include "ops/iter.h"

namespace ember {

using autograd::record_view;

// Note [View gradients]: a view op's gradient puts the incoming gradient back into the
// region of a zero tensor of the input's shape. The region is found by running the view's
// own geometry (select_layout, slice_layout, ...) on a contiguous layout of that shape, so
// the forward and the backward share one piece of stride arithmetic.
namespace {

struct Layout {
  Dims sizes, strides;
  int64_t offset;
};

Layout contiguous_layout(IntList shape) { return {Dims(shape), contiguous_strides(shape), 0}; }

Tensor take_region(const Tensor& g, IntList shape, const Layout& r);

// zeros(shape) with region r set to g; differentiable in g.
Tensor embed_region(const Tensor& g, IntList shape, const Layout& r) {
  Tensor out = zeros(shape, g.dtype());
  {
    NoGradGuard no_grad;
    Tensor region = out.as_strided(r.sizes, r.strides, r.offset);
    copy_(region, g);
  }
  if (autograd::any_requires_grad(g)) {
    autograd::record("EmbedBackward0", {&g}, {&out},
                     [shape = Dims(shape), r](Grads& gg, const Node&) -> Grads {
                       return {take_region(gg[0], shape, r)};
                     });
  }
  return out;
}

// A copy of region r of g (g has `shape`); differentiable in g.
Tensor take_region(const Tensor& g, IntList shape, const Layout& r) {
  Tensor c = contiguous(g);
  Tensor out;
  {
    NoGradGuard no_grad;
    out = clone(c.as_strided(r.sizes, r.strides, c.offset() + r.offset));
  }
  if (autograd::any_requires_grad(g)) {
    autograd::record("TakeRegionBackward0", {&g}, {&out},
                     [shape = Dims(shape), r](Grads& gg, const Node&) -> Grads {
                       return {embed_region(gg[0], shape, r)};
                     });
  }
  return out;
}

// Records a view whose gradient is its region in a zero tensor of the input's shape.
template <class Geometry>
void record_region_view(const char* name, const Tensor& t, const Tensor& out, Geometry geom) {
  record_view(name, t, out, [shape = Dims(t.sizes()), geom](Grads& g, const Node&) -> Grads {
    return {embed_region(g[0], shape, geom(contiguous_layout(shape)))};
  });
}

// Records a view whose gradient is g reshaped back to the input's shape.
void record_reshape_view(const char* name, const Tensor& t, const Tensor& out) {
  record_view(name, t, out, [shape = Dims(t.sizes())](Grads& g, const Node&) -> Grads {
    return {reshape(g[0], shape)};
  });
}

Layout select_layout(const Layout& in, int64_t d, int64_t index) {
  Layout o{in.sizes, in.strides, in.offset + index * in.strides[d]};
  o.sizes.erase(size_t(d));
  o.strides.erase(size_t(d));
  return o;
}

Layout slice_layout(const Layout& in, int64_t d, int64_t b, int64_t len, int64_t step) {
  Layout o{in.sizes, in.strides, in.offset + (len > 0 ? b * in.strides[d] : 0)};
  o.sizes[d] = len;
  o.strides[d] *= step;
  return o;
}

Layout diagonal_layout(const Layout& in, int64_t offset, int64_t a, int64_t b) {
  int64_t n, off = in.offset;
  if (offset >= 0) {
    n = std::max<int64_t>(std::min(in.sizes[a], in.sizes[b] - offset), 0);
    if (n > 0) off += offset * in.strides[b];
  } else {
    n = std::max<int64_t>(std::min(in.sizes[a] + offset, in.sizes[b]), 0);
    if (n > 0) off -= offset * in.strides[a];
  }
  Layout o{{}, {}, off};
  for (size_t i = 0; i < in.sizes.size(); ++i)
    if (int64_t(i) != a && int64_t(i) != b)
      o.sizes.push_back(in.sizes[i]), o.strides.push_back(in.strides[i]);
  o.sizes.push_back(n);
  o.strides.push_back(in.strides[a] + in.strides[b]);
  return o;
}

Tensor apply_layout(const Tensor& t, const Layout& l) {
  return t.as_strided(l.sizes, l.strides, l.offset);
}
Layout layout_of(const Tensor& t) { return {t.sizes(), t.strides(), t.offset()}; }

// A view whose sizes multiply past int64 would get a wrapped numel (0 for (2**40, 2**40)),
// and loops over it would run forever or read out of bounds: reject it as PyTorch does.
void check_numel(IntList shape, const char* op) {
  int64_t n = 1;
  for (int64_t s : shape) {
    EMBER_CHECK(s < 0 || !__builtin_mul_overflow(n, s, &n), Error, op, ": shape ", shape,
                " is too large (numel overflows)");
  }
}

// Note [Overlapping view gradients]: the elements of an as_strided or unfold view may share
// memory (windows overlap, stride 0), so the gradient adds each output element's gradient
// into the position it reads: a scatter-add of g over the flat indices of region r in a
// zero buffer of n elements (indices = r applied to arange(n)).
Tensor scatter_add_region(const Tensor& g, int64_t n, const Layout& r) {
  Tensor idx =
      reshape(contiguous(arange(Scalar(int64_t(0)), Scalar(n), Scalar(int64_t(1)), DType::Int64)
                             .as_strided(r.sizes, r.strides, r.offset)),
              {-1});
  Tensor flat = zeros({n}, g.dtype());
  index_put_(flat, {TensorIndex::of(idx)}, reshape(g, {-1}), /*accumulate=*/true);
  return flat;
}

// One past the last element a layout reads (its offset when it has no elements).
int64_t layout_end(const Layout& l) {
  int64_t end = l.offset + 1;
  for (size_t i = 0; i < l.sizes.size(); ++i) {
    if (l.sizes[i] == 0) return l.offset;
    end += (l.sizes[i] - 1) * l.strides[i];
  }
  return end;
}

// Whether two elements of the layout may share memory (PyTorch's test: sorted by stride,
// each stride must pass the extent of the dims below it).
bool maybe_overlapping(const Layout& l) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size)
  for (size_t i = 0; i < l.sizes.size(); ++i)
    if (l.sizes[i] > 1) dims.push_back({l.strides[i], l.sizes[i]});
  std::sort(dims.begin(), dims.end());
  int64_t extent = 0;
  for (auto [stride, size] : dims) {
    if (stride <= extent) return true;
    extent += (size - 1) * stride;
  }
  return false;
}

// as_strided's gradient: g scattered into the storage span both geometries touch, read back
// through the input's geometry; an input whose elements overlap shares each position's
// gradient among the elements that read it, as PyTorch does.
Tensor as_strided_backward(const Tensor& g, const Layout& in, const Layout& out) {
  int64_t base = std::min(in.offset, out.offset);
  int64_t n = std::max(layout_end(in), layout_end(out)) - base;
  Layout o{out.sizes, out.strides, out.offset - base}, i{in.sizes, in.strides, in.offset - base};
  Tensor flat = scatter_add_region(g, n, o);
  if (maybe_overlapping(i)) {
    Tensor count = scatter_add_region(ones(i.sizes, g.dtype()), n, i);
    flat = div(flat, maximum(count, Scalar(1.0)));
  }
  return contiguous(flat.as_strided(i.sizes, i.strides, i.offset));
}

Layout unfold_layout(const Layout& in, int64_t d, int64_t size, int64_t step) {
  Layout o = in;
  if (in.sizes.empty()) return {{size}, {1}, in.offset};  // a 0-d tensor: one window
  o.sizes[d] = (in.sizes[d] - size) / step + 1;
  o.strides[d] = in.strides[d] * step;
  o.sizes.push_back(size);
  o.strides.push_back(in.strides[d]);
  return o;
}

}  // namespace

Tensor as_strided(const Tensor& t, IntList sizes, IntList strides,
                  std::optional<int64_t> storage_offset) {
  EMBER_RECORD(as_strided, t, sizes, strides, storage_offset);
  ops::check_defined(t, "as_strided");
  EMBER_CHECK(sizes.size() == strides.size(), Error, "as_strided: mismatch in length of strides ",
              strides, " and shape ", sizes);
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(strides[i] >= 0, Error,
                "as_strided: Negative strides are not supported at the "
                "moment, got strides: ",
                strides);
    EMBER_CHECK(sizes[i] >= 0, Error,
                "as_strided: Storage size calculation overflowed with sizes=", sizes,
                " and strides=", strides);
  }
  check_numel(sizes, "as_strided");
  int64_t offset = storage_offset.value_or(t.offset());
  EMBER_CHECK(offset >= 0, Error, "as_strided: invalid storage offset ", offset);
  Layout out_layout{Dims(sizes), Dims(strides), offset};
  int64_t need = 0;  // bytes; 0 for an empty view
  if (numel_of(sizes) > 0) {
    int64_t end = offset, span = 0;
    bool overflow = false;
    for (size_t i = 0; i < sizes.size(); ++i)
      overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &span) ||
                  __builtin_add_overflow(end, span, &end);
    overflow |= __builtin_add_overflow(end, int64_t(1), &end) ||
                __builtin_mul_overflow(end, int64_t(t.itemsize()), &need);
    EMBER_CHECK(!overflow, Error,
                "as_strided: Storage size calculation overflowed with sizes=", sizes,
                " and strides=", strides);
  }
  int64_t have = int64_t(t.storage()->nbytes());
  EMBER_CHECK(need <= have, Error, "as_strided: setStorage: sizes ", sizes, ", strides ", strides,
              ", storage offset ", offset, ", and itemsize ", t.itemsize(),
              " requiring a storage size of ", need, " are out of bounds for storage of size ",
              have);
  Tensor out = t.as_strided(sizes, strides, offset);
  if (autograd::any_requires_grad(t)) {
    record_view("AsStridedBackward0", t, out,
                [in = layout_of(t), out_layout](Grads& g, const Node&) -> Grads {
                  return {as_strided_backward(g[0], in, out_layout)};
                });
  }
  return out;
}

Tensor unfold(const Tensor& t, int64_t dimension, int64_t size, int64_t step) {
  EMBER_RECORD(unfold, t, dimension, size, step);
  ops::check_defined(t, "unfold");
  int64_t d = wrap_dim(dimension, std::max<int64_t>(t.dim(), 1), "unfold");
  int64_t n = t.dim() == 0 ? 1 : t.sizes()[d];
  EMBER_CHECK(size >= 0, Error, "unfold: size is ", size, " but must be >= 0");
  EMBER_CHECK(size <= n, Error, "unfold: maximum size for tensor at dimension ", d, " is ", n,
              " but size is ", size);
  EMBER_CHECK(step > 0, Error, "unfold: step is ", step, " but must be > 0");
  Tensor out = apply_layout(t, unfold_layout(layout_of(t), d, size, step));
  if (autograd::any_requires_grad(t)) {
    record_view("UnfoldBackward0", t, out,
                [shape = Dims(t.sizes()), d, size, step](Grads& g, const Node&) -> Grads {
                  Layout r = unfold_layout(contiguous_layout(shape), d, size, step);
                  return {view(scatter_add_region(g[0], numel_of(shape), r), shape)};
                });
  }
  return out;
}

namespace {
// The sizes `shape` asks of t (a -1 inferred), checked: view's and reshape's first step.
Dims target_shape(const Tensor& t, IntList shape, const char* op) {
  ops::check_defined(t, op);
  check_numel(shape, op);
  return infer_shape(shape, t.numel(), op);
}

// t seen with `target` sizes and the `strides` view_strides found, recording ViewBackward0.
Tensor strided_view(const Tensor& t, const Dims& target, const Dims& strides) {
  Tensor out = t.as_strided(target, strides, t.offset());
  if (autograd::any_requires_grad(t)) record_reshape_view("ViewBackward0", t, out);
  return out;
}
}  // namespace

Tensor view(const Tensor& t, IntList shape) {
  EMBER_RECORD(view, t, shape);
  Dims target = target_shape(t, shape, "view");
  Dims strides;
  EMBER_CHECK(view_strides(t.sizes(), t.strides(), target, strides), Error, "view: view size ",
              target, " is not compatible with input tensor's size ", t.sizes(), " and stride ",
              t.strides(),
              " (at least one dimension spans across two contiguous subspaces). "
              "Use .reshape(...) instead.");
  return strided_view(t, target, strides);
}

Tensor reshape(const Tensor& t, IntList shape) {
  EMBER_RECORD(reshape, t, shape);
  Dims target = target_shape(t, shape, "reshape");
  Dims strides;
  if (view_strides(t.sizes(), t.strides(), target, strides))
    return strided_view(t, target, strides);
  return view(clone(t), target);
}

Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
  EMBER_RECORD(flatten, t, start_dim, end_dim);
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
  EMBER_RECORD(unflatten, t, dim, sizes);
  ops::check_defined(t, "unflatten");
  int64_t d = wrap_dim(dim, t.dim(), "unflatten");
  EMBER_CHECK(!sizes.empty(), ValueError, "unflatten: sizes must be non-empty");
  check_numel(sizes, "unflatten");
  Dims inner = infer_shape(sizes, t.sizes()[d], "unflatten");
  Dims shape;
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (i == d)
      for (int64_t s : inner) shape.push_back(s);
    else shape.push_back(t.sizes()[i]);
  }
  return view(t, shape);
}

namespace {
// t without the dims of size 1 that `mask` marks (bit i: dim i; ~0: every dim, also past
// the 64th), recording `node`.
Tensor squeeze_mask(const Tensor& t, uint64_t mask, const char* node) {
  const bool all = mask == ~uint64_t(0);
  Dims sh, st;
  for (int64_t i = 0; i < t.dim(); ++i) {
    if ((all || (mask >> i & 1)) && t.sizes()[i] == 1) continue;
    sh.push_back(t.sizes()[i]);
    st.push_back(t.strides()[i]);
  }
  Tensor out = t.as_strided(sh, st, t.offset());
  if (autograd::any_requires_grad(t)) record_reshape_view(node, t, out);
  return out;
}
}  // namespace

Tensor squeeze(const Tensor& t) {
  EMBER_RECORD(squeeze, t);
  ops::check_defined(t, "squeeze");
  return squeeze_mask(t, ~uint64_t(0), "SqueezeBackward0");
}

Tensor squeeze(const Tensor& t, IntList dims) {
  EMBER_RECORD(squeeze, t, dims);
  ops::check_defined(t, "squeeze");
  uint64_t mask = dim_mask(dims, t.dim(), "squeeze");
  if (dims.empty()) mask = 0;  // squeeze(dim=()) squeezes nothing, as in PyTorch
  return squeeze_mask(t, mask, "SqueezeBackward1");
}

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  EMBER_RECORD(unsqueeze, t, dim);
  ops::check_defined(t, "unsqueeze");
  int64_t d = wrap_dim(dim, t.dim() + 1, "unsqueeze");
  Dims sh(t.sizes()), st(t.strides());
  int64_t stride = d < t.dim() ? t.sizes()[d] * t.strides()[d] : 1;
  sh.insert(size_t(d), 1);
  st.insert(size_t(d), stride);
  Tensor out = t.as_strided(sh, st, t.offset());
  if (autograd::any_requires_grad(t)) record_reshape_view("UnsqueezeBackward0", t, out);
  return out;
}

Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
  EMBER_RECORD(transpose, t, dim0, dim1);
  ops::check_defined(t, "transpose");
  int64_t a = wrap_dim(dim0, t.dim(), "transpose"), b = wrap_dim(dim1, t.dim(), "transpose");
  if (t.dim() == 0) return view(t, IntList{});
  Dims sh(t.sizes()), st(t.strides());
  std::swap(sh[a], sh[b]);
  std::swap(st[a], st[b]);
  Tensor out = t.as_strided(sh, st, t.offset());
  if (autograd::any_requires_grad(t)) {
    record_view("TransposeBackward0", t, out,
                [a, b](Grads& g, const Node&) -> Grads { return {transpose(g[0], a, b)}; });
  }
  return out;
}

Tensor t(const Tensor& x) {
  EMBER_RECORD(t, x);
  ops::check_defined(x, "t");
  EMBER_CHECK(x.dim() <= 2, ValueError, "t: expects a tensor with <= 2 dimensions, but self is ",
              x.dim(), "D (shape ", x.sizes(), ")");
  return x.dim() < 2 ? view(x, x.sizes()) : transpose(x, 0, 1);
}

Tensor permute(const Tensor& t, IntList dims) {
  EMBER_RECORD(permute, t, dims);
  ops::check_defined(t, "permute");
  EMBER_CHECK(int64_t(dims.size()) == t.dim(), ValueError, "permute: number of dims ",
              IntList(dims), " doesn't match the number of dims of the tensor of shape ",
              t.sizes());
  dim_mask(dims, t.dim(), "permute");  // checks range and repeats
  Dims sh(t.dim()), st(t.dim());
  for (int64_t i = 0; i < t.dim(); ++i) {
    int64_t d = wrap_dim(dims[i], t.dim(), "permute");
    sh[i] = t.sizes()[d];
    st[i] = t.strides()[d];
  }
  Tensor out = t.as_strided(sh, st, t.offset());
  if (autograd::any_requires_grad(t)) {
    Dims inverse(size_t(t.dim()));
    for (int64_t i = 0; i < t.dim(); ++i) inverse[wrap_dim(dims[i], t.dim(), "permute")] = i;
    record_view("PermuteBackward0", t, out,
                [inverse](Grads& g, const Node&) -> Grads { return {permute(g[0], inverse)}; });
  }
  return out;
}

Tensor expand(const Tensor& t, IntList shape) {
  EMBER_RECORD(expand, t, shape);
  ops::check_defined(t, "expand");
  int64_t n = int64_t(shape.size());
  EMBER_CHECK(n >= t.dim(), ValueError, "expand: the number of sizes provided (", n,
              ") must be greater or equal to the number of dimensions in the tensor (", t.dim(),
              ")");
  Dims sh(n), st(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t j = i - (n - t.dim());
    int64_t want = shape[i];
    if (j >= 0) {
      int64_t have = t.sizes()[j];
      if (want == -1) want = have;
      EMBER_CHECK(want >= 0, ValueError, "expand: the expanded size ", want,
                  " is not allowed at dimension ", i, ". Target sizes: ", shape);
      EMBER_CHECK(have == want || have == 1, ValueError,
                  "expand: the expanded size of the tensor (", want,
                  ") must match the existing size (", have, ") at non-singleton dimension ", i,
                  ". Target sizes: ", shape, ". Tensor sizes: ", t.sizes());
      sh[i] = want;
      st[i] = have == want ? t.strides()[j] : 0;
    } else {
      EMBER_CHECK(want >= 0, ValueError, "expand: the expanded size ", want,
                  " is not allowed in a leading, non-existing dimension ", i);
      sh[i] = want;
      st[i] = 0;
    }
  }
  check_numel(sh, "expand");
  Tensor out = t.as_strided(sh, st, t.offset());
  if (autograd::any_requires_grad(t)) {
    record_view("ExpandBackward0", t, out,
                [shape = Dims(t.sizes())](Grads& g, const Node&) -> Grads {
                  return {autograd::sum_to(g[0], shape)};
                });
  }
  return out;
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  EMBER_RECORD(narrow, t, dim, start, length);
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
  EMBER_RECORD(select, t, dim, index);
  ops::check_defined(t, "select");
  EMBER_CHECK(t.dim() > 0, IndexError, "select: invalid index of a 0-dim tensor");
  int64_t d = wrap_dim(dim, t.dim(), "select");
  int64_t size = t.sizes()[d];
  EMBER_CHECK(index >= -size && index < size, IndexError, "select: index ", index,
              " is out of bounds for dimension ", d, " with size ", size);
  if (index < 0) index += size;
  Tensor out = apply_layout(t, select_layout(layout_of(t), d, index));
  if (autograd::any_requires_grad(t))
    record_region_view("SelectBackward0", t, out,
                       [d, index](const Layout& l) { return select_layout(l, d, index); });
  return out;
}

Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step) {
  EMBER_RECORD(slice, t, dim, start, stop, step);
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
  Tensor out = apply_layout(t, slice_layout(layout_of(t), d, b, len, step));
  if (autograd::any_requires_grad(t))
    record_region_view("SliceBackward0", t, out,
                       [=](const Layout& l) { return slice_layout(l, d, b, len, step); });
  return out;
}

Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  EMBER_RECORD(diagonal, t, offset, dim1, dim2);
  ops::check_defined(t, "diagonal");
  int64_t a = wrap_dim(dim1, t.dim(), "diagonal"), b = wrap_dim(dim2, t.dim(), "diagonal");
  EMBER_CHECK(a != b, ValueError, "diagonal: dimensions cannot be identical ", dim1, ", ", dim2);
  Tensor out = apply_layout(t, diagonal_layout(layout_of(t), offset, a, b));
  if (autograd::any_requires_grad(t))
    record_region_view("DiagonalBackward0", t, out,
                       [=](const Layout& l) { return diagonal_layout(l, offset, a, b); });
  return out;
}

namespace {

// Note [One node for split and unbind] (docs/notes.md): the pieces share one backward node,
// whose gradient joins theirs (cat, or stack for unbind) with zeros for pieces that got none;
// each piece is still a view of `t`.
std::vector<Tensor> record_pieces(const char* name, const Tensor& t, std::vector<Tensor> pieces,
                                  int64_t d, bool stacked) {
  if (pieces.empty() || !autograd::any_requires_grad(t)) return pieces;
  std::vector<Dims> shapes;
  for (const Tensor& p : pieces) shapes.push_back(Dims(p.sizes()));
  autograd::record(name, std::vector<Tensor>{t}, pieces,
                   [shapes, d, stacked, dt = t.dtype()](Grads& g, const Node&) -> Grads {
                     std::vector<Tensor> parts;
                     for (size_t i = 0; i < shapes.size(); ++i)
                       parts.push_back(i < g.size() && g[i].defined() ? g[i]
                                                                      : zeros(shapes[i], dt));
                     return {stacked ? stack(parts, d) : cat(parts, d)};
                   });
  for (const Tensor& p : pieces) autograd::mark_view(t, p);
  return pieces;
}

std::vector<Tensor> split_pieces(const char* name, const Tensor& t, IntList sizes, int64_t d) {
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(apply_layout(t, slice_layout(layout_of(t), d, start, s, 1)));
    start += s;
  }
  return record_pieces(name, t, std::move(out), d, false);
}

}  // namespace

std::vector<Tensor> split_with_sizes(const Tensor& t, IntList sizes, int64_t dim) {
  EMBER_RECORD(split_with_sizes, t, sizes, dim);
  ops::check_defined(t, "split_with_sizes");
  EMBER_CHECK(t.dim() > 0, ValueError, "split: cannot split a 0-dim tensor");
  int64_t d = wrap_dim(dim, t.dim(), "split");
  int64_t total = 0;
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, ValueError, "split_with_sizes: split sizes must be non-negative, got ",
                sizes);
    total += s;
  }
  EMBER_CHECK(total == t.sizes()[d], ValueError, "split_with_sizes: split sizes ", sizes,
              " must sum to the size of dim ", d, " (", t.sizes()[d], ")");
  return split_pieces("SplitWithSizesBackward0", t, sizes, d);
}

std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim) {
  EMBER_RECORD(split, t, split_size, dim);
  ops::check_defined(t, "split");
  EMBER_CHECK(t.dim() > 0, ValueError, "split: cannot split a 0-dim tensor");
  int64_t d = wrap_dim(dim, t.dim(), "split");
  int64_t size = t.sizes()[d];
  EMBER_CHECK(split_size > 0 || (split_size == 0 && size == 0), ValueError,
              "split: split_size must be positive, got ", split_size);
  Dims sizes;
  if (size == 0) sizes.push_back(0);
  for (int64_t s = 0; s < size; s += split_size) sizes.push_back(std::min(split_size, size - s));
  return split_pieces("SplitBackward0", t, sizes, d);
}

std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim) {
  EMBER_RECORD(chunk, t, chunks, dim);
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
  EMBER_RECORD(unbind, t, dim);
  ops::check_defined(t, "unbind");
  EMBER_CHECK(t.dim() > 0, ValueError, "unbind: dimension specified as ", dim,
              " but tensor has no dimensions");
  int64_t d = wrap_dim(dim, t.dim(), "unbind");
  std::vector<Tensor> out;
  for (int64_t i = 0; i < t.sizes()[d]; ++i)
    out.push_back(apply_layout(t, select_layout(layout_of(t), d, i)));
  return record_pieces("UnbindBackward0", t, std::move(out), d, true);
}

}  // namespace ember
