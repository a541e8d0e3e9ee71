// PyTorch's C++ names over ember, so a C++ extension written for PyTorch compiles against
// ember (ember.utils.cpp_extension puts include/ember/compat on the include path; docs/cpp.md
// lists what is here and what is not). at::Tensor is an ember::Tensor with torch's methods
// and operators; every function here returns at::Tensor, so `auto` keeps them; torch:: holds
// the same names, as in PyTorch.
//
//   #include <torch/torch.h>
//   torch::Tensor d_sigmoid(torch::Tensor z) {
//     auto s = torch::sigmoid(z);
//     return (1 - s) * s;
//   }
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <ember/custom_function.h>
#include <ember/ember.h>

namespace at {

using ScalarType = ember::DType;
using Scalar = ember::Scalar;
using IntArrayRef = ember::IntList;

inline constexpr ScalarType kBool = ember::DType::Bool;
inline constexpr ScalarType kByte = ember::DType::UInt8;
inline constexpr ScalarType kUInt8 = ember::DType::UInt8;
inline constexpr ScalarType kUInt16 = ember::DType::UInt16;
inline constexpr ScalarType kUInt32 = ember::DType::UInt32;
inline constexpr ScalarType kUInt64 = ember::DType::UInt64;
inline constexpr ScalarType kChar = ember::DType::Int8;
inline constexpr ScalarType kInt8 = ember::DType::Int8;
inline constexpr ScalarType kShort = ember::DType::Int16;
inline constexpr ScalarType kInt16 = ember::DType::Int16;
inline constexpr ScalarType kInt = ember::DType::Int32;
inline constexpr ScalarType kInt32 = ember::DType::Int32;
inline constexpr ScalarType kLong = ember::DType::Int64;
inline constexpr ScalarType kInt64 = ember::DType::Int64;
inline constexpr ScalarType kFloat = ember::DType::Float32;
inline constexpr ScalarType kFloat32 = ember::DType::Float32;
inline constexpr ScalarType kDouble = ember::DType::Float64;
inline constexpr ScalarType kFloat64 = ember::DType::Float64;
inline constexpr ScalarType kComplexFloat = ember::DType::Complex64;
inline constexpr ScalarType kComplexDouble = ember::DType::Complex128;

// ember runs on the CPU only: kCPU is the one device.
enum class DeviceType { CPU };
inline constexpr DeviceType kCPU = DeviceType::CPU;
struct Device {
  Device(DeviceType type = kCPU) : type_(type) {}
  DeviceType type() const { return type_; }
  bool is_cpu() const { return true; }
  bool is_cuda() const { return false; }

 private:
  DeviceType type_;
};

// What a new tensor is made with: its dtype (float32 by default) and requires_grad.
class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType dtype) : dtype_(dtype) {}
  TensorOptions(DeviceType) {}
  TensorOptions(Device) {}
  TensorOptions dtype(ScalarType d) const {
    TensorOptions o = *this;
    o.dtype_ = d;
    return o;
  }
  TensorOptions device(Device) const { return *this; }
  TensorOptions requires_grad(bool on) const {
    TensorOptions o = *this;
    o.requires_grad_ = on;
    return o;
  }
  ScalarType dtype() const { return dtype_.value_or(kFloat); }
  bool has_dtype() const { return dtype_.has_value(); }
  bool requires_grad() const { return requires_grad_; }

 private:
  std::optional<ScalarType> dtype_;
  bool requires_grad_ = false;
};
inline TensorOptions dtype(ScalarType d) { return TensorOptions(d); }
inline TensorOptions device(Device d) { return TensorOptions(d); }
inline TensorOptions requires_grad(bool on = true) { return TensorOptions().requires_grad(on); }

class Tensor;
using TensorList = std::vector<Tensor>;

namespace detail {
// ember's results as torch's types: Tensor -> at::Tensor, a vector of them -> a vector of
// at::Tensor, a (values, indices) pair -> std::tuple, anything else unchanged.
template <class R>
auto wrap(R&& r);
std::vector<Tensor> wrap_list(const std::vector<ember::Tensor>& ts);
std::tuple<Tensor, Tensor> wrap_pair(const std::pair<ember::Tensor, ember::Tensor>& p);
std::vector<ember::Tensor> unwrap(const std::vector<Tensor>& ts);
}  // namespace detail

