// Matrix products: shape and dtype checks, a BLAS view of each operand (no copy unless
// its strides leave no choice), then one kernel call. float32/float64 go to OpenBLAS,
// the integer dtypes to a plain loop; bool has no matrix product (as in PyTorch).
#include <climits>
#include <vector>

#include "autograd/function.h"
#include "ember/complex.h"
#include "ember/interpreter_lock.h"
#include "ember/autocast.h"
#include "ember/ops.h"
#include "ember/sparse.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/blas.h"
#include "kernels/cpu/elementwise.h"
#include "ops/iter.h"
#include "ops/linalg.h"

namespace ember {
namespace {

using kernels::MatRef;

// ---- checks ------------------------------------------------------------------------------

void check_operands(const char* op, const Tensor& a, const Tensor& b) {
  ops::check_defined(a, op);
  ops::check_defined(b, op);
  EMBER_CHECK(a.dtype() == b.dtype(), TypeError, op,
              ": expected both operands to have the same dtype, but got ", dtype_name(a.dtype()),
              " and ", dtype_name(b.dtype()), " (shapes ", a.sizes(), " and ", b.sizes(), ")");
  EMBER_CHECK(a.dtype() != DType::Bool, TypeError, op,
              ": not implemented for bool tensors (shapes ", a.sizes(), " and ", b.sizes(), ")");
}

// The contracted sizes must agree:
//   "matmul: shapes (3, 4) and (5, 6) cannot be multiplied (4 != 5)".
void check_inner(const char* op, const Tensor& a, const Tensor& b, int64_t ka, int64_t kb) {
  EMBER_CHECK(ka == kb, ValueError, op, ": shapes ", a.sizes(), " and ", b.sizes(),
              " cannot be multiplied (", ka, " != ", kb, ")");
}

void check_dim(const char* op, const Tensor& a, const Tensor& b, int64_t da, int64_t db) {
  EMBER_CHECK(a.dim() == da && b.dim() == db, ValueError, op, ": expected ", da, "-d and ", db,
              "-d tensors, but got shapes ", a.sizes(), " (", a.dim(), "-d) and ", b.sizes(), " (",
              b.dim(), "-d)");
}

// ---- BLAS views of operands --------------------------------------------------------------

// The BLAS view of a (rows, cols) matrix with strides (rs, cs): row-major when its rows
// are contiguous, transposed when its columns are. A size-1 dim's stride does not matter.
bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, MatRef& out) {
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= std::max<int64_t>(cols, 1))) {
    out.trans = false;
    out.ld = rows == 1 ? std::max<int64_t>(cols, 1) : rs;
  } else if ((rows == 1 || rs == 1) && (cols == 1 || cs >= std::max<int64_t>(rows, 1))) {
    out.trans = true;
    out.ld = cols == 1 ? std::max<int64_t>(rows, 1) : cs;
  } else {
    return false;
  }
  return out.ld <= INT_MAX;
}

// The BLAS view of t's last two dims; t is replaced by a contiguous copy when its strides
// have none (expanded, or strided in both directions). Batch dims keep their strides.
MatRef matrix_ref(const char* op, Tensor& t) {
  const int64_t nd = t.dim(), rows = t.size(-2), cols = t.size(-1);
  EMBER_CHECK(!(is_floating_point(t.dtype()) || is_complex(t.dtype())) ||
                  (rows <= INT_MAX && cols <= INT_MAX),
              ValueError, op, ": a matrix of shape ", t.sizes(), " is too large for BLAS");
  MatRef r;
  if (!blas_layout(rows, cols, t.strides()[nd - 2], t.strides()[nd - 1], r)) {
    t = clone(t);
    blas_layout(rows, cols, t.strides()[nd - 2], t.strides()[nd - 1], r);
  }
  r.ptr = t.data_ptr();
  return r;
}

