// Every tensor op, as free functions named as in PyTorch. Grouped by family; each
// family is implemented (forward next to backward) in src/ops/<family>.cpp.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/random.h"
#include "ember/record.h"
#include "ember/tensor.h"

namespace ember {

// ---- creation (src/ops/creation.cpp) -------------------------------------------------
Tensor empty(IntList shape, DType dtype = default_dtype());
Tensor zeros(IntList shape, DType dtype = default_dtype());
Tensor ones(IntList shape, DType dtype = default_dtype());
Tensor full(IntList shape, Scalar value, std::optional<DType> dtype = std::nullopt);
Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<DType> dtype = std::nullopt);
Tensor linspace(double start, double end, int64_t steps, DType dtype = default_dtype());
Tensor eye(int64_t n, int64_t m = -1, DType dtype = default_dtype());
Tensor scalar_tensor(Scalar value, std::optional<DType> dtype = std::nullopt);
// Random numbers from `gen`, or the global generator when it is null (include/ember/random.h;
// more distributions in src/ops/random.cpp).
void manual_seed(uint64_t seed);
Tensor rand(IntList shape, DType dtype = default_dtype(), Generator* gen = nullptr);
Tensor randn(IntList shape, DType dtype = default_dtype(), Generator* gen = nullptr);
Tensor randint(int64_t low, int64_t high, IntList shape, DType dtype = DType::Int64,
               Generator* gen = nullptr);
Tensor randperm(int64_t n, DType dtype = DType::Int64, Generator* gen = nullptr);
// In place: fill with U(low, high) / N(mean, std).
Tensor& uniform_(Tensor& t, double low = 0.0, double high = 1.0, Generator* gen = nullptr);
Tensor& normal_(Tensor& t, double mean = 0.0, double std = 1.0, Generator* gen = nullptr);

// ---- copies and dtype (src/ops/copy.cpp) ---------------------------------------------
Tensor contiguous(const Tensor& t);             // t itself when already contiguous
Tensor clone(const Tensor& t);                  // always a fresh contiguous copy
Tensor to_dtype(const Tensor& t, DType dtype);  // t itself when the dtype matches
// dst[...] = src (broadcast to dst's shape, converted to dst's dtype); bumps dst's version.
Tensor& copy_(Tensor& dst, const Tensor& src);
// torch's out=: result written into out (resized to its shape, cast to out's dtype, which must
// hold it); refused when autograd records. True when out had elements and was resized (torch
// warns then).
bool write_out(Tensor& out, const Tensor& result, const char* op);
Tensor& fill_(Tensor& t, Scalar value);
Tensor& fill_(Tensor& t, const Tensor& value);  // value: a 0-d tensor
Tensor& zero_(Tensor& t);
Tensor detach(const Tensor& t);

// ---- views and shape (src/ops/views.cpp, src/ops/join.cpp) ---------------------------
Tensor view(const Tensor& t, IntList shape);     // error when the strides do not allow it
Tensor reshape(const Tensor& t, IntList shape);  // a view when possible, else a copy
Tensor flatten(const Tensor& t, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor unflatten(const Tensor& t, int64_t dim, IntList sizes);
Tensor squeeze(const Tensor& t);
Tensor squeeze(const Tensor& t, IntList dims);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1);
Tensor t(const Tensor& t);  // transpose of a <= 2-d tensor
Tensor permute(const Tensor& t, IntList dims);
Tensor expand(const Tensor& t, IntList shape);  // -1 keeps a size
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step = 1);
Tensor diagonal(const Tensor& t, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& t, IntList sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& t, int64_t dim = 0);
// A view with the given sizes and strides (in elements) over t's storage, starting at
// storage_offset (default: t's own); non-negative strides, inside the storage.
Tensor as_strided(const Tensor& t, IntList sizes, IntList strides,
                  std::optional<int64_t> storage_offset = std::nullopt);
// Sliding windows: dim `dimension` becomes (size - window) / step + 1 windows and a new last
// dim holds each window's `size` elements (a view; windows may overlap).
Tensor unfold(const Tensor& t, int64_t dimension, int64_t size, int64_t step);
// In-place view ops (src/ops/inplace_views.cpp): t takes the view's geometry and history
// (Note [In-place view ops]); the data are untouched, the version counter bumps.
Tensor& t_(Tensor& t);
Tensor& transpose_(Tensor& t, int64_t dim0, int64_t dim1);
Tensor& squeeze_(Tensor& t);
Tensor& squeeze_(Tensor& t, IntList dims);
Tensor& unsqueeze_(Tensor& t, int64_t dim);
Tensor& as_strided_(Tensor& t, IntList sizes, IntList strides,
                    std::optional<int64_t> storage_offset = std::nullopt);
