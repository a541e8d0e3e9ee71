// Layer ops of ember/functional.h: linear, gelu, leaky_relu, dropout and embedding. Each op
// checks its arguments (errors name the op and the shapes), computes through BLAS (linear)
// or a kernel of src/kernels/cpu/nn.cpp, and records its backward right below.
//
// Note [Fused backward and create_graph]: a backward that calls a fused kernel is fast but
// not itself differentiable. Grad mode is on inside a backward only under create_graph, so
// there each backward switches to the same formula written with ember ops, which the
// engine can differentiate again (double backward matches PyTorch's).
#include <climits>
#include <cmath>

#include "autograd/function.h"
#include "ember/autocast.h"
#include "ember/functional.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "ember/random.h"
#include "kernels/cpu/nn.h"
#include "ops/half_ops.h"
#include "ops/iter.h"
#include "ops/linalg.h"

namespace ember {
namespace {

using autograd::SavedTensor;

// g in x's dtype (a gradient may arrive in another floating dtype).
Tensor as_dtype_of(const Tensor& g, const Tensor& x) {
  return g.dtype() == x.dtype() ? g : to_dtype(g, x.dtype());
}

// ---- linear -----------------------------------------------------------------------------

// The output shape of linear: x's leading dims, then out_features (none for a 1-d weight).
Dims linear_shape(const Tensor& x, const Tensor& w) {
  Dims shape(IntList(x.sizes().data(), size_t(x.dim() - 1)));
  if (w.dim() == 2) shape.push_back(w.size(0));
  return shape;
}

void check_linear(const Tensor& x, const Tensor& w, const Tensor& b) {
  const char* op = "linear";
  ops::check_defined(x, op);
  ops::check_defined(w, op);
  EMBER_CHECK(x.dim() >= 1 && w.dim() >= 1, ValueError, op,
              ": input and weight need to be at least 1-d, but got input of shape ", x.sizes(),
              " and weight of shape ", w.sizes());
  EMBER_CHECK(
      w.dim() <= 2, ValueError, op,
      ": expected a 1-d or 2-d weight (out_features, in_features), but got weight of shape ",
      w.sizes());
  EMBER_CHECK(x.size(-1) == w.size(-1), ValueError, op, ": input of shape ", x.sizes(),
              " and weight of shape ", w.sizes(), " cannot be multiplied (in_features ", x.size(-1),
              " != ", w.size(-1), ")");
  EMBER_CHECK(x.dtype() == w.dtype(), TypeError, op,
              ": expected input and weight to have the same dtype, but got ", dtype_name(x.dtype()),
              " and ", dtype_name(w.dtype()));
  if (!b.defined()) return;
  EMBER_CHECK(b.dtype() == x.dtype(), TypeError, op,
              ": expected input and bias to have the same dtype, but got ", dtype_name(x.dtype()),
              " and ", dtype_name(b.dtype()));
  // PyTorch sends a 2-d input with a bias to addmm, which refuses a vector weight.
  EMBER_CHECK(!(x.dim() == 2 && w.dim() == 1), ValueError, op,
              ": with a bias, a 2-d input needs a 2-d weight, but got input of shape ", x.sizes(),
              " and weight of shape ", w.sizes());
  const Dims shape = linear_shape(x, w);
  bool fits = b.dim() <= int64_t(shape.size());
  for (int64_t i = 1; fits && i <= b.dim(); ++i) {
    const int64_t bs = b.size(-i), os = shape[shape.size() - size_t(i)];
    fits = bs == os || bs == 1;
  }
  EMBER_CHECK(fits, ValueError, op, ": bias of shape ", b.sizes(),
              " cannot be broadcast to the output shape ", shape);
}

// x as a (rows, in) matrix: a view when the strides allow it, else a copy.
Tensor as_matrix(const Tensor& x, int64_t rows) {
  const int64_t in = x.size(-1);
  if (x.dim() == 2) return x;
  Dims st;
  if (view_strides(x.sizes(), x.strides(), {rows, in}, st))
    return x.as_strided({rows, in}, st, x.offset());
  return reshape(x, {rows, in});
}

int64_t leading_rows(const Tensor& x) {
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < x.dim(); ++d) rows *= x.sizes()[size_t(d)];
  return rows;
}

// dx = g @ w, dw = g^T @ x (summed over the leading dims), db = g summed to b's shape.
// Written with ember ops, so it is differentiable again (create_graph).
Grads linear_backward(const Tensor& g, const Tensor& x, const Tensor& w, const Dims& bshape,
                      int64_t rows, const Node& n) {
  const int64_t in = w.size(1), out = w.size(0);
  Tensor g2 = g.dim() == 2 ? g : reshape(g, {rows, out});
  Tensor gx, gw, gb;
  if (n.needs_input_grad(0)) {
    gx = mm(g2, w);
    if (x.dim() != 2) gx = reshape(gx, x.sizes());
  }
  if (n.needs_input_grad(1)) {
    const Tensor x2 = x.dim() == 2 ? x : reshape(x, {rows, in});
    gw = GradMode::is_enabled() ? mm(t(g2), x2) : ops::mm_grad(n, 1, t(g2), x2);
  }
  if (n.needs_input_grad(2))  // bias (out), (1) or (): the fast path takes no other
    gb = bshape.size() == 1 && bshape[0] == out ? sum(g2, {0}) : reshape(sum(g2), bshape);
  return {gx, gw, gb};
}

}  // namespace

