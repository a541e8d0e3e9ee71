// Reductions and softmax as functions and methods, with PyTorch's argument forms:
// dim as None / int / tuple, keepdim, dtype=, var's unbiased/correction, norm's p='fro'.
#include <cmath>

#include "common.h"

namespace ember::py {
namespace {

using OptD = std::optional<DType>;

// var/std: PyTorch's overloads (dim, unbiased, keepdim) / (dim, *, correction, keepdim) /
// (unbiased) folded into one: a bool first argument is `unbiased`.
double correction_of(nb::handle& dim, std::optional<bool> unbiased, nb::handle correction,
                     const char* op) {
  if (PyBool_Check(dim.ptr())) {
    if (unbiased) throw TypeError(detail::cat(op, ": unbiased was given twice"));
    unbiased = dim.ptr() == Py_True;
    dim = nb::none();
  }
  if (correction.is_none()) return unbiased.value_or(true) ? 1.0 : 0.0;
  if (unbiased) throw TypeError(detail::cat(op, ": pass either unbiased or correction, not both"));
  Scalar c;
  if (!scalar_from_python(correction.ptr(), c) || c.is_bool())
    throw TypeError(detail::cat(op, ": correction must be a number"));
  return c.to_double();
}

// norm's p: a number (inf allowed), None or 'fro' (both 2). 'nuc' needs an SVD.
double norm_p(nb::handle p) {
  if (p.is_none()) return 2.0;
  if (PyUnicode_Check(p.ptr())) {
    std::string s = nb::cast<std::string>(p);
    if (s == "fro") return 2.0;
    if (s == "nuc") throw NotImplementedError("norm: the nuclear norm (p='nuc') is not supported");
    throw ValueError(detail::cat("norm: unknown norm type '", s, "'"));
  }
  Scalar v;
  if (!scalar_from_python(p.ptr(), v) || v.is_bool())
    throw TypeError("norm: p must be a number, 'fro' or None");
  return v.to_double();
}

Tensor cast_if(const Tensor& t, OptD dtype) { return dtype ? to_dtype(t, *dtype) : t; }

}  // namespace

void bind_reduce(nb::module_& m) {
  auto& cls = tensor_class();
  auto dim_none = nb::arg("dim") = nb::none();
  auto keepdim = nb::arg("keepdim") = false;
  auto dtype_none = nb::arg("dtype") = nb::none();

  def_both(
      m, cls, "sum",
      [](const Tensor& t, nb::handle dim, bool kd, OptD dtype) {
        return sum(t, dims_from(dim, "sum"), kd, dtype);
      },
      dim_none, keepdim, nb::kw_only(), dtype_none);
  def_both(
      m, cls, "mean",
      [](const Tensor& t, nb::handle dim, bool kd, OptD dtype) {
        return mean(cast_if(t, dtype), dims_from(dim, "mean"), kd);
      },
      dim_none, keepdim, nb::kw_only(), dtype_none);
  // prod(dtype=d) converts the input to d first, as sum does.
  def_both(
      m, cls, "prod",
      [](const Tensor& t, std::optional<int64_t> dim, bool kd, OptD dtype) {
        return cast_if(prod(cast_if(t, dtype), dim, kd), dtype);
      },
      dim_none, keepdim, nb::kw_only(), dtype_none);
  def_both(
      m, cls, "amax",
      [](const Tensor& t, nb::handle dim, bool kd) { return amax(t, dims_from(dim, "amax"), kd); },
      nb::arg("dim").none() = nb::tuple(), keepdim);
  def_both(
      m, cls, "amin",
      [](const Tensor& t, nb::handle dim, bool kd) { return amin(t, dims_from(dim, "amin"), kd); },
      nb::arg("dim").none() = nb::tuple(), keepdim);

  // max/min: over everything, elementwise against another tensor, or along a dim with
  // indices. The tensor overload comes before the dim one so a one-element integer
  // tensor is never taken for a dim.
  def_both(m, cls, "max", [](const Tensor& t) { return max(t); });
  def_both(m, cls, "min", [](const Tensor& t) { return min(t); });
  def_both(
      m, cls, "max", [](const Tensor& t, const Tensor& o) { return maximum(t, o); },
      nb::arg("other"));
  def_both(
      m, cls, "min", [](const Tensor& t, const Tensor& o) { return minimum(t, o); },
      nb::arg("other"));
  def_both(
      m, cls, "max",
      [](const Tensor& t, int64_t dim, bool kd) { return named_pair("max", max(t, dim, kd)); },
      nb::arg("dim"), keepdim);
  def_both(
      m, cls, "min",
      [](const Tensor& t, int64_t dim, bool kd) { return named_pair("min", min(t, dim, kd)); },
      nb::arg("dim"), keepdim);
  def_both(
      m, cls, "argmax",
      [](const Tensor& t, std::optional<int64_t> dim, bool kd) { return argmax(t, dim, kd); },
      dim_none, keepdim);
  def_both(
      m, cls, "argmin",
      [](const Tensor& t, std::optional<int64_t> dim, bool kd) { return argmin(t, dim, kd); },
      dim_none, keepdim);

  def_both(
      m, cls, "var",
      [](const Tensor& t, nb::handle dim, std::optional<bool> unbiased, bool kd,
         nb::handle correction) {
        double c = correction_of(dim, unbiased, correction, "var");
        return var(t, dims_from(dim, "var"), c, kd);
      },
      dim_none, nb::arg("unbiased") = nb::none(), keepdim, nb::kw_only(),
      nb::arg("correction") = nb::none());
  def_both(
      m, cls, "std",
      [](const Tensor& t, nb::handle dim, std::optional<bool> unbiased, bool kd,
         nb::handle correction) {
        double c = correction_of(dim, unbiased, correction, "std");
        return ember::std(t, dims_from(dim, "std"), c, kd);
      },
      dim_none, nb::arg("unbiased") = nb::none(), keepdim, nb::kw_only(),
      nb::arg("correction") = nb::none());
  def_both(
      m, cls, "norm",
      [](const Tensor& t, nb::handle p, nb::handle dim, bool kd, OptD dtype) {
        return norm(cast_if(t, dtype), norm_p(p), dims_from(dim, "norm"), kd);
      },
      nb::arg("p") = "fro", dim_none, keepdim, dtype_none);
  def_both(
      m, cls, "logsumexp",
      [](const Tensor& t, nb::handle dim, bool kd) {
        return logsumexp(t, dims_from(dim, "logsumexp"), kd);
      },
      nb::arg("dim"), keepdim);
  def_both(
      m, cls, "all",
      [](const Tensor& t, nb::handle dim, bool kd) { return all(t, dims_from(dim, "all"), kd); },
      dim_none, keepdim);
  def_both(
      m, cls, "any",
      [](const Tensor& t, nb::handle dim, bool kd) { return any(t, dims_from(dim, "any"), kd); },
      dim_none, keepdim);
  def_both(
      m, cls, "softmax",
      [](const Tensor& t, int64_t dim, OptD dtype) { return softmax(cast_if(t, dtype), dim); },
      nb::arg("dim"), dtype_none);
  def_both(
      m, cls, "log_softmax",
      [](const Tensor& t, int64_t dim, OptD dtype) { return log_softmax(cast_if(t, dtype), dim); },
      nb::arg("dim"), dtype_none);
}

}  // namespace ember::py