class Tensor : public ember::Tensor {
 public:
  Tensor() = default;
  Tensor(ember::Tensor t) : ember::Tensor(std::move(t)) {}  // every ember result converts

  // ---- what it is
  int64_t ndimension() const { return dim(); }
  ScalarType scalar_type() const { return dtype(); }
  TensorOptions options() const { return TensorOptions(dtype()); }
  Device device() const { return Device(); }
  bool is_cpu() const { return true; }
  bool is_cuda() const { return false; }
  bool is_floating_point() const { return ember::is_floating(dtype()); }
  int64_t element_size() const { return int64_t(itemsize()); }
  int64_t nbytes() const { return numel() * element_size(); }
  // The data as T*: T must be the tensor's dtype (torch's check).
  template <class T>
  T* data_ptr() const {
    EMBER_CHECK(ember::dtype_of<T>::value == dtype(), Error, "data_ptr: expected scalar type ",
                ember::dtype_name(ember::dtype_of<T>::value), " but found ",
                ember::dtype_name(dtype()));
    return ember::Tensor::data<T>();
  }
  void* data_ptr() const { return ember::Tensor::data_ptr(); }
  template <class T>
  T item() const {
    return ember::Tensor::item().to<T>();
  }
  Scalar item() const { return ember::Tensor::item(); }

  // ---- autograd
  bool requires_grad() const { return ember::autograd::requires_grad(*this); }
  Tensor& requires_grad_(bool on = true) {
    ember::autograd::set_requires_grad(*this, on);
    return *this;
  }
  bool is_leaf() const { return ember::autograd::is_leaf(*this); }
  Tensor grad() const { return ember::autograd::grad(*this); }
  void backward() const { ember::autograd::backward(*this); }
  Tensor detach() const { return ember::detach(*this); }

  // ---- copies and dtype
  Tensor contiguous() const { return ember::contiguous(*this); }
  Tensor clone() const { return ember::clone(*this); }
  Tensor to(ScalarType d) const { return ember::to_dtype(*this, d); }
  Tensor to(TensorOptions o) const { return o.has_dtype() ? to(o.dtype()) : *this; }
  Tensor toType(ScalarType d) const { return to(d); }
  Tensor type_as(const Tensor& other) const { return to(other.dtype()); }
  Tensor cpu() const { return *this; }
  Tensor& copy_(const Tensor& src) {
    ember::copy_(*this, src);
    return *this;
  }
  Tensor& fill_(Scalar v) {
    ember::fill_(*this, v);
    return *this;
  }
  Tensor& zero_() {
    ember::zero_(*this);
    return *this;
  }