// Note [Linear in one gemm]: x (*, in) is viewed as a (rows, in) matrix (no copy when its
// strides allow), w.T reaches BLAS as a transposed operand (no copy), and the bias rides in
// addmm's beta * C (Note [addmm in one gemm]). One autograd node covers the whole op.
Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) {
  EMBER_RECORD(linear, x, w, b);
  EMBER_PROFILE_OP("linear");
  if (autocast::is_enabled()) {  // Note [Autocast]: a lower-precision op
    autocast::Suspend off;
    return linear(autocast::lower(x), autocast::lower(w), autocast::lower(b));
  }
  check_linear(x, w, b);
  if (w.dim() == 1 || (b.defined() && b.dim() > 1)) {
    // Rare shapes (a vector weight, a bias over several dims): the plain composition.
    Tensor out = matmul(x, w.dim() == 2 ? t(w) : w);
    return b.defined() ? add(out, b) : out;
  }
  const int64_t in = x.size(-1), rows = leading_rows(x);
  const bool has_b = b.defined();
  Tensor out;
  {
    NoGradGuard no_grad;  // the views and the product below are internal to this node
    const Tensor x2 = as_matrix(x, rows);
    const Tensor wt = w.as_strided({in, w.size(0)}, {w.stride(1), w.stride(0)}, w.offset());
    out = has_b ? addmm(b, x2, wt) : mm(x2, wt);
    if (x.dim() != 2) {
      const Dims shape = linear_shape(x, w);
      out = out.as_strided(shape, contiguous_strides(shape), 0);
    }
  }
  if (autograd::any_requires_grad(x, w) || (has_b && autograd::any_requires_grad(b))) {
    auto backward = [sx = SavedTensor(x), sw = SavedTensor(w), rows,
                     bshape = has_b ? Dims(b.sizes()) : Dims()](Grads& g, const Node& n) -> Grads {
      return linear_backward(g[0], sx.get(), sw.get(), bshape, rows, n);
    };
    if (has_b) autograd::record("AddmmBackward0", {&x, &w, &b}, {&out}, std::move(backward));
    else autograd::record("MmBackward0", {&x, &w}, {&out}, std::move(backward));
  }
  return out;
}

// ---- elementwise activations: gelu, silu, hardswish, softplus --------------------------------

