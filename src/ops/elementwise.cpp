// Elementwise ops: type promotion, broadcasting, then one kernel call.
#include <cstring>

#include "ember/ops.h"
#include "kernels/cpu/elementwise.h"
#include "ops/iter.h"

namespace ember {

using kernels::BinaryOp;
using kernels::CompareOp;
using kernels::UnaryOp;

// ---- type promotion ---------------------------------------------------------------------
// Note [Type promotion]: as in PyTorch, tensors with dims outrank 0-d tensors, which
// outrank Python scalars. A lower-priority operand changes the result dtype only when
// its category (bool < integer < float) is higher.
DType result_type(const Tensor& a, const Tensor& b) {
  bool a0 = a.dim() == 0, b0 = b.dim() == 0;
  if (a0 == b0) return promote_types(a.dtype(), b.dtype());
  const Tensor& dimmed = a0 ? b : a;
  const Tensor& zero = a0 ? a : b;
  return category(zero.dtype()) > category(dimmed.dtype()) ? zero.dtype() : dimmed.dtype();
}

DType result_type(const Tensor& a, Scalar b) {
  int cb = b.is_floating() ? 2 : b.is_bool() ? 0 : 1;
  if (cb <= category(a.dtype())) return a.dtype();
  return b.default_dtype();
}

namespace {

std::string_view kind_dtype_error(char kind) {
  return kind == 'B' ? "is only defined for integer and bool tensors" : "";
}

// The dtype a binary op computes in, from the promoted dtype and the op's kind.
DType compute_dtype(const char* name, char kind, DType promoted) {
  if (kind == 'D' && !is_floating(promoted)) return DType::Float32;
  EMBER_CHECK(!(kind == 'B' && is_floating(promoted)), TypeError, name, ": ",
              kind_dtype_error(kind), ", got ", dtype_name(promoted));
  return promoted;
}

void check_bool_arith(const char* name, BinaryOp op, DType dt) {
  EMBER_CHECK(!(dt == DType::Bool && (op == BinaryOp::Sub || op == BinaryOp::Div)), TypeError,
              name, ": subtraction/division of bool tensors is not supported; use "
              "logical_xor or convert to another dtype");
}

void check_int_divisor(const char* name, BinaryOp op, DType dt, const Tensor* b, const Scalar* bs) {
  if (is_floating(dt) || (op != BinaryOp::Remainder && op != BinaryOp::FloorDivide)) return;
  bool zero = false;
  if (bs) {
    zero = bs->to_double() == 0;
  } else {
    Tensor z = eq(*b, Scalar(int64_t(0)));  // contiguous bool
    const bool* p = z.data<bool>();
    for (int64_t i = 0; i < z.numel() && !zero; ++i) zero = p[i];
  }
  EMBER_CHECK(!zero, ValueError, name, ": integer division by zero");
}

// Copies `b` when it overlaps the storage `a` writes to, so an in-place op never reads
// an element it already overwrote.
Tensor unaliased(const Tensor& a, const Tensor& b) {
  if (a.storage() == b.storage() && !(a.offset() == b.offset() && a.strides() == b.strides() &&
                                      a.sizes() == b.sizes()))
    return clone(b);
  return b;
}

Tensor binary_out(BinaryOp op, char kind, const char* name, const Tensor& a, const Tensor& b,
                  double alpha) {
  ops::check_defined(a, name);
  ops::check_defined(b, name);
  DType dt = compute_dtype(name, kind, result_type(a, b));
  check_bool_arith(name, op, dt);
  Dims shape = broadcast_shapes(a.sizes(), b.sizes(), name);
  check_int_divisor(name, op, dt, &b, nullptr);
  Tensor A = to_dtype(a, dt), B = to_dtype(b, dt);
  Tensor out = Tensor::empty(shape, dt);
  kernels::binary(op, dt, ops::make_loop(shape, {&out, &A, &B}), alpha);
  return out;
}

// Tensor op scalar (or scalar op tensor when `reflected`): the scalar is a stride-0 operand.
Tensor binary_scalar(BinaryOp op, char kind, const char* name, const Tensor& a, Scalar s,
                     bool reflected) {
  ops::check_defined(a, name);
  DType dt = compute_dtype(name, kind, result_type(a, s));
  check_bool_arith(name, op, dt);
  if (!reflected) check_int_divisor(name, op, dt, nullptr, &s);
  else check_int_divisor(name, op, dt, &a, nullptr);
  Tensor A = to_dtype(a, dt);
  Tensor out = Tensor::empty(a.sizes(), dt);
  alignas(8) char buf[8];
  ops::store_scalar(dt, s, buf);
  kernels::Loop L = ops::make_loop_with_scalar(a.sizes(), {&out, &A}, buf, int64_t(itemsize(dt)));
  if (reflected) std::swap(L.ptrs[1], L.ptrs[2]), std::swap(L.strides[1], L.strides[2]);
  kernels::binary(op, dt, L, 1.0);
  return out;
}

void check_inplace_dtype(const char* name, DType result, DType self) {
  EMBER_CHECK(can_cast(result, self), TypeError, name, ": result type ", dtype_name(result),
              " can't be cast to the desired output type ", dtype_name(self));
}

Tensor& binary_inplace(BinaryOp op, char kind, const char* name, Tensor& a, const Tensor& b,
                       double alpha) {
  ops::check_defined(a, name);
  ops::check_defined(b, name);
  DType dt = compute_dtype(name, kind, result_type(a, b));
  check_inplace_dtype(name, dt, a.dtype());
  check_bool_arith(name, op, a.dtype());
  Dims shape = broadcast_shapes(a.sizes(), b.sizes(), name);
  EMBER_CHECK(shape == a.sizes(), ValueError, name, ": output with shape ", a.sizes(),
              " doesn't match the broadcast shape ", shape);
  check_int_divisor(name, op, a.dtype(), &b, nullptr);
  Tensor B = unaliased(a, to_dtype(b, a.dtype()));
  kernels::binary(op, a.dtype(), ops::make_loop(shape, {&a, &a, &B}), alpha);
  a.bump_version();
  return a;
}

Tensor& binary_inplace_scalar(BinaryOp op, char kind, const char* name, Tensor& a, Scalar s) {
  ops::check_defined(a, name);
  DType dt = compute_dtype(name, kind, result_type(a, s));
  check_inplace_dtype(name, dt, a.dtype());
  check_bool_arith(name, op, a.dtype());
  check_int_divisor(name, op, a.dtype(), nullptr, &s);
  alignas(8) char buf[8];
  ops::store_scalar(a.dtype(), s, buf);
  kernels::binary(op, a.dtype(),
                  ops::make_loop_with_scalar(a.sizes(), {&a, &a}, buf, int64_t(a.itemsize())), 1.0);
  a.bump_version();
  return a;
}

DType unary_dtype(const char* name, char kind, UnaryOp op, DType in) {
  EMBER_CHECK(!(in == DType::Bool && (op == UnaryOp::Neg)), TypeError, name,
              ": negation, the `-` operator, on a bool tensor is not supported; use "
              "logical_not() instead");
  return kind == 'F' && !is_floating(in) ? DType::Float32 : in;
}

Tensor unary_out(UnaryOp op, char kind, const char* name, const Tensor& a) {
  ops::check_defined(a, name);
  DType dt = unary_dtype(name, kind, op, a.dtype());
  Tensor A = to_dtype(a, dt);
  Tensor out = Tensor::empty(a.sizes(), dt);
  kernels::unary(op, dt, ops::make_loop(a.sizes(), {&out, &A}));
  return out;
}

Tensor& unary_inplace(UnaryOp op, char kind, const char* name, Tensor& a) {
  ops::check_defined(a, name);
  check_inplace_dtype(name, unary_dtype(name, kind, op, a.dtype()), a.dtype());
  kernels::unary(op, a.dtype(), ops::make_loop(a.sizes(), {&a, &a}));
  a.bump_version();
  return a;
}

Tensor compare_out(CompareOp op, const char* name, const Tensor& a, const Tensor& b) {
  ops::check_defined(a, name);
  ops::check_defined(b, name);
  DType dt = result_type(a, b);
  Dims shape = broadcast_shapes(a.sizes(), b.sizes(), name);
  Tensor A = to_dtype(a, dt), B = to_dtype(b, dt);
  Tensor out = Tensor::empty(shape, DType::Bool);
  kernels::compare(op, dt, ops::make_loop(shape, {&out, &A, &B}));
  return out;
}

Tensor compare_scalar(CompareOp op, const char* name, const Tensor& a, Scalar s) {
  ops::check_defined(a, name);
  DType dt = result_type(a, s);
  Tensor A = to_dtype(a, dt);
  Tensor out = Tensor::empty(a.sizes(), DType::Bool);
  alignas(8) char buf[8];
  ops::store_scalar(dt, s, buf);
  kernels::compare(op, dt,
                   ops::make_loop_with_scalar(a.sizes(), {&out, &A}, buf, int64_t(itemsize(dt))));
  return out;
}

}  // namespace

#define EMBER_UNARY(name, Enum, kind)                                                      \
  Tensor name(const Tensor& a) { return unary_out(UnaryOp::Enum, #kind[0], #name, a); }  \
  Tensor& name##_(Tensor& a) { return unary_inplace(UnaryOp::Enum, #kind[0], #name "_", a); }
#include "ember/ops.def"
#undef EMBER_UNARY

#define EMBER_BINARY(name, Enum, kind)                                                    \
  Tensor name(const Tensor& a, const Tensor& b) {                                          \
    return binary_out(BinaryOp::Enum, #kind[0], #name, a, b, 1.0);                         \
  }                                                                                        \
  Tensor name(const Tensor& a, Scalar b) {                                                 \
    return binary_scalar(BinaryOp::Enum, #kind[0], #name, a, b, false);                    \
  }                                                                                        \
  Tensor name(Scalar a, const Tensor& b) {                                                 \
    return binary_scalar(BinaryOp::Enum, #kind[0], #name, b, a, true);                     \
  }                                                                                        \
  Tensor& name##_(Tensor& a, const Tensor& b) {                                            \
    return binary_inplace(BinaryOp::Enum, #kind[0], #name "_", a, b, 1.0);                 \
  }                                                                                        \
  Tensor& name##_(Tensor& a, Scalar b) {                                                   \
    return binary_inplace_scalar(BinaryOp::Enum, #kind[0], #name "_", a, b);               \
  }
#include "ember/ops.def"
#undef EMBER_BINARY

#define EMBER_COMPARE(name, Enum)                                                              \
  Tensor name(const Tensor& a, const Tensor& b) { return compare_out(CompareOp::Enum, #name, a, b); } \
  Tensor name(const Tensor& a, Scalar b) { return compare_scalar(CompareOp::Enum, #name, a, b); }
#include "ember/ops.def"
#undef EMBER_COMPARE

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) {
  return binary_out(BinaryOp::Add, 'A', "add", a, b, alpha.to_double());
}
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) {
  return binary_out(BinaryOp::Sub, 'A', "sub", a, b, alpha.to_double());
}
Tensor& add_(Tensor& a, const Tensor& b, Scalar alpha) {
  return binary_inplace(BinaryOp::Add, 'A', "add_", a, b, alpha.to_double());
}
Tensor& sub_(Tensor& a, const Tensor& b, Scalar alpha) {
  return binary_inplace(BinaryOp::Sub, 'A', "sub_", a, b, alpha.to_double());
}

Tensor logical_not(const Tensor& a) {
  ops::check_defined(a, "logical_not");
  Tensor out = Tensor::empty(a.sizes(), DType::Bool);
  kernels::logical_not(a.dtype(), ops::make_loop(a.sizes(), {&out, &a}));
  return out;
}

Tensor bitwise_not(const Tensor& a) {
  ops::check_defined(a, "bitwise_not");
  EMBER_CHECK(!is_floating(a.dtype()), TypeError,
              "bitwise_not: only integer and bool tensors are supported, got ", dtype_name(a.dtype()));
  if (a.dtype() == DType::Bool) return logical_not(a);
  return bitwise_xor(a, Scalar(int64_t(-1)));
}

namespace {
DType clamp_dtype(const Tensor& a, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) {
  DType dt = a.dtype();
  if (lo) dt = promote_types(dt, result_type(a, *lo));
  if (hi) dt = promote_types(dt, result_type(a, *hi));
  return dt;
}
void check_clamp_args(const char* name, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) {
  EMBER_CHECK(lo || hi, ValueError, name, ": at least one of 'min' or 'max' must not be None");
}
}  // namespace

Tensor clamp(const Tensor& a, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  ops::check_defined(a, "clamp");
  check_clamp_args("clamp", lo, hi);
  DType dt = clamp_dtype(a, lo, hi);
  Tensor A = to_dtype(a, dt);
  Tensor out = Tensor::empty(a.sizes(), dt);
  kernels::clamp(dt, ops::make_loop(a.sizes(), {&out, &A}), lo ? &*lo : nullptr, hi ? &*hi : nullptr);
  return out;
}

Tensor& clamp_(Tensor& a, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  ops::check_defined(a, "clamp_");
  check_clamp_args("clamp_", lo, hi);
  check_inplace_dtype("clamp_", clamp_dtype(a, lo, hi), a.dtype());
  kernels::clamp(a.dtype(), ops::make_loop(a.sizes(), {&a, &a}), lo ? &*lo : nullptr,
                 hi ? &*hi : nullptr);
  a.bump_version();
  return a;
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  ops::check_defined(cond, "where");
  EMBER_CHECK(cond.dtype() == DType::Bool, TypeError,
              "where: expected condition to be a bool tensor, got ", dtype_name(cond.dtype()));
  DType dt = result_type(a, b);
  Dims shape = broadcast_shapes(broadcast_shapes(cond.sizes(), a.sizes(), "where"), b.sizes(), "where");
  Tensor A = to_dtype(a, dt), B = to_dtype(b, dt);
  Tensor out = Tensor::empty(shape, dt);
  kernels::where(dt, ops::make_loop(shape, {&out, &cond, &A, &B}));
  return out;
}

namespace {
void check_mask(const char* name, const Tensor& t, const Tensor& mask) {
  ops::check_defined(t, name);
  ops::check_defined(mask, name);
  EMBER_CHECK(mask.dtype() == DType::Bool, TypeError, name,
              ": expected a bool mask, got ", dtype_name(mask.dtype()));
  Dims shape = broadcast_shapes(t.sizes(), mask.sizes(), name);
  EMBER_CHECK(shape == t.sizes(), ValueError, name, ": mask of shape ", mask.sizes(),
              " does not broadcast to the tensor's shape ", t.sizes());
}
}  // namespace

Tensor masked_fill(const Tensor& t, const Tensor& mask, Scalar value) {
  check_mask("masked_fill", t, mask);
  Tensor out = Tensor::empty(t.sizes(), t.dtype());
  alignas(8) char buf[8];
  ops::store_scalar(t.dtype(), value, buf);
  kernels::Loop L = ops::make_loop_with_scalar(t.sizes(), {&out, &mask, &t}, buf, int64_t(t.itemsize()));
  // operands are (out, mask, t, value): swap so the value is taken where mask is true
  std::swap(L.ptrs[2], L.ptrs[3]);
  std::swap(L.strides[2], L.strides[3]);
  kernels::where(t.dtype(), L);
  return out;
}

Tensor& masked_fill_(Tensor& t, const Tensor& mask, Scalar value) {
  check_mask("masked_fill_", t, mask);
  Tensor m = unaliased(t, mask);
  alignas(8) char buf[8];
  ops::store_scalar(t.dtype(), value, buf);
  kernels::Loop L = ops::make_loop_with_scalar(t.sizes(), {&t, &m, &t}, buf, int64_t(t.itemsize()));
  std::swap(L.ptrs[2], L.ptrs[3]);
  std::swap(L.strides[2], L.strides[3]);
  kernels::where(t.dtype(), L);
  t.bump_version();
  return t;
}

}  // namespace ember