  // ---- views and shape
  Tensor view(IntArrayRef shape) const { return ember::view(*this, shape); }
  Tensor reshape(IntArrayRef shape) const { return ember::reshape(*this, shape); }
  Tensor view_as(const Tensor& o) const { return view(o.sizes()); }
  Tensor reshape_as(const Tensor& o) const { return reshape(o.sizes()); }
  Tensor flatten(int64_t start = 0, int64_t end = -1) const {
    return ember::flatten(*this, start, end);
  }
  Tensor squeeze() const { return ember::squeeze(*this); }
  Tensor squeeze(int64_t d) const { return ember::squeeze(*this, {d}); }
  Tensor unsqueeze(int64_t d) const { return ember::unsqueeze(*this, d); }
  Tensor transpose(int64_t d0, int64_t d1) const { return ember::transpose(*this, d0, d1); }
  Tensor t() const { return ember::t(*this); }
  Tensor permute(IntArrayRef dims) const { return ember::permute(*this, dims); }
  Tensor expand(IntArrayRef shape) const { return ember::expand(*this, shape); }
  Tensor expand_as(const Tensor& o) const { return expand(o.sizes()); }
  Tensor narrow(int64_t d, int64_t start, int64_t length) const {
    return ember::narrow(*this, d, start, length);
  }
  Tensor select(int64_t d, int64_t index) const { return ember::select(*this, d, index); }
  Tensor slice(int64_t d = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const {
    return ember::slice(*this, d, start, end, step);
  }
  Tensor operator[](int64_t i) const { return select(0, i); }
  std::vector<Tensor> chunk(int64_t n, int64_t d = 0) const {
    return detail::wrap_list(ember::chunk(*this, n, d));
  }
  std::vector<Tensor> split(int64_t size, int64_t d = 0) const {
    return detail::wrap_list(ember::split(*this, size, d));
  }
  std::vector<Tensor> unbind(int64_t d = 0) const {
    return detail::wrap_list(ember::unbind(*this, d));
  }
  Tensor index_select(int64_t d, const Tensor& index) const {
    return ember::index_select(*this, d, index);
  }
  Tensor gather(int64_t d, const Tensor& index) const { return ember::gather(*this, d, index); }
  Tensor diagonal(int64_t offset = 0, int64_t d1 = 0, int64_t d2 = 1) const {
    return ember::diagonal(*this, offset, d1, d2);
  }

  // ---- elementwise (ember/ops.def lists them)
#define EMBER_UNARY(name, Enum, kind)                \
  Tensor name() const { return ember::name(*this); } \
  Tensor& name##_() {                                \
    ember::name##_(*this);                           \
    return *this;                                    \
  }
#include <ember/ops.def>
#undef EMBER_UNARY
#define EMBER_BINARY(name, Enum, kind)                                 \
  Tensor name(const Tensor& o) const { return ember::name(*this, o); } \
  Tensor name(Scalar o) const { return ember::name(*this, o); }        \
  Tensor& name##_(const Tensor& o) {                                   \
    ember::name##_(*this, o);                                          \
    return *this;                                                      \
  }                                                                    \
  Tensor& name##_(Scalar o) {                                          \
    ember::name##_(*this, o);                                          \
    return *this;                                                      \
  }
#include <ember/ops.def>
#undef EMBER_BINARY
#define EMBER_COMPARE(name, Enum)                                      \
  Tensor name(const Tensor& o) const { return ember::name(*this, o); } \
  Tensor name(Scalar o) const { return ember::name(*this, o); }
#include <ember/ops.def>
#undef EMBER_COMPARE
  Tensor add(const Tensor& o, Scalar alpha) const { return ember::add(*this, o, alpha); }
  Tensor sub(const Tensor& o, Scalar alpha) const { return ember::sub(*this, o, alpha); }
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const {
    return ember::clamp(*this, min, max);
  }
  Tensor clamp_min(Scalar min) const { return clamp(min); }
  Tensor clamp_max(Scalar max) const { return clamp(std::nullopt, max); }
  Tensor masked_fill(const Tensor& mask, Scalar v) const {
    return ember::masked_fill(*this, mask, v);
  }
  Tensor logical_not() const { return ember::logical_not(*this); }

  // ---- reductions
  Tensor sum() const { return ember::sum(*this); }
  Tensor sum(int64_t d, bool keepdim = false) const { return ember::sum(*this, {d}, keepdim); }
  Tensor sum(IntArrayRef dims, bool keepdim = false) const {
    return ember::sum(*this, dims, keepdim);
  }
  Tensor mean() const { return ember::mean(*this); }
  Tensor mean(int64_t d, bool keepdim = false) const { return ember::mean(*this, {d}, keepdim); }
  Tensor mean(IntArrayRef dims, bool keepdim = false) const {
    return ember::mean(*this, dims, keepdim);
  }
  Tensor max() const { return ember::max(*this); }
  Tensor min() const { return ember::min(*this); }
  std::tuple<Tensor, Tensor> max(int64_t d, bool keepdim = false) const {
    return detail::wrap_pair(ember::max(*this, d, keepdim));
  }
  std::tuple<Tensor, Tensor> min(int64_t d, bool keepdim = false) const {
    return detail::wrap_pair(ember::min(*this, d, keepdim));
  }
  Tensor argmax(std::optional<int64_t> d = std::nullopt, bool keepdim = false) const {
    return ember::argmax(*this, d, keepdim);
  }
  Tensor argmin(std::optional<int64_t> d = std::nullopt, bool keepdim = false) const {
    return ember::argmin(*this, d, keepdim);
  }
  Tensor norm(double p = 2) const { return ember::norm(*this, p); }
  Tensor softmax(int64_t d) const { return ember::softmax(*this, d); }
  Tensor log_softmax(int64_t d) const { return ember::log_softmax(*this, d); }

  // ---- linear algebra
  Tensor mm(const Tensor& o) const { return ember::mm(*this, o); }
  Tensor matmul(const Tensor& o) const { return ember::matmul(*this, o); }
  Tensor bmm(const Tensor& o) const { return ember::bmm(*this, o); }
  Tensor mv(const Tensor& o) const { return ember::mv(*this, o); }
  Tensor dot(const Tensor& o) const { return ember::dot(*this, o); }
  Tensor addmm(const Tensor& a, const Tensor& b, Scalar beta = 1, Scalar alpha = 1) const {
    return ember::addmm(*this, a, b, beta, alpha);
  }
};