namespace {

// An activation of one floating tensor: checks, kernel(dtype, Loop{out, x}) into a new tensor,
// and the autograd node `node` whose gradient is backward(g, x).
template <class K, class B>
Tensor activation(const Tensor& x, const char* name, const char* node, const K& kernel,
                  B backward) {
  ops::check_defined(x, name);
  ops::check_floating_input(x, name);
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  kernel(x.dtype(), ops::make_loop(x.sizes(), {&out, &x}));
  if (autograd::any_requires_grad(x))
    autograd::record(node, {&x}, {&out},
                     [sx = SavedTensor(x), backward](Grads& g, const Node&) -> Grads {
                       return {backward(g[0], sx.get())};
                     });
  return out;
}

// An activation's gradient: derivative(x) * g in ember ops under create_graph, else
// kernel(dtype, Loop{gx, g, x}).
template <class D, class K>
Tensor activation_backward(const Tensor& g, const Tensor& x, const D& derivative, const K& kernel) {
  if (GradMode::is_enabled()) return mul(g, derivative(x));
  Tensor gx = Tensor::empty(x.sizes(), x.dtype());
  const Tensor G = as_dtype_of(g, x);
  kernel(x.dtype(), ops::make_loop(x.sizes(), {&gx, &G, &x}));
  return gx;
}

// d gelu / dx with ember ops (the create_graph path; the kernel computes the same).
Tensor gelu_derivative(const Tensor& x, bool tanh_approx) {
  if (tanh_approx) {
    const double k = 0.79788456080286535588, c = 0.044715;
    Tensor x2 = mul(x, x);
    Tensor th = tanh(mul(add(mul(mul(x2, x), Scalar(c)), x), Scalar(k)));
    Tensor dinner = mul(add(mul(x2, Scalar(3 * c)), Scalar(1.0)), Scalar(k));
    Tensor left = mul(add(th, Scalar(1.0)), Scalar(0.5));
    Tensor right = mul(mul(mul(x, Scalar(0.5)), sub(Scalar(1.0), mul(th, th))), dinner);
    return add(left, right);
  }
  Tensor cdf = mul(add(erf(mul(x, Scalar(M_SQRT1_2))), Scalar(1.0)), Scalar(0.5));
  Tensor pdf = mul(exp(mul(mul(x, x), Scalar(-0.5))), Scalar(0.39894228040143267794));
  return add(cdf, mul(x, pdf));
}

// silu'(x) = s (1 + x (1 - s)), s = sigmoid(x).
Tensor silu_derivative(const Tensor& x) {
  Tensor s = sigmoid(x);
  return mul(s, add(mul(x, sub(Scalar(1.0), s)), Scalar(1.0)));
}

// hardswish' with torch's branches: 0 for x <= -3, 1 from 3 on, x / 3 + 1/2 between and NaN.
Tensor hardswish_derivative(const Tensor& x) {
  Tensor inside = add(div(x, Scalar(3.0)), Scalar(0.5));
  Tensor upper = masked_fill(inside, ge(x, Scalar(3.0)), Scalar(1.0));
  return masked_fill(upper, le(x, Scalar(-3.0)), Scalar(0.0));
}

}  // namespace

Tensor gelu(const Tensor& x, bool tanh_approximation) {
  EMBER_RECORD(gelu, x, tanh_approximation);
  EMBER_PROFILE_OP("gelu");
  return activation(
      x, "gelu", "GeluBackward0",
      [&](DType dt, const kernels::Loop& L) { kernels::gelu(dt, L, tanh_approximation); },
      [tanh_approximation](const Tensor& g, const Tensor& x) {
        return activation_backward(
            g, x, [&](const Tensor& v) { return gelu_derivative(v, tanh_approximation); },
            [&](DType dt, const kernels::Loop& L) {
              kernels::gelu_backward(dt, L, tanh_approximation);
            });
      });
}

Tensor silu(const Tensor& x) {
  EMBER_RECORD(silu, x);
  EMBER_PROFILE_OP("silu");
  return activation(x, "silu", "SiluBackward0", kernels::silu,
                    [](const Tensor& g, const Tensor& x) {
                      return activation_backward(g, x, silu_derivative, kernels::silu_backward);
                    });
}

Tensor hardswish(const Tensor& x) {
  EMBER_RECORD(hardswish, x);
  EMBER_PROFILE_OP("hardswish");
  return activation(x, "hardswish", "HardswishBackward0", kernels::hardswish,
                    [](const Tensor& g, const Tensor& x) {
                      return activation_backward(g, x, hardswish_derivative,
                                                 kernels::hardswish_backward);
                    });
}

Tensor softplus(const Tensor& x, double beta, double threshold) {
  EMBER_RECORD(softplus, x, beta, threshold);
  EMBER_PROFILE_OP("softplus");
  const auto kernel = [beta, threshold](bool grad) {
    return
        [=](DType dt, const kernels::Loop& L) { kernels::softplus(dt, L, beta, threshold, grad); };
  };
  // softplus' = sigmoid(beta x), 1 in the linear region
  const auto derivative = [beta, threshold](const Tensor& v) {
    Tensor z = mul(v, Scalar(beta));
    return masked_fill(sigmoid(z), gt(z, Scalar(threshold)), Scalar(1.0));
  };
  return activation(x, "softplus", "SoftplusBackward0", kernel(false),
                    [=](const Tensor& g, const Tensor& v) {
                      return activation_backward(g, v, derivative, kernel(true));
                    });
}