// The element stride of a 1-d operand for BLAS (positive, fits an int); t is replaced by
// a contiguous copy when it is expanded (stride 0).
int64_t vector_inc(Tensor& t) {
  if (t.numel() <= 1) return 1;
  int64_t s = t.strides()[0];
  if (s >= 1 && s <= INT_MAX) return s;
  t = clone(t);
  return 1;
}

MatRef transposed(MatRef r) {
  r.trans = !r.trans;
  return r;
}

// ---- the products --------------------------------------------------------------------------

// out (m, n), contiguous = alpha * a @ b + beta * out, for 2-d a and b already checked.
void mm_into(const char* op, Tensor& out, Tensor a, Tensor b, Scalar alpha, Scalar beta) {
  MatRef ra = matrix_ref(op, a), rb = matrix_ref(op, b);
  const int64_t n = b.size(1);
  WithoutInterpreterLock unlocked(a.size(0) * n * a.size(1));
  kernels::gemm(out.dtype(), a.size(0), n, a.size(1), alpha, ra, rb, beta, out.data_ptr(),
                std::max<int64_t>(n, 1));
}

Tensor mm_impl(const char* op, const Tensor& a, const Tensor& b) {
  check_inner(op, a, b, a.size(1), b.size(0));
  Tensor out = Tensor::empty({a.size(0), b.size(1)}, a.dtype());
  mm_into(op, out, a, b, 1, 0);
  return out;
}

// a (m, k) @ v (k,) -> (m,).
Tensor mv_impl(const char* op, const Tensor& a, const Tensor& v) {
  check_inner(op, a, v, a.size(1), v.size(0));
  Tensor A = a, V = v;
  MatRef ra = matrix_ref(op, A);
  int64_t inc = vector_inc(V);
  Tensor out = Tensor::empty({a.size(0)}, a.dtype());
  kernels::gemv(a.dtype(), a.size(0), a.size(1), 1, ra, V.data_ptr(), inc, 0, out.data_ptr(), 1);
  return out;
}

// v (k,) @ b (k, n) -> (n,): the product b^T v, and b^T is b's BLAS view transposed.
Tensor vm_impl(const char* op, const Tensor& v, const Tensor& b) {
  check_inner(op, v, b, v.size(0), b.size(0));
  Tensor V = v, B = b;
  MatRef rb = matrix_ref(op, B);
  int64_t inc = vector_inc(V);
  Tensor out = Tensor::empty({b.size(1)}, b.dtype());
  kernels::gemv(b.dtype(), b.size(1), b.size(0), 1, transposed(rb), V.data_ptr(), inc, 0,
                out.data_ptr(), 1);
  return out;
}

Tensor dot_impl(const char* op, const Tensor& a, const Tensor& b) {
  check_inner(op, a, b, a.size(0), b.size(0));
  Tensor A = a, B = b;
  int64_t ia = vector_inc(A), ib = vector_inc(B);
  Tensor out = Tensor::empty({}, a.dtype());
  kernels::dot(a.dtype(), a.size(0), A.data_ptr(), ia, B.data_ptr(), ib, out.data_ptr());
  return out;
}

// Byte offsets of every matrix of a batch: element i of the batch (row-major over `batch`)
// starts at offsets[i] bytes from the tensor's data.
std::vector<int64_t> batch_offsets(IntList batch, IntList strides, int64_t itemsize) {
  const int64_t nb = numel_of(batch), nd = int64_t(batch.size());
  std::vector<int64_t> out(static_cast<size_t>(nb));
  Dims idx(batch.size(), 0);
  int64_t off = 0;
  for (int64_t i = 0; i < nb; ++i) {
    out[size_t(i)] = off * itemsize;
    for (int64_t d = nd - 1; d >= 0; --d) {  // odometer step
      off += strides[d];
      if (++idx[d] < batch[d]) break;
      off -= strides[d] * batch[d];
      idx[d] = 0;
    }
  }
  return out;
}