namespace detail {
template <class R>
auto wrap(R&& r) {
  using T = std::decay_t<R>;
  if constexpr (std::is_same_v<T, ember::Tensor>) {
    return Tensor(std::forward<R>(r));
  } else if constexpr (std::is_same_v<T, std::vector<ember::Tensor>>) {
    return wrap_list(r);
  } else if constexpr (std::is_same_v<T, std::pair<ember::Tensor, ember::Tensor>>) {
    return wrap_pair(r);
  } else {
    return T(std::forward<R>(r));
  }
}
inline std::vector<Tensor> wrap_list(const std::vector<ember::Tensor>& ts) {
  return std::vector<Tensor>(ts.begin(), ts.end());
}
inline std::tuple<Tensor, Tensor> wrap_pair(const std::pair<ember::Tensor, ember::Tensor>& p) {
  return {p.first, p.second};
}
inline std::vector<ember::Tensor> unwrap(const std::vector<Tensor>& ts) {
  return std::vector<ember::Tensor>(ts.begin(), ts.end());
}
inline Tensor made(ember::Tensor t, const TensorOptions& o) {
  if (o.requires_grad()) ember::autograd::set_requires_grad(t, true);
  return t;
}
}  // namespace detail

// ---- operators (torch's: a tensor or a number on either side)
#define EMBER_AT_OPERATOR(op, fn)                                                         \
  inline Tensor operator op(const Tensor& a, const Tensor& b) { return ember::fn(a, b); } \
  inline Tensor operator op(const Tensor& a, Scalar b) { return ember::fn(a, b); }        \
  inline Tensor operator op(Scalar a, const Tensor& b) { return ember::fn(a, b); }        \
  inline Tensor& operator op##=(Tensor& a, const Tensor& b) {                             \
    ember::fn##_(a, b);                                                                   \
    return a;                                                                             \
  }                                                                                       \
  inline Tensor& operator op##=(Tensor& a, Scalar b) {                                    \
    ember::fn##_(a, b);                                                                   \
    return a;                                                                             \
  }
EMBER_AT_OPERATOR(+, add)
EMBER_AT_OPERATOR(-, sub)
EMBER_AT_OPERATOR(*, mul)
EMBER_AT_OPERATOR(/, div)
#undef EMBER_AT_OPERATOR
inline Tensor operator-(const Tensor& a) { return ember::neg(a); }
#define EMBER_AT_COMPARISON(op, fn)                                                       \
  inline Tensor operator op(const Tensor& a, const Tensor& b) { return ember::fn(a, b); } \
  inline Tensor operator op(const Tensor& a, Scalar b) { return ember::fn(a, b); }
