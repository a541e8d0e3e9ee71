// Elementwise ops: type promotion, broadcasting, then one kernel call.
#include <cmath>
#include <cstring>
#include <optional>

#include "autograd/function.h"
#include "ember/complex.h"
#include "ember/ops.h"
#include "ember/sparse.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/index.h"
#include "kernels/cpu/nn.h"
#include "ops/iter.h"

namespace ember {

using autograd::SavedTensor;
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
  if (category(zero.dtype()) <= category(dimmed.dtype())) return dimmed.dtype();
  // A complex 0-d operand keeps a floating operand's precision (float64_t + 1j-tensor is
  // complex128, float32_t + complex128 0-d tensor is complex64), as torch's combine_categories.
  if (is_complex(zero.dtype()) && is_floating_point(dimmed.dtype()))
    return to_complex(dimmed.dtype());
  return zero.dtype();
}

DType result_type(const Tensor& a, Scalar b) {
  if (b.category() <= category(a.dtype())) return a.dtype();
  if (b.is_complex() && is_floating_point(a.dtype())) return to_complex(a.dtype());
  return b.default_dtype();
}

namespace {

std::string_view kind_dtype_error(char kind) {
  return kind == 'B' ? "is only defined for integer and bool tensors" : "";
}

// The dtype a binary op computes in, from the promoted dtype and the op's kind.
DType compute_dtype(const char* name, char kind, DType promoted) {
  if (kind == 'D' && !is_floating_point(promoted) && !is_complex(promoted)) return default_dtype();
  EMBER_CHECK(!(kind == 'B' && is_floating_point(promoted)), TypeError, name, ": ",
              kind_dtype_error(kind), ", got ", dtype_name(promoted));
  return promoted;
}

// As in PyTorch: `-` refuses a bool operand of either side (even `float_t - True`),
// and pow/floor_divide/remainder have no bool version (except bool_t ** scalar_exponent).
void check_bool_arith(const char* name, BinaryOp op, DType dt, DType a, DType b,
                      bool scalar_exponent = false) {
  EMBER_CHECK(!(op == BinaryOp::Sub && (a == DType::Bool || b == DType::Bool)), TypeError, name,
              ": subtraction, the `-` operator, with a bool tensor is not supported. If you are "
              "trying to invert a mask, use the `~` or `logical_not()` operator instead");
  EMBER_CHECK(!(dt == DType::Bool &&
                ((op == BinaryOp::Pow && !scalar_exponent) || op == BinaryOp::FloorDivide ||
                 op == BinaryOp::Remainder || op == BinaryOp::Gcd || op == BinaryOp::Lcm)),
              TypeError, name, ": not implemented for bool tensors");
}

DType scalar_dtype(Scalar s) { return s.is_bool() ? DType::Bool : s.default_dtype(); }

// torch.gcd and torch.lcm take tensors only (their number forms raise TypeError).
void check_tensor_operand(const char* name, BinaryOp op) {
  EMBER_CHECK(op != BinaryOp::Gcd && op != BinaryOp::Lcm, TypeError, name,
              "(): argument 'other' must be Tensor, not a number");
}

// torch.add(a, b, alpha=...): a float alpha needs a floating result, a bool alpha a bool one.
void check_alpha(const char* name, DType dt, Scalar alpha) {
  EMBER_CHECK(!(alpha.is_floating() && !is_floating_point(dt) && !is_complex(dt)), TypeError, name,
              ": for integral input tensors, argument alpha must not be a floating point number");
  EMBER_CHECK(!(alpha.is_bool() && dt != DType::Bool), TypeError, name,
              ": boolean alpha only supported for boolean results");
}

// int_tensor ** -1 has no integer answer; PyTorch refuses a negative scalar exponent.
void check_int_pow(const char* name, BinaryOp op, DType dt, Scalar exponent) {
  EMBER_CHECK(!(op == BinaryOp::Pow && !is_floating_point(dt) && !is_complex(dt) &&
                !exponent.is_floating() && exponent.to_int() < 0),
              Error, name, ": integers to negative integer powers are not allowed");
}

// PyTorch raises RuntimeError (ZeroDivisionError) for integer x // 0 and x % 0.
void check_int_divisor(const char* name, BinaryOp op, DType dt, const Tensor* b, const Scalar* bs) {
  if (is_floating_point(dt) || (op != BinaryOp::Remainder && op != BinaryOp::FloorDivide)) return;
  bool zero = false;
  if (bs) {
    zero = bs->to_double() == 0;
  } else {
    Tensor z = eq(*b, Scalar(int64_t(0)));  // contiguous bool
    const bool* p = z.data<bool>();
    for (int64_t i = 0; i < z.numel() && !zero; ++i) zero = p[i];
  }
  EMBER_CHECK(!zero, Error, name, ": integer division by zero (ZeroDivisionError)");
}

// Note [Half scalars]: torch's half kernels read a Python number (or a 0-d CPU tensor) as
// float32, unrounded, in x * s, s * x and x / s (its opmath scalar); in + and - (and s / x)
// the number is first rounded to the half type like any operand. The same here.
bool opmath_scalar(BinaryOp op, bool reflected) {
  return op == BinaryOp::Mul || (op == BinaryOp::Div && !reflected);
}

Tensor binary_out(BinaryOp op, char kind, const char* name, const Tensor& a, const Tensor& b,
                  double alpha) {
  ops::check_defined(a, name);
  ops::check_defined(b, name);
  DType dt = compute_dtype(name, kind, result_type(a, b));
  check_bool_arith(name, op, dt, a.dtype(), b.dtype());
  Dims shape = broadcast_shapes(a.sizes(), b.sizes(), name);
  check_int_divisor(name, op, dt, &b, nullptr);
  // A 0-d float operand of a half mul/div stays float32, as torch's opmath scalar.
  auto operand_dtype = [&](const Tensor& t, const Tensor& other, bool reflected) {
    return is_half(dt) && opmath_scalar(op, reflected) && t.dim() == 0 && other.dim() > 0 &&
                   is_floating(t.dtype())
               ? DType::Float32
               : dt;
  };
  const DType da = operand_dtype(a, b, true), db = operand_dtype(b, a, false);
  Tensor A = to_dtype(a, da), B = to_dtype(b, db);
  Tensor out = ops::empty_like_inputs(shape, dt, {&A, &B});
  if (da != dt || db != dt)
    kernels::binary_half(op, {dt, da, db}, ops::make_loop(shape, {&out, &A, &B}), alpha);
  else kernels::binary(op, dt, ops::make_loop(shape, {&out, &A, &B}), alpha);
  return out;
}

// Tensor op scalar (or scalar op tensor when `reflected`): the scalar is a stride-0 operand.
// x ** 2, x ** 0.5, x ** -0.5 and x ** -1 with a Python-number exponent (losses, norms) take
// one cheap unary kernel instead of std::pow per element, as PyTorch special-cases them (the
// same bits as torch's: square, sqrt, 1/sqrt, 1/x).
std::optional<UnaryOp> pow_as_unary(BinaryOp op, DType dt, Scalar s) {
  if (op != BinaryOp::Pow || !is_floating_point(dt) || s.is_complex()) return std::nullopt;
  const double e = s.to_double();
  if (e == 2.0) return UnaryOp::Square;
  if (e == 0.5) return UnaryOp::Sqrt;
  if (e == -0.5) return UnaryOp::Rsqrt;
  if (e == -1.0) return UnaryOp::Reciprocal;
  return std::nullopt;
}

// x ** 3 and x ** -2 (float32/float64, Python-number exponent) as torch computes them:
// (x * x) * x and 1 / (x * x), two SIMD passes, bit for bit torch's results (std::pow's
// differ in the last bit for ~26% of float32 inputs) and ~10x faster than pow per element
// (minGPT's GELU takes x ** 3 of every activation).
bool pow_by_products(BinaryOp op, DType dt, Scalar s) {
  if (op != BinaryOp::Pow || (dt != DType::Float32 && dt != DType::Float64) || s.is_complex())
    return false;
  const double e = s.to_double();
  return e == 3.0 || e == -2.0;
}
// `out` must not overlap `A`.
void pow_products(DType dt, Scalar s, Tensor& out, const Tensor& A) {
  kernels::unary(UnaryOp::Square, dt, ops::make_loop(A.sizes(), {&out, &A}));
  if (s.to_double() == 3.0)
    kernels::binary(BinaryOp::Mul, dt, ops::make_loop(A.sizes(), {&out, &out, &A}), 1.0);
  else kernels::unary(UnaryOp::Reciprocal, dt, ops::make_loop(A.sizes(), {&out, &out}));
}

Tensor binary_scalar(BinaryOp op, char kind, const char* name, const Tensor& a, Scalar s,
                     bool reflected) {
  ops::check_defined(a, name);
  check_tensor_operand(name, op);
  DType dt = compute_dtype(name, kind, result_type(a, s));
  check_bool_arith(name, op, dt, a.dtype(), scalar_dtype(s), !reflected);
  if (!reflected) check_int_divisor(name, op, dt, nullptr, &s);
  else check_int_divisor(name, op, dt, &a, nullptr);
  if (!reflected) check_int_pow(name, op, dt, s);
  Tensor A = to_dtype(a, dt);
  Tensor out = ops::empty_like_inputs(a.sizes(), dt, {&A});
  if (std::optional<UnaryOp> u = pow_as_unary(op, dt, s); u && !reflected) {
    kernels::unary(*u, dt, ops::make_loop(a.sizes(), {&out, &A}));
    return out;
  }
  if (!reflected && pow_by_products(op, dt, s)) {
    pow_products(dt, s, out, A);
    return out;
  }
  alignas(16) char buf[16];  // complex128 is 16 bytes
  // Note [Half scalars]
  const DType sdt = is_half(dt) && opmath_scalar(op, reflected) ? DType::Float32 : dt;
  ops::store_scalar(sdt, s, buf);
  kernels::Loop L = ops::make_loop_with_scalar(a.sizes(), {&out, &A}, buf, int64_t(itemsize(sdt)));
  if (reflected) std::swap(L.ptrs[1], L.ptrs[2]), std::swap(L.strides[1], L.strides[2]);
  if (sdt != dt) kernels::binary_half(op, {dt, reflected ? sdt : dt, reflected ? dt : sdt}, L);
  else kernels::binary(op, dt, L, 1.0);
  return out;
}

Tensor& binary_inplace(BinaryOp op, char kind, const char* name, Tensor& a, const Tensor& b,
                       double alpha) {
  ops::check_defined(a, name);
  ops::check_defined(b, name);
  DType dt = compute_dtype(name, kind, result_type(a, b));
  ops::check_result_cast(name, dt, a.dtype());
  check_bool_arith(name, op, dt, a.dtype(), b.dtype());
  Dims shape = broadcast_shapes(a.sizes(), b.sizes(), name);
  EMBER_CHECK(shape == a.sizes(), Error, name, ": output with shape ", a.sizes(),
              " doesn't match the broadcast shape ", shape);
  ops::check_no_internal_overlap(a, name);
  check_int_divisor(name, op, dt, &b, nullptr);
  if (dt != a.dtype()) {
    // Compute in the promoted dtype, then write back (uint8 //= int64 divides as int64).
    Tensor r = binary_out(op, kind, name, a, b, alpha);
    kernels::cast(a.dtype(), dt, ops::make_loop(shape, {&a, &r}));
    a.bump_version();
    return a;
  }
  Tensor B = ops::unaliased(a, to_dtype(b, a.dtype()));
  kernels::binary(op, a.dtype(), ops::make_loop(shape, {&a, &a, &B}), alpha);
  a.bump_version();
  return a;
}

Tensor& binary_inplace_scalar(BinaryOp op, char kind, const char* name, Tensor& a, Scalar s) {
  ops::check_defined(a, name);
  check_tensor_operand(name, op);
  DType dt = compute_dtype(name, kind, result_type(a, s));
  ops::check_result_cast(name, dt, a.dtype());
  check_bool_arith(name, op, dt, a.dtype(), scalar_dtype(s), true);
  ops::check_no_internal_overlap(a, name);
  check_int_divisor(name, op, a.dtype(), nullptr, &s);
  check_int_pow(name, op, a.dtype(), s);
  if (std::optional<UnaryOp> u = pow_as_unary(op, a.dtype(), s)) {
    kernels::unary(*u, a.dtype(), ops::make_loop(a.sizes(), {&a, &a}));
    a.bump_version();
    return a;
  }
  if (pow_by_products(op, a.dtype(), s)) {  // into a buffer: the product reads a twice
    Tensor r = ops::empty_like_inputs(a.sizes(), a.dtype(), {&a});
    pow_products(a.dtype(), s, r, a);
    kernels::cast(a.dtype(), a.dtype(), ops::make_loop(a.sizes(), {&a, &r}));
    a.bump_version();
    return a;
  }
  alignas(16) char buf[16];  // complex128 is 16 bytes
  const DType sdt = is_half(a.dtype()) && opmath_scalar(op, false) ? DType::Float32 : a.dtype();
  ops::store_scalar(sdt, s, buf);
  kernels::Loop L = ops::make_loop_with_scalar(a.sizes(), {&a, &a}, buf, int64_t(itemsize(sdt)));
  if (sdt != a.dtype()) kernels::binary_half(op, {a.dtype(), a.dtype(), sdt}, L);
  else kernels::binary(op, a.dtype(), L, 1.0);
  a.bump_version();
  return a;
}

DType unary_dtype(const char* name, char kind, UnaryOp op, DType in) {
  EMBER_CHECK(!(in == DType::Bool && (op == UnaryOp::Neg)), TypeError, name,
              ": negation, the `-` operator, on a bool tensor is not supported; use "
              "logical_not() instead");
  EMBER_CHECK(!(in == DType::Bool &&
                (op == UnaryOp::Abs || op == UnaryOp::Floor || op == UnaryOp::Ceil ||
                 op == UnaryOp::Round || op == UnaryOp::Trunc || op == UnaryOp::Relu)),
              TypeError, name, ": not implemented for bool tensors");
  if (in == DType::Bool && op == UnaryOp::Square) return DType::Int64;  // torch: pow(b, 2)
  return kind == 'F' && !is_floating_point(in) && !is_complex(in) ? default_dtype() : in;
}

Tensor unary_out(UnaryOp op, char kind, const char* name, const Tensor& a) {
  ops::check_defined(a, name);
  if (op == UnaryOp::Abs && is_complex(a.dtype())) {  // |z| is real: float32 for complex64
    Tensor out = Tensor::empty(a.sizes(), to_real(a.dtype()));
    kernels::abs_complex(a.dtype(), ops::make_loop(a.sizes(), {&out, &a}));
    return out;
  }
  DType dt = unary_dtype(name, kind, op, a.dtype());
  Tensor A = to_dtype(a, dt);
  Tensor out = ops::empty_like_inputs(a.sizes(), dt, {&A});
  kernels::unary(op, dt, ops::make_loop(a.sizes(), {&out, &A}));
  return out;
}

Tensor& unary_inplace(UnaryOp op, char kind, const char* name, Tensor& a) {
  ops::check_defined(a, name);
  ops::check_result_cast(name, unary_dtype(name, kind, op, a.dtype()), a.dtype());
  ops::check_no_internal_overlap(a, name);
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
  Tensor out = ops::empty_like_inputs(shape, DType::Bool, {&A, &B});
  kernels::compare(op, dt, ops::make_loop(shape, {&out, &A, &B}));
  return out;
}

Tensor compare_scalar(CompareOp op, const char* name, const Tensor& a, Scalar s) {
  ops::check_defined(a, name);
  DType dt = result_type(a, s);
  Tensor A = to_dtype(a, dt);
  Tensor out = ops::empty_like_inputs(a.sizes(), DType::Bool, {&A});
  alignas(16) char buf[16];  // complex128 is 16 bytes
  ops::store_scalar(dt, s, buf);
  kernels::compare(op, dt,
                   ops::make_loop_with_scalar(a.sizes(), {&out, &A}, buf, int64_t(itemsize(dt))));
  return out;
}

}  // namespace

