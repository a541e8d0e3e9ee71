// View and shape ops: functions and methods taking PyTorch's flexible arguments.
#include "common.h"

namespace ember::py {
namespace {

// split/chunk/unbind return a tuple, as in PyTorch.
nb::tuple to_tuple(const std::vector<Tensor>& ts) {
  nb::list out;
  for (const Tensor& t : ts) out.append(nb::cast(t));
  return nb::tuple(out);
}

}  // namespace

void bind_views(nb::module_& m) {
  auto& cls = tensor_class();
  cls.def("view", [](const Tensor& t, nb::args s) {
    if (s.size() == 1 && nb::isinstance<DType>(s[0])) {
      // t.view(dtype) reinterprets bytes; not supported: say so instead of guessing.
      throw NotImplementedError("view: reinterpreting a tensor as another dtype is not supported");
    }
    return view(t, shape_from_args(s, "view"));
  });
  cls.def("reshape", [](const Tensor& t, nb::args s) { return reshape(t, shape_from_args(s, "reshape")); });
  m.def("reshape", [](const Tensor& t, nb::handle s) { return reshape(t, shape_from_sequence(s, "reshape")); });
  cls.def("expand", [](const Tensor& t, nb::args s) { return expand(t, shape_from_args(s, "expand")); });
  cls.def("permute", [](const Tensor& t, nb::args s) { return permute(t, shape_from_args(s, "permute")); });
  m.def("permute", [](const Tensor& t, nb::handle s) { return permute(t, shape_from_sequence(s, "permute")); });
  cls.def("expand_as", [](const Tensor& t, const Tensor& o) { return expand(t, o.sizes()); });
  cls.def("view_as", [](const Tensor& t, const Tensor& o) { return view(t, o.sizes()); });
  cls.def("reshape_as", [](const Tensor& t, const Tensor& o) { return reshape(t, o.sizes()); });
  def_both(m, cls, "flatten", [](const Tensor& t, int64_t s, int64_t e) { return flatten(t, s, e); },
           nb::arg("start_dim") = 0, nb::arg("end_dim") = -1);
  def_both(m, cls, "unflatten", [](const Tensor& t, int64_t d, nb::handle s) {
    return unflatten(t, d, shape_from_sequence(s, "unflatten"));
  }, nb::arg("dim"), nb::arg("sizes"));
  def_both(m, cls, "squeeze", [](const Tensor& t, nb::handle dim) {
    return dim.is_none() ? squeeze(t) : squeeze(t, dims_from(dim, "squeeze"));
  }, nb::arg("dim") = nb::none());
  def_both(m, cls, "unsqueeze", [](const Tensor& t, int64_t d) { return unsqueeze(t, d); }, nb::arg("dim"));
  def_both(m, cls, "transpose", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); },
           nb::arg("dim0"), nb::arg("dim1"));
  def_both(m, cls, "swapaxes", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); });
  def_both(m, cls, "t", [](const Tensor& x) { return ember::t(x); });
  cls.def_prop_ro("T", [](const Tensor& x) {
    Dims d;
    for (int64_t i = x.dim() - 1; i >= 0; --i) d.push_back(i);
    return permute(x, d);
  });
  cls.def_prop_ro("mT", [](const Tensor& x) { return transpose(x, -2, -1); });
  def_both(m, cls, "narrow", [](const Tensor& t, int64_t d, int64_t s, int64_t l) { return narrow(t, d, s, l); },
           nb::arg("dim"), nb::arg("start"), nb::arg("length"));
  def_both(m, cls, "select", [](const Tensor& t, int64_t d, int64_t i) { return select(t, d, i); },
           nb::arg("dim"), nb::arg("index"));
  def_both(m, cls, "diagonal", [](const Tensor& t, int64_t o, int64_t a, int64_t b) { return diagonal(t, o, a, b); },
           nb::arg("offset") = 0, nb::arg("dim1") = 0, nb::arg("dim2") = 1);
  def_both(m, cls, "split", [](const Tensor& t, nb::handle s, int64_t d) {
    if (PyLong_Check(s.ptr())) return to_tuple(split(t, nb::cast<int64_t>(s), d));
    return to_tuple(split_with_sizes(t, shape_from_sequence(s, "split"), d));
  }, nb::arg("split_size_or_sections"), nb::arg("dim") = 0);
  def_both(m, cls, "chunk", [](const Tensor& t, int64_t c, int64_t d) { return to_tuple(chunk(t, c, d)); },
           nb::arg("chunks"), nb::arg("dim") = 0);
  def_both(m, cls, "unbind", [](const Tensor& t, int64_t d) { return to_tuple(unbind(t, d)); }, nb::arg("dim") = 0);
  m.def("cat", [](const std::vector<Tensor>& ts, int64_t d) { return cat(ts, d); },
        nb::arg("tensors"), nb::arg("dim") = 0);
  m.def("stack", [](const std::vector<Tensor>& ts, int64_t d) { return stack(ts, d); },
        nb::arg("tensors"), nb::arg("dim") = 0);
}

}  // namespace ember::py