// The broadcast of the batch dims, with an error naming the full shapes.
Dims batch_shape(const char* op, const Tensor& a, const Tensor& b, IntList ba, IntList bb) {
  const size_t n = std::max(ba.size(), bb.size());
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - ba.size() ? 1 : ba[i - (n - ba.size())];
    int64_t y = i < n - bb.size() ? 1 : bb[i - (n - bb.size())];
    EMBER_CHECK(x == y || x == 1 || y == 1, ValueError, op, ": batch dimensions of shapes ",
                a.sizes(), " and ", b.sizes(), " cannot be broadcast (", x, " != ", y, ")");
  }
  return broadcast_shapes(ba, bb, op);
}

// The N-d product: one gemm per matrix of the broadcast batch. A 1-d a is a (1, k) row and a
// 1-d b a (k, 1) column, and those dims are dropped from the result (torch.matmul's rule).
Tensor matmul_batched(const char* op, const Tensor& a, const Tensor& b) {
  Tensor A = a.dim() == 1 ? unsqueeze(a, 0) : a;
  Tensor B = b.dim() == 1 ? unsqueeze(b, 1) : b;
  const int64_t m = A.size(-2), k = A.size(-1), n = B.size(-1);
  check_inner(op, a, b, k, B.size(-2));
  Dims batch = batch_shape(op, a, b, IntList(A.sizes().data(), size_t(A.dim() - 2)),
                           IntList(B.sizes().data(), size_t(B.dim() - 2)));
  MatRef ra = matrix_ref(op, A), rb = matrix_ref(op, B);  // may copy, so strides after this
  IntList batch_a(A.sizes().data(), size_t(A.dim() - 2));
  IntList batch_b(B.sizes().data(), size_t(B.dim() - 2));
  Dims sa = broadcast_strides(batch_a, IntList(A.strides().data(), batch_a.size()), batch);
  Dims sb = broadcast_strides(batch_b, IntList(B.strides().data(), batch_b.size()), batch);
  const int64_t isz = int64_t(A.itemsize());
  std::vector<int64_t> off_a = batch_offsets(batch, sa, isz), off_b = batch_offsets(batch, sb, isz);

  Dims shape = batch;
  shape.push_back(m);
  shape.push_back(n);
  Tensor out = Tensor::empty(shape, a.dtype());
  {
    WithoutInterpreterLock unlocked(numel_of(batch) * m * n * k);
    kernels::gemm_batched(a.dtype(), numel_of(batch), m, n, k, 1, ra, off_a.data(), rb,
                          off_b.data(), 0, out.data_ptr(), std::max<int64_t>(n, 1), m * n);
  }
  if (b.dim() == 1) shape.erase(shape.size() - 1);
  if (a.dim() == 1) shape.erase(shape.size() - (b.dim() == 1 ? 1 : 2));
  return int64_t(shape.size()) == out.dim() ? out : view(out, shape);
}

// (batch..., m, k) @ (k, n) or (k,) as one (batch * m, k) product when a's batch dims fold
// into its rows without a copy: one big gemm instead of many small ones.
bool matmul_folded(const Tensor& a, const Tensor& b, Tensor& out) {
  const int64_t k = a.size(-1), rows = a.numel() / std::max<int64_t>(k, 1);
  if (k == 0) return false;
  Dims st;
  if (!view_strides(a.sizes(), a.strides(), {rows, k}, st)) return false;
  Tensor a2 = a.as_strided({rows, k}, st, a.offset());
  Tensor r = b.dim() == 2 ? mm_impl("matmul", a2, b) : mv_impl("matmul", a2, b);
  Dims shape(IntList(a.sizes().data(), a.sizes().size() - 1));
  if (b.dim() == 2) shape.push_back(b.size(1));
  out = view(r, shape);
  return true;
}