// ---- gradients ------------------------------------------------------------------------
// Each formula is written with ops, so it is itself differentiable (create_graph works).
namespace {

bool unary_saves_input(UnaryOp op) {
  switch (op) {
    case UnaryOp::Abs:
    case UnaryOp::Square:
    case UnaryOp::Log:
    case UnaryOp::Log1p:
    case UnaryOp::Log2:
    case UnaryOp::Sin:
    case UnaryOp::Cos:
    case UnaryOp::Erf: return true;
    default: return false;
  }
}

// ReLU's backward in one pass (g where out > 0), unless it must itself be differentiable
// (grad mode is on inside a backward only under create_graph).
Tensor relu_backward(const Tensor& g, const Tensor& out) {
  EMBER_RECORD(relu_backward, g, out);  // one call in an expanded backward (docs/compile.md)
  if (GradMode::is_enabled() || !(is_floating(g.dtype()) || is_half(g.dtype())) ||
      g.dtype() != out.dtype() || g.sizes() != out.sizes())
    return masked_fill(g, le(out, Scalar(0.0)), Scalar(0.0));
  Tensor gx = ops::empty_like_inputs(g.sizes(), g.dtype(), {&g, &out});
  kernels::relu_backward(g.dtype(), ops::make_loop(g.sizes(), {&gx, &g, &out}));
  return gx;
}

// For a complex input the holomorphic ops' gradient is g * conj(f'(z)) (PyTorch's
// convention); conj() of a real tensor is the tensor itself, so one formula serves both.
Tensor unary_backward(UnaryOp op, const Tensor& g, const Tensor& a, const Tensor& out) {
  switch (op) {
    case UnaryOp::Neg: return neg(g);
    case UnaryOp::Abs:
      if (is_complex(a.dtype())) {  // g * z / |z|, 0 at z == 0 (torch's g * sgn(z))
        Tensor r = abs(a);
        return mul(g, div(a, masked_fill(r, eq(r, Scalar(0.0)), Scalar(1.0))));
      }
      return mul(g, sign(a));
    case UnaryOp::Sign:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Trunc: return zeros(g.sizes(), g.dtype());
    case UnaryOp::Relu: return relu_backward(g, out);
    case UnaryOp::Square: return mul(g, conj(mul(a, Scalar(2.0))));
    case UnaryOp::Exp: return mul(g, conj(out));
    case UnaryOp::Expm1: return mul(g, add(out, Scalar(1.0)));
    case UnaryOp::Log: return div(g, conj(a));
    case UnaryOp::Log1p: return div(g, add(a, Scalar(1.0)));
    case UnaryOp::Log2: return div(g, mul(a, Scalar(M_LN2)));
    case UnaryOp::Sqrt: return div(g, conj(mul(out, Scalar(2.0))));
    case UnaryOp::Rsqrt: return mul(g, mul(pow(out, Scalar(3.0)), Scalar(-0.5)));
    case UnaryOp::Reciprocal: return mul(g, neg(conj(mul(out, out))));
    case UnaryOp::Sin: return mul(g, conj(cos(a)));
    case UnaryOp::Cos: return mul(g, neg(conj(sin(a))));
    case UnaryOp::Tan: return mul(g, conj(add(mul(out, out), Scalar(1.0))));
    case UnaryOp::Tanh: return mul(g, conj(sub(Scalar(1.0), mul(out, out))));
    case UnaryOp::Sigmoid: return mul(g, conj(mul(out, sub(Scalar(1.0), out))));
    case UnaryOp::Erf: return mul(g, mul(exp(neg(mul(a, a))), Scalar(M_2_SQRTPI)));
  }
  return g;
}

// neg's gradient and the zero ones of sign, floor, ... read neither input nor output (torch
// saves nothing for them: `b = -a; b.mul_(3)` must not trip the version check).
bool unary_saves_output(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg:
    case UnaryOp::Sign:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Trunc: return false;
    default: return !unary_saves_input(op);
  }
}

