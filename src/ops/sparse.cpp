// Sparse COO ops: forward and backward side by side (Note [Sparse COO tensors] in
// include/ember/tensor.h). Dense ops refuse sparse inputs in ops::check_defined.
#include "ember/sparse.h"

#include <string>

#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "kernels/cpu/sparse.h"
#include "ops/iter.h"

namespace ember {
namespace {

int64_t sparse_dim_of(const Tensor& t) { return t.sparse_indices().size(0); }

// Row-major position of each COO index among the sparse dims of `sizes`.
Tensor linear_index(const Tensor& indices, IntList sizes) {
  int64_t sd = indices.size(0), nnz = indices.size(1);
  Tensor lin = Tensor::empty({nnz}, DType::Int64);
  Tensor idx = contiguous(indices);
  kernels::coo_linear_index(idx.data<int64_t>(), sd, nnz, sizes.data(), lin.data<int64_t>());
  return lin;
}

int64_t row_size(const Tensor& values) {
  int64_t r = 1;
  for (int64_t d = 1; d < values.dim(); ++d) r *= values.size(d);
  return r;
}

template <class F>
void visit_sparse_dtype(DType dt, const char* op, F&& f) {
  switch (dt) {
    case DType::Float32: return f.template operator()<float>();
    case DType::Float64: return f.template operator()<double>();
    case DType::Int8: return f.template operator()<int8_t>();
    case DType::Int16: return f.template operator()<int16_t>();
    case DType::Int32: return f.template operator()<int32_t>();
    case DType::Int64: return f.template operator()<int64_t>();
    default:
      throw NotImplementedError(
          detail::cat(op, ": sparse tensors of dtype ", dtype_name(dt),
                      " are not supported (float32, float64, int8, int16, int32, int64)"));
  }
}

// The values of dense `d` (of t's full shape) at t's indices: [nnz, *dense_dims].
Tensor gather_at(const Tensor& d, const Tensor& indices, IntList sizes) {
  Tensor lin = linear_index(indices, sizes);
  Tensor src = contiguous(d);
  int64_t sd = indices.size(0), nnz = indices.size(1), row = 1;
  Dims vshape{nnz};
  for (int64_t k = sd; k < int64_t(sizes.size()); ++k) row *= sizes[k], vshape.push_back(sizes[k]);
  Tensor out = Tensor::empty(vshape, d.dtype());
  visit_sparse_dtype(d.dtype(), "sparse gather", [&]<class T>() {
    kernels::coo_gather(lin.data<int64_t>(), src.data<T>(), nnz, row, out.data<T>());
  });
  return out;
}

Tensor dense_grad(const Tensor& g) { return g.is_sparse() ? to_dense(g) : g; }

SparseLayout layout_of(const Tensor& t) { return t.impl()->sparse_->layout; }

}  // namespace

Tensor sparse_like(const Tensor& src, const Tensor& indices, const Tensor& values, IntList sizes) {
  Tensor out = Tensor::sparse_coo(indices, values, sizes, src.sparse_coalesced());
  out.impl()->sparse_->layout = layout_of(src);
  out.impl()->sparse_->int32_indices = src.impl()->sparse_->int32_indices;
  return out;
}

Tensor sparse_coo_tensor(const Tensor& indices, const Tensor& values, std::optional<Dims> size) {
  EMBER_PROFILE_OP("sparse_coo_tensor");
  const char* op = "sparse_coo_tensor";
  ops::check_defined(indices, op);
  ops::check_defined(values, op);
  EMBER_CHECK(indices.dtype() == DType::Int64, TypeError, op,
              ": indices must be an int64 tensor, got ", dtype_name(indices.dtype()));
  EMBER_CHECK(indices.dim() == 2, ValueError, op,
              ": indices must be sparse_dim x nnz, but got: ", indices.sizes());
  EMBER_CHECK(values.dim() >= 1 && values.size(0) == indices.size(1), ValueError, op,
              ": number of dimensions... indices.size(1) = ", indices.size(1),
              " must match values.size(0) (values of shape ", values.sizes(), ")");
  int64_t sd = indices.size(0), nnz = indices.size(1);
  Tensor idx = contiguous(indices);
  const int64_t* p = idx.data<int64_t>();
  Dims sizes;
  if (size) {
    sizes = *size;
    EMBER_CHECK(int64_t(sizes.size()) == sd + values.dim() - 1, ValueError, op,
                ": number of dimensions must be sparse_dim (", sd, ") + dense_dim (",
                values.dim() - 1, "), but got size ", sizes);
    for (int64_t d = 1; d < values.dim(); ++d)
      EMBER_CHECK(sizes[sd + d - 1] == values.size(d), ValueError, op, ": values of shape ",
                  values.sizes(), " do not match the dense dims of size ", sizes);
  } else {
    for (int64_t d = 0; d < sd; ++d) {
      int64_t m = 0;
      for (int64_t k = 0; k < nnz; ++k) m = std::max(m, p[d * nnz + k] + 1);
      sizes.push_back(m);
    }
    for (int64_t d = 1; d < values.dim(); ++d) sizes.push_back(values.size(d));
  }
  for (int64_t d = 0; d < sd; ++d)
    for (int64_t k = 0; k < nnz; ++k)
      EMBER_CHECK(p[d * nnz + k] >= 0 && p[d * nnz + k] < sizes[d], ValueError, op, ": index ",
                  p[d * nnz + k], " at row ", d, " of indices ", indices.sizes(),
                  " is out of bounds for size ", sizes);
  Tensor vals = values.is_contiguous() ? values.alias() : contiguous(values);
  Tensor out = Tensor::sparse_coo(idx, vals, sizes, nnz <= 1);
  if (autograd::any_requires_grad(values))
    autograd::record("SparseCooTensorWithDimsAndTensorsBackward0", {&values}, {&out},
                     [idx, sizes](Grads& g, const Node&) -> Grads {
                       return {gather_at(dense_grad(g[0]), idx, sizes)};
                     });
  return out;
}

Tensor to_dense(const Tensor& t) {
  EMBER_PROFILE_OP("to_dense");
  if (!t.defined() || !t.is_sparse()) return t;
  const Tensor& idx = t.sparse_indices();
  Tensor vals = contiguous(t.sparse_values());
  Tensor out = zeros(t.sizes(), t.dtype());
  Tensor lin = linear_index(idx, t.sizes());
  visit_sparse_dtype(t.dtype(), "to_dense", [&]<class T>() {
    kernels::coo_scatter_add(lin.data<int64_t>(), vals.data<T>(), idx.size(1), row_size(vals),
                             out.data<T>());
  });
  if (autograd::any_requires_grad(t))
    autograd::record("ToDenseBackward0", {&t}, {&out},
                     [src = sparse_like(t, idx, t.sparse_values(),
                                        t.sizes())](Grads& g, const Node&) -> Grads {
                       const Tensor& idx = src.sparse_indices();
                       return {
                           sparse_like(src, idx, gather_at(g[0], idx, src.sizes()), src.sizes())};
                     });
  return out;
}

Tensor to_sparse(const Tensor& t, std::optional<int64_t> sparse_dim) {
  EMBER_PROFILE_OP("to_sparse");
  if (t.defined() && t.is_sparse()) return t;
  ops::check_defined(t, "to_sparse");
  int64_t sd = sparse_dim.value_or(t.dim());
  EMBER_CHECK(sd >= 0 && sd <= t.dim(), ValueError, "to_sparse: sparse_dim ", sd,
              " is out of range for a tensor of shape ", t.sizes());
  EMBER_CHECK(sd > 0 || t.dim() == 0, ValueError,
              "to_sparse: sparse_dim must be at least 1 for a tensor of shape ", t.sizes());
  Tensor idx, vals;
  {
    NoGradGuard no_grad;
    Tensor mask = ne(t, Scalar(int64_t(0)));
    if (sd < t.dim()) {
      Dims dense_dims;
      for (int64_t d = sd; d < t.dim(); ++d) dense_dims.push_back(d);
      mask = any(mask, dense_dims);
    }
    idx = contiguous(ember::t(nonzero(mask)));  // [sd, nnz]
    if (t.dim() == 0) idx = Tensor::empty({0, idx.size(1)}, DType::Int64);
  }
  vals = gather_at(t, idx, t.sizes());
  Tensor out = Tensor::sparse_coo(idx, vals, t.sizes(), true);
  if (autograd::any_requires_grad(t))
    autograd::record("ToSparseBackward0", {&t}, {&out},
                     [](Grads& g, const Node&) -> Grads { return {dense_grad(g[0])}; });
  return out;
}

Tensor coalesce(const Tensor& t) {
  EMBER_PROFILE_OP("coalesce");
  EMBER_CHECK(t.is_sparse(), Error, "coalesce: expected a sparse tensor, got a strided one");
  if (t.sparse_coalesced()) return t;
  const Tensor& idx = t.sparse_indices();
  Tensor vals = contiguous(t.sparse_values());
  int64_t sd = idx.size(0), nnz = idx.size(1), row = row_size(vals);
  Tensor lin = linear_index(idx, t.sizes());
  Tensor perm = Tensor::empty({nnz}, DType::Int64), slot = Tensor::empty({nnz}, DType::Int64);
  int64_t n = kernels::coo_coalesce_plan(lin.data<int64_t>(), nnz, perm.data<int64_t>(),
                                         slot.data<int64_t>());
  Tensor out_idx = Tensor::empty({sd, n}, DType::Int64);
  const int64_t *ip = idx.data<int64_t>(), *pp = perm.data<int64_t>(), *sp = slot.data<int64_t>();
  int64_t* op = out_idx.data<int64_t>();
  for (int64_t k = 0; k < nnz; ++k)
    for (int64_t d = 0; d < sd; ++d) op[d * n + sp[k]] = ip[d * nnz + pp[k]];
  Dims vshape = vals.sizes();
  vshape[0] = n;
  Tensor out_vals = zeros(vshape, vals.dtype());
  visit_sparse_dtype(vals.dtype(), "coalesce", [&]<class T>() {
    kernels::coo_segment_sum(vals.data<T>(), row, pp, sp, nnz, out_vals.data<T>());
  });
  Tensor out = Tensor::sparse_coo(out_idx, out_vals, t.sizes(), true);
  if (autograd::any_requires_grad(t))
    autograd::record("CoalesceBackward0", {&t}, {&out},
                     [](Grads& g, const Node&) -> Grads { return {g[0]}; });
  return out;
}

Tensor sparse_transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
  int64_t sd = sparse_dim_of(t);
  dim0 = wrap_dim(dim0, t.dim(), "transpose");
  dim1 = wrap_dim(dim1, t.dim(), "transpose");
  EMBER_CHECK(dim0 < sd && dim1 < sd, NotImplementedError,
              "transpose: only the sparse dims of a sparse tensor can be swapped (sparse_dim ", sd,
              ", dims ", dim0, " and ", dim1, ")");
  Tensor idx = clone(t.sparse_indices());
  Dims sizes = t.sizes();
  std::swap(sizes[dim0], sizes[dim1]);
  {
    int64_t nnz = idx.size(1);
    int64_t* p = idx.data<int64_t>();
    for (int64_t k = 0; k < nnz; ++k) std::swap(p[dim0 * nnz + k], p[dim1 * nnz + k]);
  }
  Tensor out = Tensor::sparse_coo(idx, t.sparse_values(), sizes, false);
  if (layout_of(t) != SparseLayout::Coo) {
    // Swapping a compressed tensor's row and column dims turns CSR order into CSC order.
    EMBER_CHECK(dim0 == dim1 || std::min(dim0, dim1) == sd - 2, NotImplementedError,
                "transpose: only the row and column dims of a compressed sparse tensor can be "
                "swapped (dims ",
                dim0, " and ", dim1, " of ", t.sizes(), ")");
    if (dim0 == dim1) return t;
    out.impl()->sparse_->layout =
        layout_of(t) == SparseLayout::Csr ? SparseLayout::Csc : SparseLayout::Csr;
    out.impl()->sparse_->int32_indices = t.impl()->sparse_->int32_indices;
  }
  if (autograd::any_requires_grad(t))
    autograd::record("TransposeBackward0", {&t}, {&out},
                     [dim0, dim1](Grads& g, const Node&) -> Grads {
                       return {g[0].is_sparse() ? sparse_transpose(g[0], dim0, dim1)
                                                : transpose(g[0], dim0, dim1)};
                     });
  return out;
}