// ---- leaky_relu -------------------------------------------------------------------------

namespace {
// g * (v > 0 ? 1 : slope), v being leaky_relu's input, or its result when slope >= 0 (the
// two have the same sign then, and NaN in both).
Tensor leaky_relu_grad(const Tensor& g, const Tensor& v, double slope) {
  // create_graph: Note [Fused backward and create_graph]
  if (GradMode::is_enabled()) return where(gt(v, Scalar(0.0)), g, mul(g, Scalar(slope)));
  Tensor gx = Tensor::empty(v.sizes(), v.dtype());
  const Tensor G = as_dtype_of(g, v);
  kernels::leaky_relu_backward(v.dtype(), ops::make_loop(v.sizes(), {&gx, &G, &v}), slope);
  return gx;
}
}  // namespace

Tensor leaky_relu(const Tensor& x, Scalar negative_slope) {
  EMBER_RECORD(leaky_relu, x, negative_slope);
  EMBER_PROFILE_OP("leaky_relu");
  ops::check_defined(x, "leaky_relu");
  ops::check_floating_input(x, "leaky_relu");
  const double slope = negative_slope.to_double();
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  kernels::leaky_relu(x.dtype(), ops::make_loop(x.sizes(), {&out, &x}), slope);
  if (autograd::any_requires_grad(x))
    autograd::record("LeakyReluBackward0", {&x}, {&out},
                     [sx = SavedTensor(x), slope](Grads& g, const Node&) -> Grads {
                       return {leaky_relu_grad(g[0], sx.get(), slope)};
                     });
  return out;
}

// In place: written into x, and under autograd with a slope >= 0 the node saves the result
// (torch's LeakyReluBackward1; Note [In-place with the result saved]). A negative slope
// (where torch's backward raises) or an autograd view goes through apply_inplace.
Tensor& leaky_relu_(Tensor& x, Scalar negative_slope) {
  EMBER_RECORD(leaky_relu_, x, negative_slope);
  EMBER_PROFILE_OP("leaky_relu_");
  ops::check_defined(x, "leaky_relu_");
  ops::check_floating_input(x, "leaky_relu_");
  const double slope = negative_slope.to_double();
  const bool grad = autograd::any_requires_grad(x);
  if (grad && !(slope >= 0 && autograd::can_write_in_place(x)))
    return autograd::apply_inplace(x, "leaky_relu_", [slope](const Tensor& v) {
      return leaky_relu(v, Scalar(slope));
    });
  if (grad) autograd::check_inplace(x, "leaky_relu_");
  ops::check_no_internal_overlap(x, "leaky_relu_");
  kernels::leaky_relu(x.dtype(), ops::make_loop(x.sizes(), {&x, &x}), slope);
  x.bump_version();
  if (grad)
    autograd::record("LeakyReluBackward1", {&x}, {&x},
                     [sr = SavedTensor(x, true), slope](Grads& g, const Node&) -> Grads {
                       return {leaky_relu_grad(g[0], sr.get(), slope)};
                     });
  return x;
}

// ---- dropout ----------------------------------------------------------------------------

// The mask (0 or 1 / (1 - p), in x's dtype) is seeded from the default generator, so
// ember.manual_seed makes it reproducible. The backward is g * mask.
Tensor dropout(const Tensor& x, double p, bool training) {
  EMBER_RECORD(dropout, x, p, training);
  EMBER_PROFILE_OP("dropout");
  ops::check_defined(x, "dropout");
  EMBER_CHECK(p >= 0.0 && p <= 1.0, ValueError,
              "dropout: dropout probability has to be between 0 and 1, but got ", p);
  if (!training || p == 0.0) return x;
  if (p == 1.0) return mul(x, Scalar(int64_t(0)));  // as PyTorch: x * 0 (keeps NaN and -0)
  EMBER_CHECK(is_floating_point(x.dtype()), TypeError,
              "dropout: expected a floating point input in training mode, but got ",
              dtype_name(x.dtype()), " (input of shape ", x.sizes(), ")");
  // One draw from the default generator seeds the whole mask (kernels::dropout_mask).
  int64_t seed = 0;
  default_generator().randint(&seed, 1, 0, INT64_MAX);
  const DType mdt = ops::compute_dtype_of(x.dtype());  // half: drawn in float32, then rounded
  Tensor mask = Tensor::empty(x.sizes(), mdt), out;
  kernels::dropout_mask(mdt, mask.numel(), uint64_t(seed), p, 1.0 / (1.0 - p), mask.data_ptr());
  mask = ops::narrowed(mask, x.dtype());
  {
    NoGradGuard no_grad;  // the node below records the product
    out = mul(x, mask);
  }
  if (autograd::any_requires_grad(x))
    autograd::record("NativeDropoutBackward0", {&x}, {&out},
                     [sm = SavedTensor(mask)](Grads& g, const Node&) -> Grads {
                       return {mul(g[0], sm.get())};
                     });
  return out;
}