// t becomes contiguous with `sizes`, keeping its storage offset; the storage grows (keeping
// its bytes, seen by every view) when too small. Refused for tensors that require grad and
// for borrowed or shared storages.
Tensor& resize_(Tensor& t, IntList sizes);
// t views src's storage with src's geometry (set_(source)); or `storage` (a tensor over the
// storage, see storage_view) from storage_offset with sizes/strides; or nothing (set_()).
Tensor& set_(Tensor& t, const Tensor& src);
Tensor& set_(Tensor& t, const Tensor& storage, int64_t storage_offset, IntList sizes,
             IntList strides);
Tensor& set_(Tensor& t);
// A 1-d tensor of `dtype` over all of t's storage (what Tensor.untyped_storage() reads).
Tensor storage_view(const Tensor& t, DType dtype);
Tensor cat(const std::vector<Tensor>& ts, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& ts, int64_t dim = 0);

// ---- elementwise (src/ops/elementwise.cpp) -------------------------------------------
#define EMBER_UNARY(name, Enum, kind) \
  Tensor name(const Tensor& a);       \
  Tensor& name##_(Tensor& a);
#include "ember/ops.def"
#undef EMBER_UNARY
#define EMBER_BINARY(name, Enum, kind)           \
  Tensor name(const Tensor& a, const Tensor& b); \
  Tensor name(const Tensor& a, Scalar b);        \
  Tensor name(Scalar a, const Tensor& b);        \
  Tensor& name##_(Tensor& a, const Tensor& b);   \
  Tensor& name##_(Tensor& a, Scalar b);
#include "ember/ops.def"
#undef EMBER_BINARY
#define EMBER_COMPARE(name, Enum)                \
  Tensor name(const Tensor& a, const Tensor& b); \
  Tensor name(const Tensor& a, Scalar b);