void record_unary(UnaryOp op, const char* name, const Tensor& a, const Tensor& out) {
  bool in = unary_saves_input(op), o = unary_saves_output(op);
  autograd::record(name, {&a}, {&out},
                   [op, sa = in ? SavedTensor(a) : SavedTensor(),
                    so = o ? SavedTensor(out, true) : SavedTensor()](Grads& g, const Node&)
                       -> Grads { return {unary_backward(op, g[0], sa.get(), so.get())}; });
}

// An in-place unary op under autograd whose backward reads only its result (relu_, exp_,
// tanh_, sigmoid_, ...): written into `a`, which gets the node (Note [In-place with the result
// saved]); apply_inplace's clone and copy back otherwise.
Tensor& unary_inplace_with_grad(UnaryOp op, char kind, const char* name, const char* node,
                                Tensor& a, Tensor (*out_of_place)(const Tensor&)) {
  if (unary_saves_input(op) || !autograd::can_write_in_place(a))
    return autograd::apply_inplace(a, name, out_of_place);
  autograd::check_inplace(a, name);
  unary_inplace(op, kind, name, a);
  autograd::record(node, {&a}, {&a},
                   [op, so = unary_saves_output(op)
                                 ? SavedTensor(a, true)
                                 : SavedTensor()](Grads& g, const Node&) -> Grads {
                     return {unary_backward(op, g[0], Tensor(), so.get())};
                   });
  return a;
}