Tensor sparse_mm(const Tensor& a, const Tensor& b) {
  EMBER_PROFILE_OP("mm");
  // RuntimeError, as torch's "mat2 must be a matrix" (PyG's tests expect its class)
  EMBER_CHECK(a.dim() == 2 && b.dim() == 2, Error, "mm: a sparse operand needs 2-d matrices, got ",
              a.sizes(), " and ", b.sizes());
  EMBER_CHECK(a.size(1) == b.size(0), ValueError, "mm: shapes ", a.sizes(), " and ", b.sizes(),
              " cannot be multiplied (", a.size(1), " != ", b.size(0), ")");
  EMBER_CHECK(a.dtype() == b.dtype(), Error, "mm: expected both operands of the same dtype, got ",
              dtype_name(a.dtype()), " and ", dtype_name(b.dtype()));
  if (!a.is_sparse())  // dense @ sparse = (sparse^T @ dense^T)^T
    return ember::t(sparse_mm(sparse_transpose(b, 0, 1), ember::t(a)));
  EMBER_CHECK(!b.is_sparse(), NotImplementedError,
              "mm: sparse @ sparse is not supported; call .to_dense() on one operand");
  EMBER_CHECK(sparse_dim_of(a) == 2, NotImplementedError,
              "mm: a sparse operand with dense dims is not supported");
  const Tensor& idx = a.sparse_indices();
  Tensor vals = contiguous(a.sparse_values()), d = contiguous(b);
  int64_t nnz = idx.size(1), n = b.size(1);
  Tensor out = zeros({a.size(0), n}, a.dtype());
  const int64_t* rows = idx.data<int64_t>();
  const int64_t* cols = rows + nnz;
  visit_sparse_dtype(a.dtype(), "mm", [&]<class T>() {
    kernels::coo_spmm(rows, cols, vals.data<T>(), nnz, d.data<T>(), n, out.data<T>());
  });
  if (autograd::any_requires_grad(a, b))
    autograd::record("MmBackward0", {&a, &b}, {&out},
                     [sizes = Dims(a.sizes()), sd = autograd::SavedTensor(d), idx,
                      vals](Grads& g, const Node& node) -> Grads {
                       Tensor d = sd.get();
                       Tensor go = contiguous(dense_grad(g[0]));
                       int64_t nnz = idx.size(1), n = go.size(1);
                       const int64_t* rows = idx.data<int64_t>();
                       const int64_t* cols = rows + nnz;
                       Tensor ga, gb;
                       // As torch: the gradient of the sparse operand is dense (g @ b^T).
                       if (node.needs_input_grad(0)) ga = mm(go, ember::t(d));
                       if (node.needs_input_grad(1)) {
                         gb = zeros({sizes[1], n}, go.dtype());
                         visit_sparse_dtype(go.dtype(), "mm backward", [&]<class T>() {
                           kernels::coo_spmm(cols, rows, vals.data<T>(), nnz, go.data<T>(), n,
                                             gb.data<T>());
                         });
                       }
                       return {ga, gb};
                     });
  return out;
}