#include "ember/ops.def"
#undef EMBER_COMPARE
// a + alpha * b, a - alpha * b (torch.add(a, b, alpha=...)).
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha);
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha);
Tensor& add_(Tensor& a, const Tensor& b, Scalar alpha);
Tensor& sub_(Tensor& a, const Tensor& b, Scalar alpha);
// torch.div(a, b, rounding_mode="trunc" | "floor"): the quotient rounded toward zero or down,
// integers staying integers; zero gradients, as torch.
Tensor div(const Tensor& a, const Tensor& b, const std::string& rounding_mode);
Tensor& div_(Tensor& a, const Tensor& b, const std::string& rounding_mode);
// torch.round(a, decimals=d): round half to even at 10^-d (floating dtypes); zero gradient.
Tensor round(const Tensor& a, int64_t decimals);
Tensor& round_(Tensor& a, int64_t decimals);
Tensor logical_not(const Tensor& a);
Tensor bitwise_not(const Tensor& a);
Tensor clamp(const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max);
Tensor& clamp_(Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
// One operand a Python-style scalar: it takes the other's dtype as torch.result_type says,
// and must fit it (where(c, int8_tensor, 300) raises, as torch's checked conversion).
Tensor where(const Tensor& cond, const Tensor& a, Scalar b);
Tensor where(const Tensor& cond, Scalar a, const Tensor& b);
Tensor masked_fill(const Tensor& t, const Tensor& mask, Scalar value);
Tensor& masked_fill_(Tensor& t, const Tensor& mask, Scalar value);
// The dtype PyTorch would give a binary op of a and b (torch.result_type).
DType result_type(const Tensor& a, const Tensor& b);
DType result_type(const Tensor& a, Scalar b);

// ---- reductions (src/ops/reduce.cpp) --------------------------------------------------
// An empty `dims` reduces over all dims.
Tensor sum(const Tensor& t, IntList dims = {}, bool keepdim = false,
           std::optional<DType> dtype = std::nullopt);
Tensor mean(const Tensor& t, IntList dims = {}, bool keepdim = false);
Tensor prod(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor amax(const Tensor& t, IntList dims = {}, bool keepdim = false);
Tensor amin(const Tensor& t, IntList dims = {}, bool keepdim = false);
std::pair<Tensor, Tensor> max(const Tensor& t, int64_t dim,
                              bool keepdim = false);  // values, indices
std::pair<Tensor, Tensor> min(const Tensor& t, int64_t dim, bool keepdim = false);
Tensor max(const Tensor& t);  // over all elements
Tensor min(const Tensor& t);
Tensor argmax(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor var(const Tensor& t, IntList dims = {}, double correction = 1, bool keepdim = false);
Tensor std(const Tensor& t, IntList dims = {}, double correction = 1, bool keepdim = false);
// p = 2 (Frobenius/Euclidean), 1, inf, -inf, 0 or any other p > 0.
Tensor norm(const Tensor& t, double p = 2, IntList dims = {}, bool keepdim = false);
Tensor logsumexp(const Tensor& t, IntList dims, bool keepdim = false);
Tensor all(const Tensor& t, IntList dims = {}, bool keepdim = false);
Tensor any(const Tensor& t, IntList dims = {}, bool keepdim = false);
Tensor softmax(const Tensor& t, int64_t dim);
Tensor log_softmax(const Tensor& t, int64_t dim);

// ---- linear algebra (src/ops/linalg.cpp) -----------------------------------------------
Tensor matmul(const Tensor& a, const Tensor& b);  // 1-d, 2-d and batched with broadcasting
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& a, const Tensor& v);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor outer(const Tensor& a, const Tensor& b);
// beta * self + alpha * (a @ b), one BLAS call.
Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, Scalar beta = 1,
             Scalar alpha = 1);

// ---- indexing (src/ops/indexing.cpp) ---------------------------------------------------
// One entry of t[...]: an int, a slice, None, Ellipsis, or a tensor (bool mask or integers).
struct TensorIndex {
  enum class Kind : uint8_t { Int, Slice, None, Ellipsis, Tensor };
  Kind kind = Kind::None;
  int64_t value = 0;                   // Int
  std::optional<int64_t> start, stop;  // Slice
  int64_t step = 1;                    // Slice
  ember::Tensor tensor;                // Tensor
  static TensorIndex integer(int64_t v) { return make(Kind::Int, v); }
  static TensorIndex none() { return make(Kind::None); }
  static TensorIndex ellipsis() { return make(Kind::Ellipsis); }
  static TensorIndex sliced(std::optional<int64_t> b, std::optional<int64_t> e, int64_t s = 1) {
    TensorIndex i = make(Kind::Slice);
    i.start = b;
    i.stop = e;
    i.step = s;
    return i;
  }
  static TensorIndex of(ember::Tensor t) {
    TensorIndex i = make(Kind::Tensor);
    i.tensor = std::move(t);
    return i;
  }

 private:
  static TensorIndex make(Kind k, int64_t v = 0) {
    TensorIndex i;
    i.kind = k;
    i.value = v;
    return i;
  }
};
// A recording keeps an index list's tensors by position (include/ember/record.h).
namespace capture {
template <>
struct Kept<std::vector<TensorIndex>> {
  std::vector<TensorIndex> v;
  std::vector<size_t> at;  // input position of each tensor entry
  Kept(const std::vector<TensorIndex>& x, std::vector<Tensor>& in) : v(x) {
    for (TensorIndex& i : v) {
      at.push_back(in.size());
      if (i.kind == TensorIndex::Kind::Tensor) {
        in.push_back(i.tensor);
        i.tensor = Tensor();
      }
    }
  }
  std::vector<TensorIndex>& get(std::vector<Tensor>& in) {
    for (size_t k = 0; k < v.size(); ++k)
      if (v[k].kind == TensorIndex::Kind::Tensor) v[k].tensor = in[at[k]];
    return v;
  }
};
}  // namespace capture
Tensor index(const Tensor& t, const std::vector<TensorIndex>& indices);  // t[...]
Tensor& index_put_(Tensor& t, const std::vector<TensorIndex>& indices, const Tensor& value);
Tensor& index_put_(Tensor& t, const std::vector<TensorIndex>& indices, Scalar value);
// accumulate: t[indices] += value, duplicates adding up (what the backward of t[idx] needs).
Tensor& index_put_(Tensor& t, const std::vector<TensorIndex>& indices, const Tensor& value,
                   bool accumulate);
Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& t, int64_t dim, const Tensor& index);
Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, Scalar value);
Tensor& scatter_(Tensor& t, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_(Tensor& t, int64_t dim, const Tensor& index, Scalar value);
Tensor scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_add_(Tensor& t, int64_t dim, const Tensor& index, const Tensor& src);
// gather along `dim` after broadcasting t and indices (all dims but `dim`); without a
// dim, over the flattened tensor.
Tensor take_along_dim(const Tensor& t, const Tensor& indices,
                      std::optional<int64_t> dim = std::nullopt);
Tensor nonzero(const Tensor& t);  // (n, ndim) int64
Tensor masked_select(const Tensor& t, const Tensor& mask);

// ---- neural-network ops (src/ops/conv.cpp, src/ops/pool.cpp) ----------------------------
// Inputs are (N, C, H, W) or unbatched (C, H, W), as in torch.nn.functional. Every spatial
// argument (stride, padding, dilation, kernel_size) takes one value for both dims or a pair.
// weight: (out_channels, in_channels / groups, kH, kW); bias: (out_channels,) or undefined.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
              IntList stride = {1, 1}, IntList padding = {0, 0}, IntList dilation = {1, 1},
              int64_t groups = 1);