EMBER_AT_COMPARISON(<, lt)
EMBER_AT_COMPARISON(<=, le)
EMBER_AT_COMPARISON(>, gt)
EMBER_AT_COMPARISON(>=, ge)
EMBER_AT_COMPARISON(==, eq)
EMBER_AT_COMPARISON(!=, ne)
#undef EMBER_AT_COMPARISON
// A number on the left of a comparison flips it (2 < t is t > 2).
inline Tensor operator<(Scalar a, const Tensor& b) { return ember::gt(b, a); }
inline Tensor operator<=(Scalar a, const Tensor& b) { return ember::ge(b, a); }
inline Tensor operator>(Scalar a, const Tensor& b) { return ember::lt(b, a); }
inline Tensor operator>=(Scalar a, const Tensor& b) { return ember::le(b, a); }
inline Tensor operator~(const Tensor& a) { return ember::logical_not(a); }
inline Tensor operator&(const Tensor& a, const Tensor& b) { return ember::bitwise_and(a, b); }
inline Tensor operator|(const Tensor& a, const Tensor& b) { return ember::bitwise_or(a, b); }
inline Tensor operator^(const Tensor& a, const Tensor& b) { return ember::bitwise_xor(a, b); }

// ---- functions that take a list (braced lists cannot go through the forwarders below)
inline Tensor cat(const TensorList& ts, int64_t d = 0) { return ember::cat(detail::unwrap(ts), d); }
inline Tensor stack(const TensorList& ts, int64_t d = 0) {
  return ember::stack(detail::unwrap(ts), d);
}
inline Tensor sum(const Tensor& t, IntArrayRef dims, bool keepdim = false) {
  return ember::sum(t, dims, keepdim);
}
inline Tensor sum(const Tensor& t, int64_t d, bool keepdim = false) {
  return ember::sum(t, {d}, keepdim);
}
inline Tensor sum(const Tensor& t) { return ember::sum(t); }
inline Tensor mean(const Tensor& t, IntArrayRef dims, bool keepdim = false) {
  return ember::mean(t, dims, keepdim);
}
inline Tensor mean(const Tensor& t, int64_t d, bool keepdim = false) {
  return ember::mean(t, {d}, keepdim);
}
inline Tensor mean(const Tensor& t) { return ember::mean(t); }
inline Tensor reshape(const Tensor& t, IntArrayRef shape) { return ember::reshape(t, shape); }
inline Tensor permute(const Tensor& t, IntArrayRef dims) { return ember::permute(t, dims); }

// ---- creation (TensorOptions: dtype, requires_grad)
#define EMBER_AT_CREATION(name)                                                               \
  inline Tensor name(IntArrayRef size, TensorOptions o = {}) {                                \
    return detail::made(ember::name(size, o.dtype()), o);                                     \
  }                                                                                           \
  inline Tensor name##_like(const Tensor& t, std::optional<TensorOptions> o = std::nullopt) { \
    TensorOptions opts = o ? *o : t.options();                                                \
    return detail::made(ember::name(t.sizes(), opts.has_dtype() ? opts.dtype() : t.dtype()),  \
                        opts);                                                                \
  }
EMBER_AT_CREATION(zeros)
EMBER_AT_CREATION(ones)
EMBER_AT_CREATION(empty)
EMBER_AT_CREATION(rand)
EMBER_AT_CREATION(randn)
#undef EMBER_AT_CREATION
inline Tensor full(IntArrayRef size, Scalar v, TensorOptions o = {}) {
  return detail::made(ember::full(size, v, o.has_dtype() ? std::optional(o.dtype()) : std::nullopt),
                      o);
}
inline Tensor full_like(const Tensor& t, Scalar v) { return ember::full(t.sizes(), v, t.dtype()); }
inline Tensor arange(Scalar end, TensorOptions o = {}) {
  return detail::made(ember::arange(0, end, 1,
                                    o.has_dtype() ? std::optional(o.dtype()) : std::nullopt),
                      o);
}
inline Tensor arange(Scalar start, Scalar end, TensorOptions o = {}) {
  return detail::made(ember::arange(start, end, 1,
                                    o.has_dtype() ? std::optional(o.dtype()) : std::nullopt),
                      o);
}
inline Tensor arange(Scalar start, Scalar end, Scalar step, TensorOptions o = {}) {
  return detail::made(ember::arange(start, end, step,
                                    o.has_dtype() ? std::optional(o.dtype()) : std::nullopt),
                      o);
}
inline Tensor eye(int64_t n, TensorOptions o = {}) {
  return detail::made(ember::eye(n, -1, o.dtype()), o);
}
inline Tensor randint(int64_t low, int64_t high, IntArrayRef size,
                      TensorOptions o = TensorOptions(kLong)) {
  return detail::made(ember::randint(low, high, size, o.dtype()), o);
}
// A tensor over memory the caller owns and keeps alive (contiguous), as torch::from_blob.
inline Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions o = {}) {
  std::vector<int64_t> strides(sizes.size());
  int64_t n = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = n;
    n *= sizes[i];
  }
  return ember::Tensor::from_blob(
      data, sizes, strides, o.dtype(), [](void*) {}, nullptr,
      size_t(n) * ember::itemsize(o.dtype()));
}
inline void manual_seed(uint64_t seed) { ember::manual_seed(seed); }

