// t[...] and t[...] = v with PyTorch's rules. Ints, slices, None and Ellipsis make a
// view (select / slice / unsqueeze, no kernel); integer and bool tensors then pick
// elements of that view through kernels::index_get / index_put (Note [Index loop]).
#include "ops/indexing.h"

#include <algorithm>

#include "autograd/function.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "ops/iter.h"

namespace ember {

namespace ops {

Tensor index_int64(const Tensor& idx, const char* op) {
  EMBER_RECORD(index_int64, idx, op);
  EMBER_PROFILE_OP("index_int64");
  EMBER_CHECK(idx.dtype() == DType::Int64 || idx.dtype() == DType::Int32, TypeError, op,
              ": expected an int64 or int32 index tensor, got ", dtype_name(idx.dtype()));
  return to_dtype(idx, DType::Int64);
}

void check_index_range(const Tensor& idx, int64_t size, int64_t dim, bool wrap_negative,
                       const char* op) {
  EMBER_RECORD(check_index_range, idx, size, dim, wrap_negative, op);
  EMBER_PROFILE_OP("check_index_range");
  int64_t bad = 0;
  bool found = kernels::find_bad_index(idx.data<int64_t>(), idx.sizes(), idx.strides(), size,
                                       wrap_negative, &bad);
  EMBER_CHECK(!found, IndexError, op, *op ? ": " : "", "index ", bad,
              " is out of bounds for dimension ", dim, " with size ", size);
}

Dims byte_strides(IntList strides, int64_t itemsize) {
  Dims out(strides);
  for (int64_t& s : out) s *= itemsize;
  return out;
}

}  // namespace ops

namespace {

using Kind = TensorIndex::Kind;

// uint8 index tensors are masks, as in PyTorch (where they are deprecated).
bool is_mask(DType d) { return d == DType::Bool || d == DType::UInt8; }
Tensor as_bool(const Tensor& m) { return m.dtype() == DType::Bool ? m : ne(m, Scalar(int64_t(0))); }

// An index tensor left once basic indexing is done: integers picking along dim `dim` of
// the view, or a bool mask over dims [dim, dim + tensor.dim()).
struct Advanced {
  int64_t dim;
  Tensor tensor;
  bool mask;
};

struct Sliced {
  Tensor view;                // t after ints, slices, None and Ellipsis
  std::vector<Advanced> adv;  // in dim order
};

int64_t dims_consumed(const TensorIndex& i) {
  switch (i.kind) {
    case Kind::Int:
    case Kind::Slice: return 1;
    case Kind::Tensor: return is_mask(i.tensor.dtype()) ? i.tensor.dim() : 1;
    default: return 0;
  }
}

// Checks what can be checked before touching t; returns the number of dims consumed.
int64_t check_indices(const Tensor& t, const std::vector<TensorIndex>& indices) {
  int64_t consumed = 0;
  bool ellipsis = false, has_int = false;
  for (const TensorIndex& i : indices) {
    if (i.kind == Kind::Ellipsis) {
      EMBER_CHECK(!ellipsis, IndexError, "an index can only have a single ellipsis ('...')");
      ellipsis = true;
    } else if (i.kind == Kind::Tensor) {
      EMBER_CHECK(i.tensor.defined(), ValueError, "index: got an undefined index tensor");
      EMBER_CHECK(!is_floating_point(i.tensor.dtype()), IndexError,
                  "tensors used as indices must be long, int, byte or bool tensors (got ",
                  dtype_name(i.tensor.dtype()), ")");
    } else if (i.kind == Kind::Int) {
      has_int = true;
    }
    consumed += dims_consumed(i);
  }
  EMBER_CHECK(!(t.dim() == 0 && has_int), IndexError,
              "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
              "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
  EMBER_CHECK(consumed <= t.dim(), IndexError, "too many indices for tensor of dimension ", t.dim(),
              " (got ", consumed, ")");
  return consumed;
}

// select() with PyTorch's indexing message, naming the dim of the original tensor.
Tensor select_checked(const Tensor& r, int64_t dim, int64_t v, int64_t real_dim) {
  int64_t size = r.sizes()[size_t(dim)];
  EMBER_CHECK(v >= -size && v < size, IndexError, "index ", v, " is out of bounds for dimension ",
              real_dim, " with size ", size);
  return select(r, dim, v);
}

// t[True] is t.unsqueeze(0)[[0]] and t[False] is t.unsqueeze(0)[[]] (PyTorch's rule).
Tensor bool_index(bool v) {
  Tensor i = Tensor::empty({v ? 1 : 0}, DType::Int64);
  if (v) *i.data<int64_t>() = 0;
  return i;
}

void apply_tensor(Sliced& s, const Tensor& x, int64_t& dim, int64_t& real) {
  Tensor& r = s.view;
  const bool mask = is_mask(x.dtype());
  if (x.dim() == 0 && !mask) {  // a 0-d integer tensor is an int: a view, as in PyTorch
    r = select_checked(r, dim, x.item().to_int(), real++);
    return;
  }
  if (x.dim() == 0) {
    r = unsqueeze(r, dim);
    s.adv.push_back({dim++, bool_index(x.item().to<bool>()), false});
    return;
  }
  if (!mask) {
    s.adv.push_back({dim++, x, false});
    ++real;
    return;
  }
  for (int64_t j = 0; j < x.dim(); ++j)
    EMBER_CHECK(x.sizes()[size_t(j)] == r.sizes()[size_t(dim + j)], IndexError,
                "The shape of the mask ", x.sizes(), " at index ", j,
                " does not match the shape of the indexed tensor ", r.sizes(), " at index ",
                dim + j);
  s.adv.push_back({dim, x, true});
  dim += x.dim();
  real += x.dim();
}

Sliced apply_slicing(const Tensor& t, const std::vector<TensorIndex>& indices) {
  const int64_t consumed = check_indices(t, indices);
  Sliced s{t, {}};
  Tensor& r = s.view;
  int64_t dim = 0, real = 0;  // the next dim of the view, and the same dim of t (for messages)
  for (const TensorIndex& i : indices) {
    switch (i.kind) {
      case Kind::Int: r = select_checked(r, dim, i.value, real++); break;
      case Kind::Slice:
        EMBER_CHECK(i.step > 0, ValueError, "step must be greater than zero (got ", i.step, ")");
        r = slice(r, dim++, i.start, i.stop, i.step);
        ++real;
        break;
      case Kind::None: r = unsqueeze(r, dim++); break;
      case Kind::Ellipsis:
        dim += t.dim() - consumed;
        real += t.dim() - consumed;
        break;
      case Kind::Tensor: apply_tensor(s, i.tensor, dim, real); break;
    }
  }
  return s;
}

// Advanced indexing of a view: int64 index tensors (masks expanded through nonzero), their
// broadcast shape, and the result shape. PyTorch's (and NumPy's) rule: the broadcast dims
// replace the indexed dims when those are adjacent, and go first when they are not.
struct Plan {
  std::vector<std::pair<int64_t, Tensor>> idx;  // (dim of the view, int64 index)
  Dims bshape;                                  // broadcast shape of the indices
  Dims shape;                                   // result shape
  Dims from;  // per result dim: the view dim it keeps, or -1 for a broadcast index dim
};

[[noreturn]] void broadcast_error(const Plan& p) {
  std::ostringstream os;
  for (size_t k = 0; k < p.idx.size(); ++k) os << (k ? ", " : "") << p.idx[k].second.sizes();
  throw IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes " +
                   os.str());
}

Plan make_plan(const Sliced& s) {
  Plan p;
  for (const Advanced& a : s.adv) {
    if (!a.mask) {
      p.idx.emplace_back(a.dim, ops::index_int64(a.tensor, "index"));
      continue;
    }
    Tensor nz = nonzero(a.tensor);  // (n, k): column j indexes dim a.dim + j
    for (int64_t j = 0; j < a.tensor.dim(); ++j) p.idx.emplace_back(a.dim + j, select(nz, 1, j));
  }
  p.bshape = p.idx[0].second.sizes();
  try {
    for (size_t k = 1; k < p.idx.size(); ++k)
      p.bshape = broadcast_shapes(p.bshape, p.idx[k].second.sizes(), "index");
  } catch (const ValueError&) {
    broadcast_error(p);
  }
  const int64_t lo = p.idx.front().first, hi = p.idx.back().first;
  const bool adjacent = hi - lo + 1 == int64_t(p.idx.size());
  const int64_t first = adjacent ? lo : 0;
  auto indexed = [&](int64_t d) {
    return std::any_of(p.idx.begin(), p.idx.end(), [&](const auto& e) { return e.first == d; });
  };
  auto keep = [&](int64_t d) {
    p.shape.push_back(s.view.sizes()[size_t(d)]);
    p.from.push_back(d);
  };
  for (int64_t d = 0; d < first; ++d) keep(d);
  for (int64_t b : p.bshape) {
    p.shape.push_back(b);
    p.from.push_back(-1);
  }
  for (int64_t d = first; d < s.view.dim(); ++d)
    if (!indexed(d)) keep(d);
  return p;
}

// The IndexLoop of a plan over `view`; the caller sets vals.
kernels::IndexLoop make_loop(const Tensor& view, const Plan& p) {
  const int64_t isz = int64_t(view.itemsize());
  kernels::IndexLoop L;
  L.shape = p.shape;
  L.data = view.data_ptr();
  L.itemsize = isz;
  L.wrap_negative = true;
  for (int64_t f : p.from) L.data_strides.push_back(f >= 0 ? view.strides()[size_t(f)] * isz : 0);
  for (const auto& [d, idx] : p.idx) {
    Dims bst = broadcast_strides(idx.sizes(), idx.strides(), p.bshape);
    kernels::IndexArg a{idx.data_ptr(),
                        {},
                        view.sizes()[size_t(d)],
                        view.strides()[size_t(d)] * isz};
    size_t b = 0;
    for (int64_t f : p.from) a.strides.push_back(f < 0 ? bst[b++] * 8 : 0);
    L.idx.push_back(std::move(a));
  }
  return L;
}

void check_ranges(const Tensor& view, const Plan& p) {
  for (const auto& [d, idx] : p.idx)
    ops::check_index_range(idx, view.sizes()[size_t(d)], d, true, "");
}

// PyTorch rejects indices into a dim of size 0 even when the result is empty because of
// another dim (an empty result otherwise reads nothing and checks nothing).
void check_empty_dims(const Tensor& view, const Plan& p) {
  if (numel_of(p.bshape) == 0) return;
  for (const auto& [d, idx] : p.idx)
    if (view.sizes()[size_t(d)] == 0) ops::check_index_range(idx, 0, d, true, "");
}

}  // namespace

Tensor index(const Tensor& t, const std::vector<TensorIndex>& indices) {
  EMBER_RECORD(index, t, indices);
  EMBER_PROFILE_OP("index");
  ops::check_defined(t, "index");
  Sliced s = apply_slicing(t, indices);
  if (s.adv.empty()) return s.view.is_same(t) ? t.alias() : s.view;
  const Advanced& a0 = s.adv[0];
  if (s.adv.size() == 1 && a0.mask && a0.dim == 0 && a0.tensor.dim() == s.view.dim())
    return masked_select(s.view, as_bool(a0.tensor));  // x[mask]: one compaction, no nonzero
                                                       // (masked_select records its gradient)
  Plan p = make_plan(s);
  check_empty_dims(s.view, p);
  Tensor out = Tensor::empty(p.shape, t.dtype());
  kernels::IndexLoop L = make_loop(s.view, p);
  L.vals = out.data_ptr();
  L.vals_strides = ops::byte_strides(out.strides(), int64_t(out.itemsize()));
  if (!kernels::index_get(L)) check_ranges(s.view, p);  // throws, naming the culprit
  if (autograd::any_requires_grad(t)) {
    // The gradient adds g back at the indexed positions of a zero tensor (repeats add up).
    autograd::record("IndexBackward0", {&t}, {&out},
                     [indices, shape = Dims(t.sizes()), dt = t.dtype()](Grads& g,
                                                                        const Node&) -> Grads {
                       Tensor z = zeros(shape, dt);
                       return {index_put_(z, indices, g[0], /*accumulate=*/true)};
                     });
  }
  return out;
}

namespace {

// PyTorch drops leading size-1 dims of a value that has more dims than its target.
Tensor strip_leading_ones(const Tensor& v, size_t ndim) {
  size_t drop = 0;
  while (size_t(v.dim()) - drop > ndim && v.sizes()[drop] == 1) ++drop;
  if (drop == 0) return v;
  IntList sz = v.sizes(), st = v.strides();
  return v.as_strided(IntList(sz.data() + drop, sz.size() - drop),
                      IntList(st.data() + drop, st.size() - drop), v.offset());
}

void check_value_shape(IntList value, IntList target) {
  bool ok = true;
  try {
    ok = broadcast_shapes(value, target, "index_put_") == Dims(target);
  } catch (const ValueError&) {
    ok = false;
  }
  EMBER_CHECK(ok, ValueError, "index_put_: shape mismatch: value tensor of shape ", value,
              " cannot be broadcast to indexing result of shape ", target);
}

// Only ints, slices, None and Ellipsis: copy into (or add to) the view.
void put_basic(Tensor& view, const Tensor* value, Scalar scalar, bool accumulate) {
  if (!value) {
    if (accumulate) add_(view, scalar);
    else fill_(view, scalar);
    return;
  }
  Tensor v = strip_leading_ones(*value, size_t(view.dim()));
  check_value_shape(v.sizes(), view.sizes());
  if (accumulate) add_(view, to_dtype(v, view.dtype()));
  else copy_(view, v);
}

// The mask of a single-mask index viewed with the view's shape (stride 0 on other dims),
// so that g[h < 0] = 0 is one masked_fill_.
Tensor mask_over(const Tensor& view, const Advanced& a) {
  Tensor m = as_bool(a.tensor);
  Dims strides(size_t(view.dim()), 0);
  for (int64_t j = 0; j < m.dim(); ++j) strides[size_t(a.dim + j)] = m.strides()[size_t(j)];
  return m.as_strided(view.sizes(), strides, m.offset());
}

// g[h < 0] = 0: one pass over the view, no nonzero and no allocation.
void fill_masked(Tensor& view, const Tensor& mask, Scalar value) {
  // A mask that shares memory with the view (x[x] = False) would change under the writes.
  Tensor m = mask.storage() == view.storage() ? clone(mask) : mask;
  kernels::masked_fill(view.dtype(), ops::make_loop(view.sizes(), {&view, &m}), value);
  view.bump_version();
}

Tensor& put(Tensor& t, const std::vector<TensorIndex>& indices, const Tensor* value, Scalar scalar,
            bool accumulate) {
  ops::check_defined(t, "index_put_");
  if (value) ops::check_defined(*value, "index_put_");
  else ops::check_scalar_fits(t.dtype(), scalar, "index_put_");  // x_uint8[0] = 300 raises
  Sliced s = apply_slicing(t, indices);
  if (s.adv.empty()) {
    put_basic(s.view, value, scalar, accumulate);
    return t;
  }
  if (!accumulate && s.adv.size() == 1 && s.adv[0].mask && (!value || value->numel() == 1)) {
    fill_masked(s.view, mask_over(s.view, s.adv[0]), value ? value->item() : scalar);
    return t;
  }
  Plan p = make_plan(s);
  check_empty_dims(s.view, p);
  for (auto& e : p.idx)  // indices that live in t would change under the writes
    if (e.second.storage() == t.storage()) e.second = clone(e.second);
  Tensor v;
  alignas(16) char buf[16];  // complex128 is 16 bytes
  kernels::IndexLoop L = make_loop(s.view, p);
  if (value) {
    v = strip_leading_ones(to_dtype(*value, t.dtype()), p.shape.size());
    check_value_shape(v.sizes(), p.shape);
    if (v.storage() == t.storage()) v = clone(v);
    L.vals = v.data_ptr();
    L.vals_strides = ops::byte_strides(broadcast_strides(v.sizes(), v.strides(), p.shape),
                                       int64_t(v.itemsize()));
  } else {
    ops::store_scalar(t.dtype(), scalar, buf);
    L.vals = buf;
    L.vals_strides = Dims(p.shape.size(), 0);
  }
  if (numel_of(p.shape) > 0) {
    check_ranges(s.view, p);  // everything is validated before the first write
    kernels::index_put(L, t.dtype(), accumulate);
  }
  t.bump_version();
  return t;
}

}  // namespace

namespace {

// Out of place t[indices] = value (or +=), recording its gradient: t's gradient is g with
// the written positions zeroed (kept when accumulating); value's is g at those positions,
// summed back to value's shape.
Tensor index_put_grad(const Tensor& t, const std::vector<TensorIndex>& indices, const Tensor* value,
                      Scalar scalar, bool accumulate) {
  Tensor out = clone(t);
  {
    NoGradGuard no_grad;
    put(out, indices, value, scalar, accumulate);
  }
  Tensor v = value ? *value : Tensor();
  auto backward = [indices, accumulate, vshape = value ? Dims(v.sizes()) : Dims(),
                   vdt = value ? v.dtype() : t.dtype()](Grads& g, const Node& n) -> Grads {
    Tensor gt, gv;
    if (n.needs_input_grad(0)) {
      gt = g[0];
      if (!accumulate) {
        gt = clone(g[0]);
        NoGradGuard no_grad;  // zeroing a fresh copy: the result's history is gt's clone
        put(gt, indices, nullptr, Scalar(0.0), false);
      }
    }
    if (n.needs_input_grad(1)) {
      Tensor gi = index(g[0], indices);
      // value may carry extra leading size-1 dims that put() stripped before broadcasting.
      int64_t extra = int64_t(vshape.size()) - gi.dim();
      Dims target =
          extra > 0 ? Dims(IntList(vshape.data() + extra, vshape.size() - size_t(extra))) : vshape;
      gv = reshape(autograd::sum_to(gi, target), vshape);
      if (gv.dtype() != vdt) gv = to_dtype(gv, vdt);
    }
    return {gt, gv};
  };
  if (value) autograd::record("IndexPutBackward0", {&t, value}, {&out}, backward);
  else autograd::record("IndexPutBackward0", {&t}, {&out}, backward);
  return out;
}

Tensor& put_checked(Tensor& t, const std::vector<TensorIndex>& indices, const Tensor* value,
                    Scalar scalar, bool accumulate) {
  bool grad = value ? autograd::any_requires_grad(t, *value) : autograd::any_requires_grad(t);
  if (!grad) return put(t, indices, value, scalar, accumulate);
  return autograd::apply_inplace(t, "index_put_", [&](const Tensor& x) {
    return index_put_grad(x, indices, value, scalar, accumulate);
  });
}

}  // namespace

Tensor& index_put_(Tensor& t, const std::vector<TensorIndex>& indices, const Tensor& value) {
  EMBER_RECORD(index_put_, t, indices, value);
  EMBER_PROFILE_OP("index_put_");
  return put_checked(t, indices, &value, Scalar(), false);
}

Tensor& index_put_(Tensor& t, const std::vector<TensorIndex>& indices, Scalar value) {
  EMBER_RECORD(index_put_, t, indices, value);
  EMBER_PROFILE_OP("index_put_");
  return put_checked(t, indices, nullptr, value, false);
}

Tensor& index_put_(Tensor& t, const std::vector<TensorIndex>& indices, const Tensor& value,
                   bool accumulate) {
  EMBER_RECORD(index_put_, t, indices, value, accumulate);
  EMBER_PROFILE_OP("index_put_");
  return put_checked(t, indices, &value, Scalar(), accumulate);
}

}  // namespace ember