// (N, C, L) or (C, L) inputs, weight (out_channels, in_channels / groups, kernel_size): conv2d
// over a height of 1. Misuse raises ember::Error (RuntimeError, as torch's conv1d).
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
              IntList stride = {1}, IntList padding = {0}, IntList dilation = {1},
              int64_t groups = 1);
// torch's padding="valid" (none) and padding="same" (output size = input size, stride 1;
// an odd total padding puts the extra row / column after the input, as PyTorch does).
enum class PaddingMode { Valid, Same };
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
              PaddingMode padding, IntList dilation = {1, 1}, int64_t groups = 1);
// The transposed convolution without bias (callers add it): weight (in_channels,
// out_channels / groups, kH, kW), a 4-d floating input, output_padding < stride.
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, IntList stride = {1, 1},
                        IntList padding = {0, 0}, IntList output_padding = {0, 0},
                        int64_t groups = 1, IntList dilation = {1, 1});
// 3-d: inputs (N, C, D, H, W) or (C, D, H, W), weight (out_channels, in_channels / groups,
// kD, kH, kW), each spatial argument one value or a triple; misuse raises ember::Error
// (RuntimeError, as torch's conv3d).
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
              IntList stride = {1, 1, 1}, IntList padding = {0, 0, 0}, IntList dilation = {1, 1, 1},
              int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
              PaddingMode padding, IntList dilation = {1, 1, 1}, int64_t groups = 1);
// weight (in_channels, out_channels / groups, kD, kH, kW), a 5-d floating input.
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, IntList stride = {1, 1, 1},
                        IntList padding = {0, 0, 0}, IntList output_padding = {0, 0, 0},
                        int64_t groups = 1, IntList dilation = {1, 1, 1});
// stride = {} means stride = kernel_size.
Tensor max_pool2d(const Tensor& input, IntList kernel_size, IntList stride = {},
                  IntList padding = {0, 0}, IntList dilation = {1, 1}, bool ceil_mode = false);
// (values, int64 indices into each input plane's H * W elements).
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntList kernel_size,
                                                  IntList stride = {}, IntList padding = {0, 0},
                                                  IntList dilation = {1, 1},
                                                  bool ceil_mode = false);
// divisor_override, when set, replaces the window size as the divisor.
Tensor avg_pool2d(const Tensor& input, IntList kernel_size, IntList stride = {},
                  IntList padding = {0, 0}, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool2d(const Tensor& input, IntList output_size);
// The 3-d pools: (N, C, D, H, W) or (C, D, H, W) inputs, each spatial argument one value or
// a triple; indices are flat in each input volume's D * H * W elements. Misuse raises
// ember::Error (RuntimeError, as torch's).
Tensor max_pool3d(const Tensor& input, IntList kernel_size, IntList stride = {},
                  IntList padding = {0}, IntList dilation = {1}, bool ceil_mode = false);
std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, IntList kernel_size,
                                                  IntList stride = {}, IntList padding = {0},
                                                  IntList dilation = {1}, bool ceil_mode = false);