// ---- gradients ------------------------------------------------------------------------
// One formula serves matmul, mm, bmm, mv and dot: promote 1-d operands to matrices as the
// forward does, then dA = G @ B^T and dB = A^T @ G, summed over broadcast batch dims.
Tensor matmul_grad_a(const Tensor& g, const Tensor& a, const Tensor& b) {
  if (a.dim() == 1 && b.dim() == 1) return mul(g, b);
  if (a.dim() == 2 && b.dim() == 1) return outer(g, b);  // mv: dA = g b^T
  Tensor B = b.dim() == 1 ? unsqueeze(b, 1) : b;
  Tensor G = a.dim() == 1 ? unsqueeze(g, -2) : g;
  if (b.dim() == 1) G = unsqueeze(G, -1);
  Tensor ga = matmul(G, transpose(B, -1, -2));
  Dims shape = a.dim() == 1 ? Dims{1, a.size(0)} : Dims(a.sizes());
  return reshape(autograd::sum_to(ga, shape), a.sizes());
}

Tensor matmul_grad_b(const Tensor& g, const Tensor& a, const Tensor& b) {
  if (a.dim() == 1 && b.dim() == 1) return mul(g, a);
  // mv: dx = A^T g is a gemv too (as a gemm with one column, OpenBLAS runs 3x slower).
  if (a.dim() == 2 && b.dim() == 1) return matmul(transpose(a, 0, 1), g);
  Tensor A = a.dim() == 1 ? unsqueeze(a, 0) : a;
  Tensor G = a.dim() == 1 ? unsqueeze(g, -2) : g;
  if (b.dim() == 1) G = unsqueeze(G, -1);
  Tensor gb = matmul(transpose(A, -1, -2), G);
  Dims shape = b.dim() == 1 ? Dims{b.size(0), 1} : Dims(b.sizes());
  return reshape(autograd::sum_to(gb, shape), b.sizes());
}

bool overlaps(const Tensor& a, const Tensor& b) {
  const auto* pa = static_cast<const char*>(a.storage()->data());
  const auto* pb = static_cast<const char*>(b.storage()->data());
  return pa < pb + b.storage()->nbytes() && pb < pa + a.storage()->nbytes();
}

Tensor record_matmul(const char* name, const Tensor& a, const Tensor& b, Tensor out) {
  if (autograd::any_requires_grad(a, b)) {
    using autograd::SavedTensor;
    autograd::record(name, {&a, &b}, {&out},
                     [sa = SavedTensor(a), sb = SavedTensor(b)](Grads& g, const Node& n) -> Grads {
                       // Complex: dA = G B^H, dB = A^H G (conj of a real tensor is itself).
                       Tensor A = conj(sa.get()), B = conj(sb.get());
                       if (A.dim() == 2 && B.dim() == 2 && !GradMode::is_enabled()) {
                         return {n.needs_input_grad(0) ? ops::mm_grad(n, 0, g[0], t(B)) : Tensor(),
                                 n.needs_input_grad(1) ? ops::mm_grad(n, 1, t(A), g[0]) : Tensor()};
                       }
                       return {n.needs_input_grad(0) ? matmul_grad_a(g[0], A, B) : Tensor(),
                               n.needs_input_grad(1) ? matmul_grad_b(g[0], A, B) : Tensor()};
                     });
  }
  return out;
}

}  // namespace

namespace {
Tensor matmul_forward(const Tensor& a, const Tensor& b) {
  const char* op = "matmul";
  check_operands(op, a, b);
  const int64_t da = a.dim(), db = b.dim();
  EMBER_CHECK(da >= 1 && db >= 1, ValueError, op,
              ": both arguments need to be at least 1-d, but got shapes ", a.sizes(), " and ",
              b.sizes());
  if (da == 1 && db == 1) return dot_impl(op, a, b);
  if (da == 2 && db == 1) return mv_impl(op, a, b);
  if (da == 1 && db == 2) return vm_impl(op, a, b);
  if (da == 2 && db == 2) return mm_impl(op, a, b);
  if (db <= 2) {
    check_inner(op, a, b, a.size(-1), b.size(0));
    Tensor out;
    if (matmul_folded(a, b, out)) return out;
  }
  return matmul_batched(op, a, b);
}
}  // namespace