// ---- composites torch has as ops
inline Tensor elu(const Tensor& x, Scalar alpha = 1.0) {
  // x for x > 0, alpha * (exp(x) - 1) otherwise; expm1 only sees the non-positive part.
  return ember::add(ember::relu(x),
                    ember::mul(ember::expm1(ember::clamp(x, std::nullopt, Scalar(0.0))), alpha));
}
inline Tensor clamp(const Tensor& x, std::optional<Scalar> min,
                    std::optional<Scalar> max = std::nullopt) {
  return ember::clamp(x, min, max);
}

// ---- everything else: ember's function of the same name, with at::Tensor results
#define EMBER_AT_FORWARD(name)                                                      \
  template <class... A>                                                             \
  auto name(A&&... a)->decltype(detail::wrap(ember::name(std::forward<A>(a)...))) { \
    return detail::wrap(ember::name(std::forward<A>(a)...));                        \
  }
#define EMBER_UNARY(name, Enum, kind) EMBER_AT_FORWARD(name) EMBER_AT_FORWARD(name##_)
#define EMBER_BINARY(name, Enum, kind) EMBER_AT_FORWARD(name) EMBER_AT_FORWARD(name##_)
#define EMBER_COMPARE(name, Enum) EMBER_AT_FORWARD(name)
#include <ember/ops.def>
#undef EMBER_UNARY
#undef EMBER_BINARY
#undef EMBER_COMPARE
EMBER_AT_FORWARD(addmm)
EMBER_AT_FORWARD(mm)
EMBER_AT_FORWARD(matmul)
EMBER_AT_FORWARD(bmm)
EMBER_AT_FORWARD(mv)
EMBER_AT_FORWARD(dot)
EMBER_AT_FORWARD(outer)
EMBER_AT_FORWARD(where)
EMBER_AT_FORWARD(masked_fill)
EMBER_AT_FORWARD(transpose)
EMBER_AT_FORWARD(t)
EMBER_AT_FORWARD(unsqueeze)
EMBER_AT_FORWARD(squeeze)
EMBER_AT_FORWARD(flatten)
EMBER_AT_FORWARD(narrow)
EMBER_AT_FORWARD(select)
EMBER_AT_FORWARD(chunk)
EMBER_AT_FORWARD(split)
EMBER_AT_FORWARD(unbind)
EMBER_AT_FORWARD(index_select)
EMBER_AT_FORWARD(gather)
EMBER_AT_FORWARD(softmax)
EMBER_AT_FORWARD(log_softmax)
EMBER_AT_FORWARD(max)
EMBER_AT_FORWARD(min)
EMBER_AT_FORWARD(argmax)
EMBER_AT_FORWARD(argmin)
EMBER_AT_FORWARD(cumsum)
EMBER_AT_FORWARD(tril)
EMBER_AT_FORWARD(triu)
EMBER_AT_FORWARD(sinh)
EMBER_AT_FORWARD(cosh)
EMBER_AT_FORWARD(linear)
EMBER_AT_FORWARD(gelu)
EMBER_AT_FORWARD(silu)
EMBER_AT_FORWARD(hardswish)
EMBER_AT_FORWARD(softplus)
EMBER_AT_FORWARD(leaky_relu)
EMBER_AT_FORWARD(dropout)
EMBER_AT_FORWARD(detach)
EMBER_AT_FORWARD(clone)
EMBER_AT_FORWARD(contiguous)
#undef EMBER_AT_FORWARD

}  // namespace at