// Gradients of a binary op w.r.t. both inputs (before undoing broadcasting).
std::pair<Tensor, Tensor> binary_backward(BinaryOp op, const Tensor& g, const Tensor& a,
                                          const Tensor& b, const Tensor& out, double alpha,
                                          bool need_a, bool need_b) {
  Tensor ga, gb;
  switch (op) {
    case BinaryOp::Add:
      ga = g;
      gb = alpha == 1.0 ? g : mul(g, Scalar(alpha));
      break;
    case BinaryOp::Sub:
      ga = g;
      gb = mul(g, Scalar(-alpha));
      break;
    case BinaryOp::Mul:  // conj(): complex operands (a no-op for real ones)
      if (need_a) ga = mul(g, conj(b));
      if (need_b) gb = mul(g, conj(a));
      break;
    case BinaryOp::Div:
      if (need_a) ga = div(g, conj(b));
      if (need_b) gb = neg(div(mul(g, conj(a)), conj(mul(b, b))));
      break;
    case BinaryOp::Pow:
      if (is_complex(out.dtype())) {  // d/da = b a^(b-1), d/db = a^b log(a), conjugated
        if (need_a)
          ga = masked_fill(mul(g, conj(mul(b, pow(a, sub(b, Scalar(1.0)))))), eq(b, Scalar(0.0)),
                           Scalar(0.0));
        if (need_b)
          gb = masked_fill(mul(g, conj(mul(out, log(a)))), eq(a, Scalar(0.0)), Scalar(0.0));
        break;
      }
      // d/da a^b = b a^(b-1) (0 where b == 0); d/db a^b = a^b log(a) (0 where a == 0, b >= 0)
      if (need_a)
        ga = masked_fill(mul(g, mul(b, pow(a, sub(b, Scalar(1.0))))), eq(b, Scalar(0.0)),
                         Scalar(0.0));
      if (need_b)
        gb = masked_fill(mul(g, mul(out, log(a))),
                         logical_and(eq(a, Scalar(0.0)), ge(b, Scalar(0.0))), Scalar(0.0));
      break;
    case BinaryOp::Maximum:
    case BinaryOp::Minimum: {
      // The larger (smaller) input takes the gradient; ties split it evenly, as in PyTorch.
      Tensor win = op == BinaryOp::Maximum ? gt(a, b) : lt(a, b);
      Tensor tie = eq(a, b);
      Tensor half = mul(g, Scalar(0.5));
      if (need_a) ga = where(tie, half, masked_fill(g, logical_not(win), Scalar(0.0)));
      if (need_b) gb = where(tie, half, masked_fill(g, logical_or(win, tie), Scalar(0.0)));
      break;
    }
    case BinaryOp::Remainder:
      ga = g;
      if (need_b) gb = neg(mul(g, floor_divide(a, b)));
      break;
    case BinaryOp::Atan2: {
      Tensor denom = add(mul(a, a), mul(b, b));
      if (need_a) ga = div(mul(g, b), denom);
      if (need_b) gb = div(neg(mul(g, a)), denom);
      break;
    }
    case BinaryOp::FloorDivide:
      throw Error("floor_divide: the derivative is not implemented (as in PyTorch)");
    default:  // the bitwise ops take integers only, which never require grad
      break;
  }
  return {ga, gb};
}