// ---- embedding --------------------------------------------------------------------------

namespace {

// gw (num, dim) = sum of the rows of g picked by each index, none for padding_idx.
Tensor embedding_backward(const Tensor& g, const Tensor& idx, int64_t num, int64_t dim,
                          int64_t pad) {
  const int64_t n = idx.numel();
  if (GradMode::is_enabled()) {  // create_graph: Note [Fused backward and create_graph]
    Tensor flat = to_dtype(reshape(idx, {n}), DType::Int64);
    Tensor g2 = reshape(g, {n, dim});
    if (pad >= 0) g2 = masked_fill(g2, unsqueeze(eq(flat, Scalar(pad)), 1), Scalar(0.0));
    Tensor gw = zeros({num, dim}, g.dtype());
    index_put_(gw, {TensorIndex::of(flat)}, g2, true);
    return gw;
  }
  const Tensor G = contiguous(ops::widened(g));  // half: summed in float32, rounded once
  Tensor gw = zeros({num, dim}, G.dtype());
  kernels::embedding_backward(G.dtype(), idx.data_ptr(), idx.dtype() == DType::Int32, n, dim,
                              G.data_ptr(), pad, gw.data_ptr());
  return ops::narrowed(gw, g.dtype());
}

}  // namespace

Tensor embedding(const Tensor& indices, const Tensor& weight, std::optional<int64_t> padding_idx) {
  EMBER_RECORD(embedding, indices, weight, padding_idx);
  EMBER_PROFILE_OP("embedding");
  const char* op = "embedding";
  ops::check_defined(indices, op);
  ops::check_defined(weight, op);
  EMBER_CHECK(indices.dtype() == DType::Int64 || indices.dtype() == DType::Int32, TypeError, op,
              ": expected indices of dtype int64 or int32, but got ", dtype_name(indices.dtype()),
              " (indices of shape ", indices.sizes(), ")");
  EMBER_CHECK(weight.dim() == 2, ValueError, op,
              ": expected a 2-d weight (num_embeddings, embedding_dim), but got weight of shape ",
              weight.sizes());
  const int64_t num = weight.size(0), dim = weight.size(1);
  int64_t pad = -1;
  if (padding_idx) {
    EMBER_CHECK(*padding_idx >= -num && *padding_idx < num, ValueError, op,
                ": padding_idx must be within num_embeddings (", num,
                "), but got padding_idx=", *padding_idx);
    pad = *padding_idx < 0 ? *padding_idx + num : *padding_idx;
  }
  const Tensor idx = contiguous(indices);
  const bool is32 = idx.dtype() == DType::Int32;
  const int64_t n = idx.numel();
  const int64_t bad = kernels::embedding_find_bad(idx.data_ptr(), is32, n, num);
  EMBER_CHECK(bad < 0, IndexError, op, ": index ",
              bad < 0 ? 0 : (is32 ? int64_t(idx.data<int32_t>()[bad]) : idx.data<int64_t>()[bad]),
              " is out of range for num_embeddings ", num, " (weight of shape ", weight.sizes(),
              ")");
  Dims shape = indices.sizes();
  shape.push_back(dim);
  Tensor out = Tensor::empty(shape, weight.dtype());
  kernels::embedding_forward(weight.dtype(), idx.data_ptr(), is32, n, dim, weight.data_ptr(),
                             weight.stride(0), weight.stride(1), out.data_ptr());
  if (autograd::any_requires_grad(weight))
    autograd::record("EmbeddingBackward0", {&weight}, {&out},
                     [si = SavedTensor(idx), num, dim, pad](Grads& g, const Node&) -> Grads {
                       return {embedding_backward(g[0], si.get(), num, dim, pad)};
                     });
  return out;
}

}  // namespace ember