namespace at::detail {
template <class... A>
std::string check_message(const char* cond, const A&... message) {
  if constexpr (sizeof...(A) == 0)
    return ember::detail::cat("Expected ", cond, " to be true, but got false.");
  else return ember::detail::cat(message...);
}
}  // namespace at::detail

// TORCH_CHECK(cond, "message ", value, ...): throws RuntimeError (ember::Error) when cond is
// false, with the message (or, without one, torch's "Expected cond to be true").
#define TORCH_CHECK(cond, ...)                                                             \
  do {                                                                                     \
    if (!(cond)) [[unlikely]]                                                              \
      throw ::ember::Error(::at::detail::check_message(#cond __VA_OPT__(, ) __VA_ARGS__)); \
  } while (0)
#define TORCH_INTERNAL_ASSERT(cond, ...) TORCH_CHECK(cond __VA_OPT__(, ) __VA_ARGS__)

// AT_DISPATCH_FLOATING_TYPES(t.scalar_type(), "op", [&] { ... scalar_t ... }): runs the lambda
// with scalar_t = float or double; other dtypes raise RuntimeError naming the op.
#define EMBER_AT_DISPATCH_CASE(enum_value, type, ...) \
  case enum_value: {                                  \
    using scalar_t [[maybe_unused]] = type;           \
    return __VA_ARGS__();                             \
  }
#define EMBER_AT_DISPATCH_FAIL(TYPE, NAME)                                           \
  default:                                                                           \
    throw ::ember::Error(::ember::detail::cat('"', NAME, "\" not implemented for '", \
                                              ::ember::dtype_name(TYPE), "'"))
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)              \
  [&] {                                                          \
    switch (TYPE) {                                              \
      EMBER_AT_DISPATCH_CASE(::at::kFloat, float, __VA_ARGS__)   \
      EMBER_AT_DISPATCH_CASE(::at::kDouble, double, __VA_ARGS__) \
      EMBER_AT_DISPATCH_FAIL(TYPE, NAME);                        \
    }                                                            \
  }()
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...)                   \
  [&] {                                                          \
    switch (TYPE) {                                              \
      EMBER_AT_DISPATCH_CASE(::at::kByte, uint8_t, __VA_ARGS__)  \
      EMBER_AT_DISPATCH_CASE(::at::kChar, int8_t, __VA_ARGS__)   \
      EMBER_AT_DISPATCH_CASE(::at::kShort, int16_t, __VA_ARGS__) \
      EMBER_AT_DISPATCH_CASE(::at::kInt, int32_t, __VA_ARGS__)   \
      EMBER_AT_DISPATCH_CASE(::at::kLong, int64_t, __VA_ARGS__)  \
      EMBER_AT_DISPATCH_CASE(::at::kFloat, float, __VA_ARGS__)   \
      EMBER_AT_DISPATCH_CASE(::at::kDouble, double, __VA_ARGS__) \
      EMBER_AT_DISPATCH_FAIL(TYPE, NAME);                        \
    }                                                            \
  }()

namespace torch {
using namespace at;
using Dtype = at::ScalarType;
// torch::autograd: custom functions (ember/custom_function.h) whose forward and backward see
// at::Tensor. variable_list is what forward may return and backward takes and returns.
namespace autograd {
using Variable = at::Tensor;
using variable_list = std::vector<at::Tensor>;
using tensor_list = std::vector<at::Tensor>;
struct AutogradContext : ember::autograd::AutogradContext {
  void save_for_backward(const variable_list& ts) {
    ember::autograd::AutogradContext::save_for_backward(at::detail::unwrap(ts));
  }
  variable_list get_saved_variables() const {
    return at::detail::wrap(ember::autograd::AutogradContext::get_saved_variables());
  }
  void mark_non_differentiable(const variable_list& ts) {
    ember::autograd::AutogradContext::mark_non_differentiable(at::detail::unwrap(ts));
  }
};
template <class T>
using Function = ember::autograd::Function<T, AutogradContext>;
}  // namespace autograd
// torch::NoGradGuard, torch::AutoGradMode as in PyTorch.
using ember::AutoGradMode;
using ember::NoGradGuard;
}  // namespace torch