Tensor sparse_clone(const Tensor& t) {
  Tensor out = sparse_like(t, clone(t.sparse_indices()), clone(t.sparse_values()), t.sizes());
  if (autograd::any_requires_grad(t))
    autograd::record("CloneBackward0", {&t}, {&out},
                     [](Grads& g, const Node&) -> Grads { return {g[0]}; });
  return out;
}

Tensor sparse_scalar_op(const char* op, const Tensor& t, Scalar s) {
  std::string name(op);
  if (name != "neg" && name != "mul" && name != "mul_r" && name != "div")
    throw_sparse_unsupported(op);
  double k = name == "neg" ? -1.0 : name == "div" ? 1.0 / s.to_double() : s.to_double();
  Tensor out;
  {
    NoGradGuard no_grad;
    const Tensor& v = t.sparse_values();
    Tensor nv = name == "neg" ? neg(v) : name == "div" ? div(v, s) : mul(v, s);
    out = sparse_like(t, t.sparse_indices(), nv, t.sizes());
  }
  if (autograd::any_requires_grad(t))
    autograd::record("MulBackward0", {&t}, {&out}, [k](Grads& g, const Node&) -> Grads {
      return {g[0].is_sparse() ? sparse_scalar_op("mul", g[0], Scalar(k)) : mul(g[0], Scalar(k))};
    });
  return out;
}