Tensor avg_pool3d(const Tensor& input, IntList kernel_size, IntList stride = {},
                  IntList padding = {0}, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool3d(const Tensor& input, IntList output_size);

// ---- scans, flips and triangles (src/ops/scan.cpp) -----------------------------------
// Integer and bool inputs give int64 results unless `dtype` says otherwise (as in torch).
Tensor cumsum(const Tensor& t, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor cumprod(const Tensor& t, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor& cumsum_(Tensor& t, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor& cumprod_(Tensor& t, int64_t dim, std::optional<DType> dtype = std::nullopt);
// The lower (upper) triangle of the last two dims; the rest is zeroed. diagonal > 0 keeps
// that many diagonals above (tril) / drops that many (triu).
Tensor tril(const Tensor& t, int64_t diagonal = 0);
Tensor triu(const Tensor& t, int64_t diagonal = 0);
Tensor& tril_(Tensor& t, int64_t diagonal = 0);
Tensor& triu_(Tensor& t, int64_t diagonal = 0);
Tensor flip(const Tensor& t, IntList dims);  // a copy, reversed along each of `dims`
// Rotates along each dim in `dims` by the matching shift; with no dims, over the
// flattened tensor (shifts must then hold one value).
Tensor roll(const Tensor& t, IntList shifts, IntList dims = {});

// ---- sorting (src/ops/sort.cpp) -----------------------------------------------------------
// (values, int64 indices). NaN sorts as the largest value; equal values keep their order
// whether or not `stable` is asked for.
std::pair<Tensor, Tensor> sort(const Tensor& t, int64_t dim = -1, bool descending = false,
                               bool stable = false);
Tensor argsort(const Tensor& t, int64_t dim = -1, bool descending = false, bool stable = false);
// The k largest (smallest) along dim, always in sorted order.
std::pair<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim = -1, bool largest = true,
                               bool sorted = true);

// ---- special functions and fused arithmetic (src/ops/special.cpp) ---------------------
// sinh, cosh, asinh, acosh, atanh, erfinv, acos, asin, atan, log10, exp2 and their in-place
// forms: floating results (integer inputs compute in float32), listed in ops.def.
#define EMBER_SPECIAL_UNARY(name, Enum) \
  Tensor name(const Tensor& a);         \
  Tensor& name##_(Tensor& a);
#include "ember/ops.def"
#undef EMBER_SPECIAL_UNARY
// Bool results; integer and bool inputs are always finite.
Tensor isnan(const Tensor& a);
Tensor isinf(const Tensor& a);
Tensor isposinf(const Tensor& a);
Tensor isneginf(const Tensor& a);
Tensor isfinite(const Tensor& a);
// start + weight * (end - start), floating tensors of one dtype.
Tensor lerp(const Tensor& start, const Tensor& end, Scalar weight);
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
Tensor& lerp_(Tensor& self, const Tensor& end, Scalar weight);
Tensor& lerp_(Tensor& self, const Tensor& end, const Tensor& weight);
// self + value * t1 * t2 and self + value * t1 / t2, broadcast.
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value = 1);
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value = 1);
Tensor& addcmul_(Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value = 1);
Tensor& addcdiv_(Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value = 1);

// ---- the gamma, Bessel and error-function families (src/ops/special_functions.cpp) --
// Floating results (integer inputs compute in float32); PyTorch's values at poles and edges.
Tensor lgamma(const Tensor& a);
Tensor digamma(const Tensor& a);
Tensor polygamma(int64_t n, const Tensor& a);  // n >= 0
Tensor mvlgamma(const Tensor& a, int64_t p);   // multivariate log-gamma, p >= 1
Tensor erfc(const Tensor& a);
Tensor i0(const Tensor& a);
Tensor sinc(const Tensor& a);  // sin(pi x) / (pi x), 1 at 0
Tensor logit(const Tensor& a, std::optional<double> eps = std::nullopt);
Tensor special_erfcx(const Tensor& a);  // exp(x^2) erfc(x)
Tensor special_i1(const Tensor& a);
Tensor special_ndtr(const Tensor& a);   // the standard normal CDF
Tensor special_ndtri(const Tensor& a);  // its inverse
Tensor special_log_ndtr(const Tensor& a);
Tensor special_i0e(const Tensor& a);  // exp(-|x|) i0(x)
Tensor special_i1e(const Tensor& a);
Tensor special_entr(const Tensor& a);       // -x log x
Tensor special_bessel_j0(const Tensor& a);  // not differentiable, as torch
Tensor special_bessel_j1(const Tensor& a);
Tensor special_bessel_y0(const Tensor& a);  // these too: no gradient, as torch
Tensor special_bessel_y1(const Tensor& a);
Tensor special_modified_bessel_k0(const Tensor& a);
Tensor special_modified_bessel_k1(const Tensor& a);
Tensor special_scaled_modified_bessel_k0(const Tensor& a);  // exp(x) K0(x)
Tensor special_scaled_modified_bessel_k1(const Tensor& a);
Tensor special_spherical_bessel_j0(const Tensor& a);  // sin(x) / x
Tensor special_airy_ai(const Tensor& a);
// The regularized lower / upper incomplete gamma functions P(a, x), Q(a, x); gradient in x only.
Tensor igamma(const Tensor& a, const Tensor& x);
Tensor igammac(const Tensor& a, const Tensor& x);
Tensor& igamma_(Tensor& a, const Tensor& x);
Tensor& igammac_(Tensor& a, const Tensor& x);
Tensor& lgamma_(Tensor& a);
Tensor& digamma_(Tensor& a);
Tensor& polygamma_(Tensor& a, int64_t n);
Tensor& mvlgamma_(Tensor& a, int64_t p);
Tensor& erfc_(Tensor& a);
Tensor& i0_(Tensor& a);
Tensor& sinc_(Tensor& a);
Tensor& logit_(Tensor& a, std::optional<double> eps = std::nullopt);
// x * log(y) and x * log1p(y), broadcast; 0 where x == 0 (unless y is NaN).
Tensor xlogy(const Tensor& x, const Tensor& y);
Tensor xlogy(const Tensor& x, Scalar y);
Tensor xlogy(Scalar x, const Tensor& y);
Tensor& xlogy_(Tensor& x, const Tensor& y);
Tensor& xlogy_(Tensor& x, Scalar y);
Tensor special_xlog1py(const Tensor& x, const Tensor& y);
Tensor special_xlog1py(const Tensor& x, Scalar y);
Tensor special_xlog1py(Scalar x, const Tensor& y);

// ---- sampling (src/ops/random.cpp); `gen` null: the default generator -------------------
Tensor bernoulli(const Tensor& p, Generator* gen = nullptr);               // 1 with probability p
Tensor bernoulli(const Tensor& self, double p, Generator* gen = nullptr);  // self's shape and dtype
Tensor& bernoulli_(Tensor& t, double p = 0.5, Generator* gen = nullptr);
Tensor& bernoulli_(Tensor& t, const Tensor& p, Generator* gen = nullptr);
// Category indices (int64), num_samples per row of a 1-d or 2-d tensor of weights.
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = false,
                   Generator* gen = nullptr);