bool ops::blas_view(const Tensor& t, kernels::MatRef* r) {
  if (t.dim() != 2 || !blas_layout(t.size(0), t.size(1), t.strides()[0], t.strides()[1], *r))
    return false;
  r->ptr = t.data_ptr();
  return true;
}

namespace {
// mm and addmm as the kernel replay runs them (src/capture/kernel_replay.cpp): one gemm.
capture::Fusable fuse_matmul(double alpha, Scalar beta) {
  capture::Fusable f;
  f.kind = capture::Fusable::Kind::Matmul;
  f.alpha = alpha;
  f.scalar = beta;
  return f;
}
}  // namespace

Tensor ops::mm_grad(const Node& n, size_t i, const Tensor& a, const Tensor& b) {
  Tensor dest = autograd::grad_destination(n, i);
  if (dest.defined() && dest.dim() == 2 && dest.size(0) == a.size(0) && dest.size(1) == b.size(1) &&
      dest.dtype() == a.dtype() && a.dtype() == b.dtype() && is_floating(a.dtype()) &&
      !overlaps(dest, a) && !overlaps(dest, b)) {
    mm_into("mm", dest, a, b, 1, 1);
    dest.bump_version();
    return dest;
  }
  return mm(a, b);
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (any_sparse(a, b)) {  // a vector operand is a one-column (one-row) matrix, as torch
    if (a.is_sparse() && b.dim() == 1) return squeeze(sparse_mm(a, unsqueeze(b, 1)), {1});
    if (b.is_sparse() && a.dim() == 1) return squeeze(sparse_mm(unsqueeze(a, 0), b), {0});
    return sparse_mm(a, b);
  }
  EMBER_RECORD(matmul, a, b);
  EMBER_PROFILE_OP("matmul");
  if (autocast::is_enabled()) {  // Note [Autocast]: a lower-precision op
    autocast::Suspend off;
    return matmul(autocast::lower(a), autocast::lower(b));
  }
  Tensor out;
  {
    NoGradGuard no_grad;  // the forward's internal views are not part of the graph
    out = matmul_forward(a, b);
  }
  const char* name = a.dim() == 2 && b.dim() == 2 ? "MmBackward0"
                     : b.dim() == 1 && a.dim() <= 2
                         ? (a.dim() == 1 ? "DotBackward0" : "MvBackward0")
                         : "MatmulBackward0";
  return record_matmul(name, a, b, out);
}

Tensor mm(const Tensor& a, const Tensor& b) {
  if (any_sparse(a, b)) return sparse_mm(a, b);
  EMBER_RECORD_FUSABLE(mm, fuse_matmul(1.0, Scalar(int64_t(0))), a, b);
  EMBER_PROFILE_OP("mm");
  if (autocast::is_enabled()) {
    autocast::Suspend off;
    return mm(autocast::lower(a), autocast::lower(b));
  }
  check_operands("mm", a, b);
  check_dim("mm", a, b, 2, 2);
  return record_matmul("MmBackward0", a, b, mm_impl("mm", a, b));
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  EMBER_RECORD(bmm, a, b);
  EMBER_PROFILE_OP("bmm");
  if (autocast::is_enabled()) {
    autocast::Suspend off;
    return bmm(autocast::lower(a), autocast::lower(b));
  }
  check_operands("bmm", a, b);
  check_dim("bmm", a, b, 3, 3);
  EMBER_CHECK(a.size(0) == b.size(0), ValueError, "bmm: batch sizes of shapes ", a.sizes(), " and ",
              b.sizes(), " differ (", a.size(0), " != ", b.size(0), ")");
  return record_matmul("BmmBackward0", a, b, matmul_batched("bmm", a, b));
}

Tensor mv(const Tensor& a, const Tensor& v) {
  EMBER_RECORD(mv, a, v);
  EMBER_PROFILE_OP("mv");
  check_operands("mv", a, v);
  check_dim("mv", a, v, 2, 1);
  return record_matmul("MvBackward0", a, v, mv_impl("mv", a, v));
}