Tensor sparse_binary(const char* op, const Tensor& a, const Tensor& b) {
  std::string name(op);
  // an integer alpha: a float one would promote integer values to float32
  if (name == "add" || name == "sub")
    return sparse_add(a, b, Scalar(int64_t(name == "add" ? 1 : -1)));
  if ((name == "mul" || name == "div") && a.is_sparse() && !b.is_sparse() && b.dim() == 0)
    return sparse_scalar_op(op, a, b.item());
  if (name == "mul" && b.is_sparse() && !a.is_sparse() && a.dim() == 0)
    return sparse_scalar_op(op, b, a.item());
  throw_sparse_unsupported(op);
}

Tensor sparse_to_dtype(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor out;
  {
    NoGradGuard no_grad;
    out = sparse_like(t, t.sparse_indices(), to_dtype(t.sparse_values(), dtype), t.sizes());
  }
  if (autograd::any_requires_grad(t) && is_floating_point(dtype))
    autograd::record("ToCopyBackward0", {&t}, {&out},
                     [dt = t.dtype()](Grads& g, const Node&) -> Grads {
                       return {to_dtype(g[0], dt)};
                     });
  return out;
}

Tensor sparse_add(const Tensor& a, const Tensor& b, Scalar alpha) {
  EMBER_PROFILE_OP("add");
  EMBER_CHECK(a.sizes() == b.sizes(), ValueError, "add: a sparse operand needs equal shapes, got ",
              a.sizes(), " and ", b.sizes());
  if (!a.is_sparse() || !b.is_sparse()) return add(to_dense(a), to_dense(b), alpha);
  EMBER_CHECK(!autograd::any_requires_grad(a, b), NotImplementedError,
              "add: the gradient of sparse + sparse is not supported yet");
  EMBER_CHECK(sparse_dim_of(a) == sparse_dim_of(b), ValueError,
              "add: sparse operands with different sparse_dim (", sparse_dim_of(a), " and ",
              sparse_dim_of(b), ")");
  Tensor idx = cat({a.sparse_indices(), b.sparse_indices()}, 1);
  Tensor vals = cat({a.sparse_values(), mul(b.sparse_values(), alpha)}, 0);
  return sparse_relayout(coalesce(Tensor::sparse_coo(idx, vals, a.sizes(), false)), layout_of(a));
}

