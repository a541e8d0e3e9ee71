// Scans, flips, triangles, sorting, the hyperbolic/special functions, the float
// classifiers and lerp/addcmul/addcdiv, with PyTorch's argument forms.
#include "common.h"

namespace ember::py {

// Registered from bind_scan_sort_special: reductions by index, float bits, histograms, CPU
// settings (their own files).
void bind_scatter_reduce(nb::module_& m);
void bind_float_bits(nb::module_& m);
void bind_histogram(nb::module_& m);
void bind_cpu_settings(nb::module_& m);

namespace {

using OptD = std::optional<DType>;

// An int or a sequence of ints (roll's shifts and dims, flip's dims).
Dims ints_from(nb::handle h, const char* op) {
  if (h.is_none()) return {};
  return dims_from(h, op);
}

}  // namespace

void bind_scan_sort_special(nb::module_& m) {
  auto& cls = tensor_class();
  auto dtype_none = nb::arg("dtype") = nb::none();

  // ---- scans, flips, triangles ----
  def_both(
      m, cls, "cumsum",
      [](const Tensor& t, int64_t dim, OptD dtype) { return cumsum(t, dim, dtype); },
      nb::arg("dim"), nb::kw_only(), dtype_none);
  def_both(
      m, cls, "cumprod",
      [](const Tensor& t, int64_t dim, OptD dtype) { return cumprod(t, dim, dtype); },
      nb::arg("dim"), nb::kw_only(), dtype_none);
  // ember.cumsum / cumprod(..., out=t)
  for (const char* name : {"cumsum", "cumprod"}) {
    bool sum = name[3] == 's';
    m.def(
        name,
        [sum, name](const Tensor& t, int64_t dim, OptD dtype, nb::handle out) {
          return into(out, sum ? cumsum(t, dim, dtype) : cumprod(t, dim, dtype), name);
        },
        nb::arg("input"), nb::arg("dim"), nb::kw_only(), dtype_none, nb::arg("out").none(),
        docstring(name));
  }
  cls.def(
      "cumsum_",
      [](nb::handle self, int64_t dim, OptD dtype) {
        return inplace(self, [&](Tensor& t) { cumsum_(t, dim, dtype); });
      },
      nb::arg("dim"), nb::kw_only(), dtype_none, method_docstring("cumsum_"));
  cls.def(
      "cumprod_",
      [](nb::handle self, int64_t dim, OptD dtype) {
        return inplace(self, [&](Tensor& t) { cumprod_(t, dim, dtype); });
      },
      nb::arg("dim"), nb::kw_only(), dtype_none, method_docstring("cumprod_"));
  def_both(
      m, cls, "tril", [](const Tensor& t, int64_t k) { return tril(t, k); },
      nb::arg("diagonal") = 0);
  def_both(
      m, cls, "triu", [](const Tensor& t, int64_t k) { return triu(t, k); },
      nb::arg("diagonal") = 0);
  cls.def(
      "tril_",
      [](nb::handle self, int64_t k) { return inplace(self, [&](Tensor& t) { tril_(t, k); }); },
      nb::arg("diagonal") = 0, method_docstring("tril_"));
  cls.def(
      "triu_",
      [](nb::handle self, int64_t k) { return inplace(self, [&](Tensor& t) { triu_(t, k); }); },
      nb::arg("diagonal") = 0, method_docstring("triu_"));
  def_both(
      m, cls, "flip",
      [](const Tensor& t, nb::handle dims) { return flip(t, ints_from(dims, "flip")); },
      nb::arg("dims"));
  cls.def(
      "flip",
      [](const Tensor& t, nb::args dims) {  // x.flip(0, 1)
        if (dims.size() == 0) throw TypeError("flip: missing the required argument 'dims'");
        return flip(t, shape_from_args(dims, "flip"));
      },
      method_docstring("flip"));
  def_both(m, cls, "fliplr", [](const Tensor& t) {
    EMBER_CHECK(t.dim() >= 2, ValueError, "fliplr: input must be >= 2-d, got shape ", t.sizes());
    return flip(t, {1});
  });
  def_both(m, cls, "flipud", [](const Tensor& t) {
    EMBER_CHECK(t.dim() >= 1, ValueError, "flipud: input must be >= 1-d, got shape ", t.sizes());
    return flip(t, {0});
  });
  def_both(
      m, cls, "roll",
      [](const Tensor& t, nb::handle shifts, nb::handle dims) {
        return roll(t, ints_from(shifts, "roll"), ints_from(dims, "roll"));
      },
      nb::arg("shifts"), nb::arg("dims") = nb::none());

  // ---- sorting ----
  def_both(
      m, cls, "sort",
      [](const Tensor& t, int64_t dim, bool desc, std::optional<bool> stable) {
        return named_pair("sort", sort(t, dim, desc, stable.value_or(false)));
      },
      nb::arg("dim") = -1, nb::arg("descending") = false, nb::kw_only(),
      nb::arg("stable") = nb::none());
  def_both(
      m, cls, "argsort",
      [](const Tensor& t, int64_t dim, bool desc, bool stable) {
        return argsort(t, dim, desc, stable);
      },
      nb::arg("dim") = -1, nb::arg("descending") = false, nb::kw_only(), nb::arg("stable") = false);
  def_both(
      m, cls, "topk",
      [](const Tensor& t, int64_t k, int64_t dim, bool largest, bool sorted) {
        return named_pair("topk", topk(t, k, dim, largest, sorted));
      },
      nb::arg("k"), nb::arg("dim") = -1, nb::arg("largest") = true, nb::arg("sorted") = true);

  // ---- special functions ----
#define EMBER_BIND_UNARY(name)                                                                 \
  def_both(m, cls, #name, [](const Tensor& t) { return name(t); });                            \
  cls.def(                                                                                     \
      #name "_", [](nb::handle self) { return inplace(self, [](Tensor& t) { name##_(t); }); }, \
      method_docstring(#name "_"));                                                            \
  def_module_inplace(m, #name "_", [](Tensor& t) { name##_(t); });
#define EMBER_SPECIAL_UNARY(name, Enum) EMBER_BIND_UNARY(name)
#include "ember/ops.def"
#undef EMBER_SPECIAL_UNARY
#undef EMBER_BIND_UNARY
  def_both(m, cls, "isnan", [](const Tensor& t) { return isnan(t); });
  def_both(m, cls, "isinf", [](const Tensor& t) { return isinf(t); });
  def_both(m, cls, "isposinf", [](const Tensor& t) { return isposinf(t); });
  def_both(m, cls, "isneginf", [](const Tensor& t) { return isneginf(t); });
  def_both(m, cls, "isfinite", [](const Tensor& t) { return isfinite(t); });

  // ---- lerp, addcmul, addcdiv ----
  def_both(
      m, cls, "lerp",
      [](const Tensor& a, const Tensor& b, const Tensor& w) { return lerp(a, b, w); },
      nb::arg("end"), nb::arg("weight"));
  def_both(
      m, cls, "lerp", [](const Tensor& a, const Tensor& b, Scalar w) { return lerp(a, b, w); },
      nb::arg("end"), nb::arg("weight"));
  cls.def(
      "lerp_",
      [](nb::handle self, const Tensor& b, const Tensor& w) {
        return inplace(self, [&](Tensor& t) { lerp_(t, b, w); });
      },
      nb::arg("end"), nb::arg("weight"), method_docstring("lerp_"));
  cls.def(
      "lerp_",
      [](nb::handle self, const Tensor& b, Scalar w) {
        return inplace(self, [&](Tensor& t) { lerp_(t, b, w); });
      },
      nb::arg("end"), nb::arg("weight"), method_docstring("lerp_"));
  def_both(
      m, cls, "addcmul",
      [](const Tensor& s, const Tensor& a, const Tensor& b, Scalar v) {
        return addcmul(s, a, b, v);
      },
      nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = 1);
  def_both(
      m, cls, "addcdiv",
      [](const Tensor& s, const Tensor& a, const Tensor& b, Scalar v) {
        return addcdiv(s, a, b, v);
      },
      nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = 1);
  cls.def(
      "addcmul_",
      [](nb::handle self, const Tensor& a, const Tensor& b, Scalar v) {
        return inplace(self, [&](Tensor& t) { addcmul_(t, a, b, v); });
      },
      nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = 1,
      method_docstring("addcmul_"));
  cls.def(
      "addcdiv_",
      [](nb::handle self, const Tensor& a, const Tensor& b, Scalar v) {
        return inplace(self, [&](Tensor& t) { addcdiv_(t, a, b, v); });
      },
      nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = 1,
      method_docstring("addcdiv_"));

  bind_scatter_reduce(m);
  bind_float_bits(m);
  bind_histogram(m);
  bind_cpu_settings(m);
}

}  // namespace ember::py