bool binary_saves_inputs(BinaryOp op) { return op != BinaryOp::Add && op != BinaryOp::Sub; }

void record_binary(BinaryOp op, const char* name, const Tensor& a, const Tensor& b,
                   const Tensor& out, double alpha) {
  bool save = binary_saves_inputs(op);
  autograd::record(name, {&a, &b}, {&out},
                   [op, alpha, sa = save ? SavedTensor(a) : SavedTensor(),
                    sb = save ? SavedTensor(b) : SavedTensor(),
                    so = op == BinaryOp::Pow ? SavedTensor(out, true) : SavedTensor(),
                    sha = Dims(a.sizes()), shb = Dims(b.sizes()), da = a.dtype(),
                    db = b.dtype()](Grads& g, const Node& n) -> Grads {
                     auto [ga, gb] = binary_backward(op, g[0], sa.get(), sb.get(), so.get(), alpha,
                                                     n.needs_input_grad(0), n.needs_input_grad(1));
                     return {n.needs_input_grad(0) ? autograd::sum_to(ga, sha, da) : Tensor(),
                             n.needs_input_grad(1) ? autograd::sum_to(gb, shb, db) : Tensor()};
                   });
}

// A Python scalar operand becomes a 0-d tensor for the gradient formula (only on the
// recording path; the forward keeps it as a stride-0 operand).
void record_binary_scalar(BinaryOp op, const char* name, const Tensor& a, Scalar s, bool reflected,
                          const Tensor& out) {
  // a ** c (the MSE in every tutorial): d/da = c a^(c-1), without a 0-d exponent tensor and
  // the where-c-is-0 masking of the general formula; c == 2 is g * 2a.
  if (op == BinaryOp::Pow && !reflected && !s.is_complex()) {
    const double c = s.to_double();
    autograd::record(name, {&a}, {&out}, [c, sa = SavedTensor(a)](Grads& g, const Node&) -> Grads {
      const Tensor x = sa.get();
      if (c == 0.0) return {zeros(x.sizes(), g[0].dtype())};
      if (c == 2.0) return {mul(g[0], conj(mul(x, Scalar(2.0))))};
      return {mul(g[0], conj(mul(pow(x, Scalar(c - 1.0)), Scalar(c))))};
    });
    return;
  }
  const bool inexact = is_floating_point(out.dtype()) || is_complex(out.dtype());
  // A half mul/div's scalar stays float32 (unrounded), as in the forward (Note [Half scalars]).
  Tensor st = scalar_tensor(s, is_half(out.dtype()) && opmath_scalar(op, reflected) ? DType::Float32
                               : inexact                                            ? out.dtype()
                                                                                    : a.dtype());
  if (reflected) record_binary(op, name, st, a, out, 1.0);
  else record_binary(op, name, a, st, out, 1.0);
}

}  // namespace