// mean + std * N(0, 1), broadcast; differentiable in mean and std.
Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen = nullptr);
Tensor normal(const Tensor& mean, double std = 1.0, Generator* gen = nullptr);
Tensor normal(double mean, const Tensor& std, Generator* gen = nullptr);
Tensor normal(double mean, double std, IntList size, DType dtype = default_dtype(),
              Generator* gen = nullptr);
Tensor poisson(const Tensor& rates, Generator* gen = nullptr);
Tensor binomial(const Tensor& count, const Tensor& prob, Generator* gen = nullptr);
// Gamma(alpha, 1) with torch's reparameterized gradient (_standard_gamma_grad).
Tensor _standard_gamma(const Tensor& alpha, Generator* gen = nullptr);
Tensor _standard_gamma_grad(const Tensor& alpha, const Tensor& output);
Tensor _sample_dirichlet(const Tensor& alpha, Generator* gen = nullptr);  // along the last dim
Tensor& exponential_(Tensor& t, double lambd = 1.0, Generator* gen = nullptr);
Tensor& geometric_(Tensor& t, double p, Generator* gen = nullptr);
Tensor& cauchy_(Tensor& t, double median = 0.0, double sigma = 1.0, Generator* gen = nullptr);
Tensor& log_normal_(Tensor& t, double mean = 1.0, double std = 2.0, Generator* gen = nullptr);
// Integers in [from, to); no `to`: up to the dtype's largest exact integer.
Tensor& random_(Tensor& t, int64_t from = 0, std::optional<int64_t> to = std::nullopt,
                Generator* gen = nullptr);

// ---- threads (src/kernels/cpu/parallel.cpp) --------------------------------------------
int get_num_threads();
void set_num_threads(int n);  // ember's loops and BLAS: one pool

}  // namespace ember
