// Convolution and pooling, with torch.nn.functional's argument names: every spatial
// argument is an int or a pair, conv2d's padding may also be 'same' or 'valid'.
#include "common.h"

namespace ember::py {
namespace {

// stride=2 -> {2}; stride=(2, 3) or [2, 3] -> {2, 3}; None -> {} (the op's default).
Dims ints_from(nb::handle h, const char* op, const char* name) {
  if (h.is_none()) return {};
  Scalar s;
  if (scalar_from_python(h.ptr(), s)) {
    if (s.kind() != Scalar::Kind::Int)
      throw TypeError(detail::cat(op, ": ", name, " must be an int or a tuple of ints, got ",
                                  nb::type_name(h.type()).c_str()));
    return {s.to_int()};
  }
  if (!PyTuple_Check(h.ptr()) && !PyList_Check(h.ptr()))
    throw TypeError(detail::cat(op, ": ", name, " must be an int or a tuple of ints, got ",
                                nb::type_name(h.type()).c_str()));
  Dims out;
  for (nb::handle item : h) {
    if (!scalar_from_python(item.ptr(), s) || s.kind() != Scalar::Kind::Int)
      throw TypeError(detail::cat(op, ": ", name,
                                  " must be an int or a tuple of ints, got an element of type ",
                                  nb::type_name(item.type()).c_str()));
    out.push_back(s.to_int());
  }
  return out;
}

// An int argument that may not be None.
Dims required(nb::handle h, const char* op, const char* name) {
  if (h.is_none())
    throw TypeError(detail::cat(op, ": ", name, " must be an int or a tuple of ints, got None"));
  return ints_from(h, op, name);
}

// conv2d and conv3d: the same arguments, padding an int, a tuple, 'same' or 'valid'.
template <int ND>
Tensor conv_py(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
               nb::handle stride, nb::handle padding, nb::handle dilation, int64_t groups) {
  const char* op = ND == 3 ? "conv3d" : "conv2d";
  const Tensor b = bias.value_or(Tensor());
  const Dims s = required(stride, op, "stride"), d = required(dilation, op, "dilation");
  if (nb::isinstance<nb::str>(padding)) {
    std::string p = nb::cast<std::string>(padding);
    if (p != "same" && p != "valid")
      throw Error(  // RuntimeError, as torch's F.conv2d (its nn.Conv2d raises ValueError)
          detail::cat(op, ": invalid padding string '", p, "' (expected 'same' or 'valid')"));
    const PaddingMode mode = p == "same" ? PaddingMode::Same : PaddingMode::Valid;
    if constexpr (ND == 3) return conv3d(input, weight, b, s, mode, d, groups);
    else return conv2d(input, weight, b, s, mode, d, groups);
  }
  const Dims pd = required(padding, op, "padding");
  if constexpr (ND == 3) return conv3d(input, weight, b, s, pd, d, groups);
  else return conv2d(input, weight, b, s, pd, d, groups);
}

// output_size: an int, or an nd-tuple whose None entries keep the input's size.
Dims adaptive_size(const Tensor& input, nb::handle h, int64_t nd, const char* op) {
  if ((PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) && int64_t(nb::len(h)) == nd &&
      input.defined() && input.dim() >= nd) {
    Dims out;
    for (int64_t i = 0; i < nd; ++i) {
      nb::handle item = h[size_t(i)];
      out.push_back(item.is_none() ? input.size(i - nd) : required(item, op, "output_size")[0]);
    }
    return out;
  }
  return required(h, op, "output_size");
}

// _conv_transpose2d / _conv_transpose3d: the same arguments in 2 or 3 spatial dims.
void def_conv_transpose(nb::module_& m, const char* py_name, const char* op,
                        decltype(&conv_transpose2d) conv) {
  m.def(
      py_name,
      [op, conv](const Tensor& x, const Tensor& w, nb::handle s, nb::handle p,
                 nb::handle output_padding, int64_t groups, nb::handle d) {
        return conv(x, w, required(s, op, "stride"), required(p, op, "padding"),
                    required(output_padding, op, "output_padding"), groups,
                    required(d, op, "dilation"));
      },
      nb::arg("input"), nb::arg("weight"), nb::arg("stride"), nb::arg("padding"),
      nb::arg("output_padding"), nb::arg("groups"), nb::arg("dilation"));
}

// max_pool2d / max_pool3d (and avg_, adaptive_avg_) take the same arguments in any number of
// spatial dims: one binding serves each family, given the op's name and functions.
void def_max_pool(nb::module_& m, const char* op, decltype(&max_pool2d) pool,
                  decltype(&max_pool2d_with_indices) pool_with_indices) {
  m.def(
      op,
      [op, pool, pool_with_indices](const Tensor& x, nb::handle k, nb::handle s, nb::handle p,
                                    nb::handle d, bool ceil_mode,
                                    bool return_indices) -> nb::object {
        Dims kd = required(k, op, "kernel_size"), sd = ints_from(s, op, "stride");
        Dims pd = required(p, op, "padding"), dd = required(d, op, "dilation");
        if (return_indices) return nb::cast(pool_with_indices(x, kd, sd, pd, dd, ceil_mode));
        return nb::cast(pool(x, kd, sd, pd, dd, ceil_mode));
      },
      nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride") = nb::none(),
      nb::arg("padding") = 0, nb::arg("dilation") = 1, nb::arg("ceil_mode") = false,
      nb::arg("return_indices") = false, docstring(op));
}

void def_avg_pool(nb::module_& m, const char* op, decltype(&avg_pool2d) pool) {
  m.def(
      op,
      [op, pool](const Tensor& x, nb::handle k, nb::handle s, nb::handle p, bool ceil_mode,
                 bool count_include_pad, std::optional<int64_t> divisor_override) {
        return pool(x, required(k, op, "kernel_size"), ints_from(s, op, "stride"),
                    required(p, op, "padding"), ceil_mode, count_include_pad, divisor_override);
      },
      nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride") = nb::none(),
      nb::arg("padding") = 0, nb::arg("ceil_mode") = false, nb::arg("count_include_pad") = true,
      nb::arg("divisor_override") = nb::none(), docstring(op));
}

void def_adaptive_avg_pool(nb::module_& m, const char* op, int64_t nd,
                           decltype(&adaptive_avg_pool2d) pool) {
  m.def(
      op,
      [op, nd, pool](const Tensor& x, nb::handle output_size) {
        return pool(x, adaptive_size(x, output_size, nd, op));
      },
      nb::arg("input"), nb::arg("output_size"), docstring(op));
}

}  // namespace

void bind_nn(nb::module_& m) {
  m.def("conv2d", &conv_py<2>, nb::arg("input"), nb::arg("weight"), nb::arg("bias") = nb::none(),
        nb::arg("stride") = 1, nb::arg("padding") = 0, nb::arg("dilation") = 1,
        nb::arg("groups") = 1, docstring("conv2d"));
  m.def("conv3d", &conv_py<3>, nb::arg("input"), nb::arg("weight"), nb::arg("bias") = nb::none(),
        nb::arg("stride") = 1, nb::arg("padding") = 0, nb::arg("dilation") = 1,
        nb::arg("groups") = 1, docstring("conv3d"));

  // (N, C, H, W) / (N, C, D, H, W) only, no bias: nn.functional.conv_transpose1d/2d/3d shape
  // the arguments.
  def_conv_transpose(m, "_conv_transpose2d", "conv_transpose2d", conv_transpose2d);
  def_conv_transpose(m, "_conv_transpose3d", "conv_transpose3d", conv_transpose3d);

  def_max_pool(m, "max_pool2d", max_pool2d, max_pool2d_with_indices);

  m.def(
      "max_pool2d_with_indices",
      [](const Tensor& x, nb::handle k, nb::handle s, nb::handle p, nb::handle d, bool ceil_mode) {
        const char* op = "max_pool2d_with_indices";
        return max_pool2d_with_indices(x, required(k, op, "kernel_size"),
                                       ints_from(s, op, "stride"), required(p, op, "padding"),
                                       required(d, op, "dilation"), ceil_mode);
      },
      nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride") = nb::none(),
      nb::arg("padding") = 0, nb::arg("dilation") = 1, nb::arg("ceil_mode") = false,
      docstring("max_pool2d_with_indices"));

  def_avg_pool(m, "avg_pool2d", avg_pool2d);
  def_adaptive_avg_pool(m, "adaptive_avg_pool2d", 2, adaptive_avg_pool2d);

  def_max_pool(m, "max_pool3d", max_pool3d, max_pool3d_with_indices);
  def_avg_pool(m, "avg_pool3d", avg_pool3d);
  def_adaptive_avg_pool(m, "adaptive_avg_pool3d", 3, adaptive_avg_pool3d);
}

}  // namespace ember::py