namespace {
// What the fusion pass of a recording needs to know (include/ember/record.h).
capture::Fusable fuse_unary(UnaryOp op) {
  capture::Fusable f;
  f.kind = capture::Fusable::Kind::Unary;
  f.op = int(op);
  return f;
}
capture::Fusable fuse_binary(BinaryOp op, double alpha) {
  capture::Fusable f;
  f.kind = capture::Fusable::Kind::Binary;
  f.op = int(op);
  f.alpha = alpha;
  return f;
}
capture::Fusable fuse_scalar(BinaryOp op, Scalar s, bool reflected) {
  capture::Fusable f;
  f.kind = capture::Fusable::Kind::BinaryScalar;
  f.op = int(op);
  f.scalar = s;
  f.reflected = reflected;
  return f;
}
// The in-place forms (a.add_(b)): the kernel replay runs them, fusion never takes them.
capture::Fusable fuse_inplace(capture::Fusable f) {
  f.inplace = true;
  return f;
}
}  // namespace

#define EMBER_UNARY(name, Enum, kind)                                                           \
  Tensor name(const Tensor& a) {                                                                \
    if (a.defined() && a.is_sparse()) return sparse_scalar_op(#name, a, Scalar(-1.0));          \
    EMBER_RECORD_FUSABLE(name, fuse_unary(UnaryOp::Enum), a);                                   \
    EMBER_PROFILE_OP(#name);                                                                    \
    Tensor out = unary_out(UnaryOp::Enum, #kind[0], #name, a);                                  \
    if (autograd::any_requires_grad(a)) record_unary(UnaryOp::Enum, #Enum "Backward0", a, out); \
    return out;                                                                                 \
  }                                                                                             \
  Tensor& name##_(Tensor& a) {                                                                  \
    EMBER_RECORD_FUSABLE(name##_, fuse_inplace(fuse_unary(UnaryOp::Enum)), a);                  \
    EMBER_PROFILE_OP(#name "_");                                                                \
    if (autograd::any_requires_grad(a))                                                         \
      return unary_inplace_with_grad(UnaryOp::Enum, #kind[0], #name "_", #Enum "Backward0", a,  \
                                     [](const Tensor& x) { return name(x); });                  \
    return unary_inplace(UnaryOp::Enum, #kind[0], #name "_", a);                                \
  }
#include "ember/ops.def"
#undef EMBER_UNARY

#define EMBER_BINARY(name, Enum, kind)                                                            \
  Tensor name(const Tensor& a, const Tensor& b) {                                                 \
    if (any_sparse(a, b)) return sparse_binary(#name, a, b);                                      \
    EMBER_RECORD_FUSABLE(name, fuse_binary(BinaryOp::Enum, 1.0), a, b);                           \
    EMBER_PROFILE_OP(#name);                                                                      \
    Tensor out = binary_out(BinaryOp::Enum, #kind[0], #name, a, b, 1.0);                          \
    if (autograd::any_requires_grad(a, b))                                                        \
      record_binary(BinaryOp::Enum, #Enum "Backward0", a, b, out, 1.0);                           \
    return out;                                                                                   \
  }                                                                                               \
  Tensor name(const Tensor& a, Scalar b) {                                                        \
    if (a.defined() && a.is_sparse()) return sparse_scalar_op(#name, a, b);                       \
    EMBER_RECORD_FUSABLE(name, fuse_scalar(BinaryOp::Enum, b, false), a, b);                      \
    EMBER_PROFILE_OP(#name);                                                                      \
    Tensor out = binary_scalar(BinaryOp::Enum, #kind[0], #name, a, b, false);                     \
    if (autograd::any_requires_grad(a))                                                           \
      record_binary_scalar(BinaryOp::Enum, #Enum "Backward0", a, b, false, out);                  \
    return out;                                                                                   \
  }                                                                                               \
  Tensor name(Scalar a, const Tensor& b) {                                                        \
    if (b.defined() && b.is_sparse()) return sparse_scalar_op(#name "_r", b, a);                  \
    EMBER_RECORD_FUSABLE(name, fuse_scalar(BinaryOp::Enum, a, true), a, b);                       \
    EMBER_PROFILE_OP(#name);                                                                      \
    Tensor out = binary_scalar(BinaryOp::Enum, #kind[0], #name, b, a, true);                      \
    if (autograd::any_requires_grad(b))                                                           \
      record_binary_scalar(BinaryOp::Enum, #Enum "Backward0", b, a, true, out);                   \
    return out;                                                                                   \
  }                                                                                               \
  Tensor& name##_(Tensor& a, const Tensor& b) {                                                   \
    EMBER_RECORD_FUSABLE(name##_, fuse_inplace(fuse_binary(BinaryOp::Enum, 1.0)), a, b);          \
    EMBER_PROFILE_OP(#name "_");                                                                  \
    if (autograd::any_requires_grad(a, b))                                                        \
      return autograd::apply_inplace(a, #name "_", [&b](const Tensor& x) { return name(x, b); }); \
    return binary_inplace(BinaryOp::Enum, #kind[0], #name "_", a, b, 1.0);                        \
  }                                                                                               \
  Tensor& name##_(Tensor& a, Scalar b) {                                                          \
    EMBER_RECORD_FUSABLE(name##_, fuse_inplace(fuse_scalar(BinaryOp::Enum, b, false)), a, b);     \
    EMBER_PROFILE_OP(#name "_");                                                                  \
    if (autograd::any_requires_grad(a))                                                           \
      return autograd::apply_inplace(a, #name "_", [b](const Tensor& x) { return name(x, b); });  \
    return binary_inplace_scalar(BinaryOp::Enum, #kind[0], #name "_", a, b);                      \
  }
#include "ember/ops.def"
#undef EMBER_BINARY

#define EMBER_COMPARE(name, Enum)                        \
  Tensor name(const Tensor& a, const Tensor& b) {        \
    EMBER_RECORD(name, a, b);                            \
    EMBER_PROFILE_OP(#name);                             \
    return compare_out(CompareOp::Enum, #name, a, b);    \
  }                                                      \
  Tensor name(const Tensor& a, Scalar b) {               \
    EMBER_RECORD(name, a, b);                            \
    EMBER_PROFILE_OP(#name);                             \
    return compare_scalar(CompareOp::Enum, #name, a, b); \
  }
#include "ember/ops.def"
#undef EMBER_COMPARE

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) {
  if (any_sparse(a, b)) return sparse_add(a, b, alpha);
  EMBER_RECORD_FUSABLE(add, fuse_binary(BinaryOp::Add, alpha.to_double()), a, b, alpha);
  EMBER_PROFILE_OP("add");
  check_alpha("add", result_type(a, b), alpha);
  Tensor out = binary_out(BinaryOp::Add, 'A', "add", a, b, alpha.to_double());
  if (autograd::any_requires_grad(a, b))
    record_binary(BinaryOp::Add, "AddBackward0", a, b, out, alpha.to_double());
  return out;
}
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) {
  if (any_sparse(a, b)) return sparse_add(a, b, Scalar(-alpha.to_double()));
  EMBER_RECORD_FUSABLE(sub, fuse_binary(BinaryOp::Sub, alpha.to_double()), a, b, alpha);
  EMBER_PROFILE_OP("sub");
  check_alpha("sub", result_type(a, b), alpha);
  Tensor out = binary_out(BinaryOp::Sub, 'A', "sub", a, b, alpha.to_double());
  if (autograd::any_requires_grad(a, b))
    record_binary(BinaryOp::Sub, "SubBackward0", a, b, out, alpha.to_double());
  return out;
}
Tensor& add_(Tensor& a, const Tensor& b, Scalar alpha) {
  EMBER_RECORD_FUSABLE(add_, fuse_inplace(fuse_binary(BinaryOp::Add, alpha.to_double())), a, b,
                       alpha);
  EMBER_PROFILE_OP("add_");
  check_alpha("add_", result_type(a, b), alpha);
  if (autograd::any_requires_grad(a, b))
    return autograd::apply_inplace(a, "add_", [&](const Tensor& x) { return add(x, b, alpha); });
  return binary_inplace(BinaryOp::Add, 'A', "add_", a, b, alpha.to_double());
}
Tensor& sub_(Tensor& a, const Tensor& b, Scalar alpha) {
  EMBER_RECORD_FUSABLE(sub_, fuse_inplace(fuse_binary(BinaryOp::Sub, alpha.to_double())), a, b,
                       alpha);
  EMBER_PROFILE_OP("sub_");
  check_alpha("sub_", result_type(a, b), alpha);
  if (autograd::any_requires_grad(a, b))
    return autograd::apply_inplace(a, "sub_", [&](const Tensor& x) { return sub(x, b, alpha); });
  return binary_inplace(BinaryOp::Sub, 'A', "sub_", a, b, alpha.to_double());
}

Tensor logical_not(const Tensor& a) {
  EMBER_RECORD(logical_not, a);
  EMBER_PROFILE_OP("logical_not");
  ops::check_defined(a, "logical_not");
  Tensor out = ops::empty_like_inputs(a.sizes(), DType::Bool, {&a});
  kernels::logical_not(a.dtype(), ops::make_loop(a.sizes(), {&out, &a}));
  return out;
}

Tensor bitwise_not(const Tensor& a) {
  EMBER_RECORD(bitwise_not, a);
  EMBER_PROFILE_OP("bitwise_not");
  ops::check_defined(a, "bitwise_not");
  EMBER_CHECK(!is_floating_point(a.dtype()), TypeError,
              "bitwise_not: only integer and bool tensors are supported, got ",
              dtype_name(a.dtype()));
  if (a.dtype() == DType::Bool) return logical_not(a);
  return bitwise_xor(a, Scalar(int64_t(-1)));
}

// torch.div(a, b, rounding_mode=): "floor" is floor_divide; "trunc" rounds toward zero (in the
// promoted dtype: integers stay integers, as torch). The gradients are zeros, as torch's.
Tensor div(const Tensor& a, const Tensor& b, const std::string& rounding_mode) {
  EMBER_PROFILE_OP("div");
  ops::check_defined(a, "div");
  ops::check_defined(b, "div");
  EMBER_CHECK(rounding_mode == "trunc" || rounding_mode == "floor", Error,
              "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
              rounding_mode, "'");
  const DType dt = result_type(a, b);
  EMBER_CHECK(dt != DType::Bool, NotImplementedError, "\"div_", rounding_mode,
              "_cpu\" not implemented for 'Bool'");
  broadcast_shapes(a.sizes(), b.sizes(), "div");  // a mismatch names div
  Tensor out;
  {
    NoGradGuard no_grad;
    if (rounding_mode == "floor") {
      out = floor_divide(a, b);
    } else if (is_floating(dt) || is_complex(dt)) {
      out = trunc(div(a, b));
    } else {  // floor division, one up where it rounded a negative quotient down
      Tensor q = floor_divide(a, b);
      Tensor down =
          logical_and(ne(remainder(a, b), Scalar(0)), ne(lt(a, Scalar(0)), lt(b, Scalar(0))));
      out = where(down, add(q, Scalar(1)), q);
    }
  }
  if (autograd::any_requires_grad(a, b))
    autograd::record("DivBackward1", {&a, &b}, {&out},
                     [sa = Dims(a.sizes()), sb = Dims(b.sizes()), da = a.dtype(),
                      db = b.dtype()](Grads&, const Node&) -> Grads {
                       return {zeros(sa, da), zeros(sb, db)};
                     });
  return out;
}

Tensor& div_(Tensor& a, const Tensor& b, const std::string& rounding_mode) {
  EMBER_PROFILE_OP("div_");
  ops::check_defined(a, "div_");
  return autograd::apply_inplace(a, "div_",
                                 [&](const Tensor& x) { return div(x, b, rounding_mode); });
}

// torch.round(a, decimals=d): round half to even at 10^-d, computed as torch does, in float32
// for the 16-bit dtypes: nearbyint(a * 10^d) / 10^d, or nearbyint(a / 10^-d) * 10^-d for d < 0
// (10^d overflows float32 to inf past d = 38, making NaN, as torch). Zero gradient.
Tensor round(const Tensor& a, int64_t decimals) {
  EMBER_PROFILE_OP("round");
  ops::check_defined(a, "round");
  if (decimals == 0) return round(a);
  EMBER_CHECK(is_floating_point(a.dtype()), NotImplementedError,
              "\"round_cpu\" not implemented for '", torch_type_name(a.dtype()),
              "' (round with decimals=", decimals, ")");
  const Scalar scale(std::pow(10.0, double(decimals < 0 ? -decimals : decimals)));
  Tensor out;
  {
    NoGradGuard no_grad;
    const bool half = a.dtype() == DType::BFloat16 || a.dtype() == DType::Float16;
    const Tensor x = half ? to_dtype(a, DType::Float32) : a;
    out = decimals > 0 ? div(round(mul(x, scale)), scale) : mul(round(div(x, scale)), scale);
    if (half) out = to_dtype(out, a.dtype());
  }
  if (autograd::any_requires_grad(a))
    autograd::record("RoundBackward1", {&a}, {&out},
                     [sa = Dims(a.sizes()), da = a.dtype()](Grads&, const Node&) -> Grads {
                       return {zeros(sa, da)};
                     });
  return out;
}

Tensor& round_(Tensor& a, int64_t decimals) {
  EMBER_PROFILE_OP("round_");
  ops::check_defined(a, "round_");
  return autograd::apply_inplace(a, "round_", [&](const Tensor& x) { return round(x, decimals); });
}

}  // namespace ember