Tensor compressed_pointer(const Tensor& keys, int64_t nslots) {
  const char* op = "compressed_pointer";
  ops::check_defined(keys, op);
  EMBER_CHECK(keys.dim() <= 1 && !is_floating_point(keys.dtype()) && keys.dtype() != DType::Bool,
              TypeError, op, ": expected a vector of integer keys, got ", keys.sizes(), " ",
              dtype_name(keys.dtype()));
  EMBER_CHECK(nslots >= 0, ValueError, op, ": nslots must be >= 0, got ", nslots);
  Tensor k = contiguous(to_dtype(keys, DType::Int64));
  Tensor out = Tensor::empty({nslots + 1}, DType::Int64);
  kernels::compressed_pointer(k.data<int64_t>(), k.numel(), nslots, out.data<int64_t>());
  return out;
}

Tensor sparse_values_of(const Tensor& t) {
  EMBER_CHECK(t.defined() && t.is_sparse(), Error,
              "values: expected a sparse tensor, got a strided one");
  if (!autograd::any_requires_grad(t)) return t.sparse_values();
  Tensor out = t.sparse_values().alias();  // shares the values, as torch's view does
  autograd::record("ValuesBackward0", {&t}, {&out},
                   [src = sparse_like(t, t.sparse_indices(), t.sparse_values(),
                                      t.sizes())](Grads& g, const Node&) -> Grads {
                     return {sparse_like(src, src.sparse_indices(), g[0], src.sizes())};
                   });
  return out;
}

Tensor sparse_relayout(const Tensor& t, SparseLayout layout) {
  EMBER_PROFILE_OP("to_sparse");
  EMBER_CHECK(t.defined() && t.is_sparse(), Error,
              "sparse_relayout: expected a sparse tensor, got a strided one");
  if (layout_of(t) == layout) return t;
  Tensor src = layout_of(t) == SparseLayout::Coo ? coalesce(t) : t;
  const Tensor& idx = src.sparse_indices();
  int64_t sd = idx.size(0), nnz = idx.size(1);
  EMBER_CHECK(layout == SparseLayout::Coo || sd >= 2, ValueError,
              "to_sparse: a compressed layout needs at least 2 sparse dims, got ", sd);
  // The target order: row-major over the sparse dims, with the last two swapped for CSC.
  Tensor key_idx = idx;
  Dims key_sizes(IntList(src.sizes().data(), size_t(sd)));
  if (layout == SparseLayout::Csc) {
    key_idx = clone(idx);
    int64_t* p = key_idx.data<int64_t>();
    for (int64_t k = 0; k < nnz; ++k) std::swap(p[(sd - 2) * nnz + k], p[(sd - 1) * nnz + k]);
    std::swap(key_sizes[sd - 2], key_sizes[sd - 1]);
  }
  Tensor lin = linear_index(key_idx, key_sizes);
  Tensor perm = Tensor::empty({nnz}, DType::Int64), slot = Tensor::empty({nnz}, DType::Int64);
  kernels::coo_coalesce_plan(lin.data<int64_t>(), nnz, perm.data<int64_t>(), slot.data<int64_t>());
  Tensor out;
  {
    NoGradGuard no_grad;
    out = Tensor::sparse_coo(index_select(idx, 1, perm), index_select(src.sparse_values(), 0, perm),
                             src.sizes(), layout == SparseLayout::Coo);
  }
  out.impl()->sparse_->layout = layout;
  if (layout != SparseLayout::Coo)
    out.impl()->sparse_->int32_indices = src.impl()->sparse_->int32_indices;
  if (autograd::any_requires_grad(src))
    autograd::record("ToSparseBackward0", {&src}, {&out},
                     [](Grads& g, const Node&) -> Grads { return {dense_grad(g[0])}; });
  return out;
}

}  // namespace ember