Tensor dot(const Tensor& a, const Tensor& b) {
  EMBER_RECORD(dot, a, b);
  EMBER_PROFILE_OP("dot");
  check_operands("dot", a, b);
  check_dim("dot", a, b, 1, 1);
  return record_matmul("DotBackward0", a, b, dot_impl("dot", a, b));
}

// As in PyTorch, outer is a broadcast multiply: it promotes dtypes and accepts bool.
Tensor outer(const Tensor& a, const Tensor& b) {
  EMBER_RECORD(outer, a, b);
  EMBER_PROFILE_OP("outer");
  ops::check_defined(a, "outer");
  ops::check_defined(b, "outer");
  check_dim("outer", a, b, 1, 1);
  return mul(unsqueeze(a, 1), b);
}

// Note [addmm in one gemm]: `self` is broadcast into the output first, and BLAS's beta then
// scales it in the same pass that adds alpha * a @ b, so a Linear layer's bias costs no
// extra sweep over the output. beta == 0 never reads self (NaN there is ignored).
Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, Scalar beta, Scalar alpha) {
  if (any_sparse(a, b)) {  // beta * self + alpha * (a @ b); self is ignored when beta is 0
    ops::check_defined(self, "addmm");
    Tensor prod = sparse_mm(a, b);
    if (beta.to_double() == 0) return alpha.to_double() == 1 ? prod : mul(prod, alpha);
    return add(beta.to_double() == 1 ? self : mul(self, beta), prod, alpha);
  }
  EMBER_RECORD_FUSABLE(addmm, fuse_matmul(alpha.to_double(), beta), self, a, b, beta, alpha);
  EMBER_PROFILE_OP("addmm");
  if (autocast::is_enabled()) {
    autocast::Suspend off;
    return addmm(autocast::lower(self), autocast::lower(a), autocast::lower(b), beta, alpha);
  }
  const char* op = "addmm";
  ops::check_defined(self, op);
  check_operands(op, a, b);
  EMBER_CHECK(self.dtype() == a.dtype(), TypeError, op,
              ": expected self and the matrices to have the same dtype, but got ",
              dtype_name(self.dtype()), " and ", dtype_name(a.dtype()));
  check_dim(op, a, b, 2, 2);
  check_inner(op, a, b, a.size(1), b.size(0));
  const Dims shape{a.size(0), b.size(1)};
  Dims bshape = broadcast_shapes(self.sizes(), shape, op);
  EMBER_CHECK(bshape == shape, ValueError, op, ": self of shape ", self.sizes(),
              " cannot be broadcast to the output shape ", shape);
  Tensor out = Tensor::empty(shape, a.dtype());
  const bool beta_zero = is_floating_point(a.dtype()) ? beta.to_double() == 0 : beta.to_int() == 0;
  if (!beta_zero) kernels::cast(out.dtype(), self.dtype(), ops::make_loop(shape, {&out, &self}));
  mm_into(op, out, a, b, alpha, beta_zero ? Scalar(int64_t(0)) : beta);
  if (autograd::any_requires_grad(self, a, b)) {
    using autograd::SavedTensor;
    autograd::record("AddmmBackward0", {&self, &a, &b}, {&out},
                     [sa = SavedTensor(a), sb = SavedTensor(b), shape = Dims(self.sizes()),
                      beta_d = beta.to_double(),
                      alpha_d = alpha.to_double()](Grads& g, const Node& n) -> Grads {
                       Tensor A = sa.get(), B = sb.get(), G = g[0];
                       Tensor gs, ga, gb;
                       if (n.needs_input_grad(0))
                         gs = autograd::sum_to(beta_d == 1.0 ? G : mul(G, Scalar(beta_d)), shape);
                       Tensor Ga = alpha_d == 1.0 ? G : mul(G, Scalar(alpha_d));
                       if (n.needs_input_grad(1)) ga = mm(Ga, t(B));
                       if (n.needs_input_grad(2)) gb = mm(t(A), Ga);
                       return {gs, ga, gb};
                     });
  }
  return out;
}

}  // namespace ember
