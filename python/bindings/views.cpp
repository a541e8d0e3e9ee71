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
  cls.def(
      "view",
      [](const Tensor& t, nb::args s, nb::kwargs kw) -> nb::object {
        // view(dtype=...) or view(size=...): one keyword, alone (torch's two signatures)
        if (kw.size() != 0) {
          bool ok =
              s.size() == 0 && kw.size() == 1 && (kw.contains("dtype") || kw.contains("size"));
          if (!ok)
            throw nb::type_error(
                "view() received an invalid combination of arguments: expected one of "
                "(dtype dtype) or (tuple of ints size)");
          if (kw.contains("dtype"))
            return nb::module_::import_("ember._tensor").attr("_view_dtype")(t, kw["dtype"]);
          return nb::cast(view(t, shape_from_sequence(kw["size"], "view")));
        }
        // a dtype, or a dtype ember only names (PlannedDtype: _view_dtype says so)
        if (s.size() == 1 &&
            (nb::isinstance<DType>(s[0]) ||
             (!nb::isinstance<nb::int_>(s[0]) && !nb::isinstance<nb::tuple>(s[0]) &&
              !nb::isinstance<nb::list>(s[0]) && nb::hasattr(s[0], "abbr")))) {
          // t.view(dtype): the same bytes as another dtype, a view (geometry in _tensor.py)
          return nb::module_::import_("ember._tensor").attr("_view_dtype")(t, s[0]);
        }
        return nb::cast(view(t, shape_from_args(s, "view")));
      },
      method_docstring("view"));
  cls.def(
      "reshape",
      [](const Tensor& t, nb::args s) { return reshape(t, shape_from_args(s, "reshape")); },
      method_docstring("reshape"));
  m.def(
      "reshape",
      [](const Tensor& t, nb::handle s) { return reshape(t, shape_from_sequence(s, "reshape")); },
      docstring("reshape"));
  cls.def(
      "expand", [](const Tensor& t, nb::args s) { return expand(t, shape_from_args(s, "expand")); },
      method_docstring("expand"));
  cls.def(
      "permute",
      [](const Tensor& t, nb::args s) { return permute(t, shape_from_args(s, "permute")); },
      method_docstring("permute"));
  m.def(
      "permute",
      [](const Tensor& t, nb::handle s) { return permute(t, shape_from_sequence(s, "permute")); },
      docstring("permute"));
  cls.def(
      "expand_as", [](const Tensor& t, const Tensor& o) { return expand(t, o.sizes()); },
      method_docstring("expand_as"));
  cls.def(
      "view_as", [](const Tensor& t, const Tensor& o) { return view(t, o.sizes()); },
      method_docstring("view_as"));
  cls.def(
      "reshape_as", [](const Tensor& t, const Tensor& o) { return reshape(t, o.sizes()); },
      method_docstring("reshape_as"));
  def_both(
      m, cls, "flatten", [](const Tensor& t, int64_t s, int64_t e) { return flatten(t, s, e); },
      nb::arg("start_dim") = 0, nb::arg("end_dim") = -1);
  def_both(
      m, cls, "unflatten",
      [](const Tensor& t, int64_t d, nb::handle s) {
        return unflatten(t, d, shape_from_sequence(s, "unflatten"));
      },
      nb::arg("dim"), nb::arg("sizes"));
  def_both(
      m, cls, "squeeze",
      [](const Tensor& t, nb::handle dim) {
        return dim.is_none() ? squeeze(t) : squeeze(t, dims_from(dim, "squeeze"));
      },
      nb::arg("dim") = nb::none());
  def_both(
      m, cls, "unsqueeze", [](const Tensor& t, int64_t d) { return unsqueeze(t, d); },
      nb::arg("dim"));
  def_both(
      m, cls, "transpose", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); },
      nb::arg("dim0"), nb::arg("dim1"));
  def_both(m, cls, "swapaxes",
           [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); });
  def_both(m, cls, "t", [](const Tensor& x) { return ember::t(x); });
  cls.def_prop_ro(
      "T",
      [](const Tensor& x) {
        Dims d;
        for (int64_t i = x.dim() - 1; i >= 0; --i) d.push_back(i);
        return permute(x, d);
      },
      method_docstring("T"));
  cls.def_prop_ro(
      "mT", [](const Tensor& x) { return transpose(x, -2, -1); }, method_docstring("mT"));
  def_both(
      m, cls, "narrow",
      [](const Tensor& t, int64_t d, int64_t s, int64_t l) { return narrow(t, d, s, l); },
      nb::arg("dim"), nb::arg("start"), nb::arg("length"));
  def_both(
      m, cls, "select", [](const Tensor& t, int64_t d, int64_t i) { return select(t, d, i); },
      nb::arg("dim"), nb::arg("index"));
  def_both(
      m, cls, "diagonal",
      [](const Tensor& t, int64_t o, int64_t a, int64_t b) { return diagonal(t, o, a, b); },
      nb::arg("offset") = 0, nb::arg("dim1") = 0, nb::arg("dim2") = 1);
  // torch names the sizes split_size_or_sections in torch.split and split_size in Tensor.split.
  auto split_tensor = [](const Tensor& t, nb::handle s, int64_t d) {
    if (PyLong_Check(s.ptr())) return to_tuple(split(t, nb::cast<int64_t>(s), d));
    return to_tuple(split_with_sizes(t, shape_from_sequence(s, "split"), d));
  };
  m.def("split", split_tensor, nb::arg("tensor"), nb::arg("split_size_or_sections"),
        nb::arg("dim") = 0, docstring("split"));
  cls.def("split", split_tensor, nb::arg("split_size"), nb::arg("dim") = 0,
          method_docstring("split"));
  def_both(
      m, cls, "chunk",
      [](const Tensor& t, int64_t c, int64_t d) { return to_tuple(chunk(t, c, d)); },
      nb::arg("chunks"), nb::arg("dim") = 0);
  def_both(
      m, cls, "unbind", [](const Tensor& t, int64_t d) { return to_tuple(unbind(t, d)); },
      nb::arg("dim") = 0);
  auto opt_offset = [](nb::handle h) {
    return h.is_none() ? std::nullopt : std::optional<int64_t>(nb::cast<int64_t>(h));
  };
  def_both(
      m, cls, "as_strided",
      [opt_offset](const Tensor& t, nb::handle size, nb::handle stride, nb::handle off) {
        return as_strided(t, shape_from_sequence(size, "as_strided"),
                          shape_from_sequence(stride, "as_strided"), opt_offset(off));
      },
      nb::arg("size"), nb::arg("stride"), nb::arg("storage_offset") = nb::none());
  cls.def(
      "as_strided_",
      [opt_offset](nb::handle self, nb::handle size, nb::handle stride, nb::handle off) {
        as_strided_(self_of(self), shape_from_sequence(size, "as_strided_"),
                    shape_from_sequence(stride, "as_strided_"), opt_offset(off));
        return nb::borrow(self);
      },
      nb::arg("size"), nb::arg("stride"), nb::arg("storage_offset") = nb::none(),
      method_docstring("as_strided_"));
  cls.def(
      "unfold",
      [](const Tensor& t, int64_t d, int64_t size, int64_t step) {
        return unfold(t, d, size, step);
      },
      nb::arg("dimension"), nb::arg("size"), nb::arg("step"), method_docstring("unfold"));
  // In-place view ops return self (the same Python object), as in-place ops do.
  cls.def(
      "t_",
      [](nb::handle self) {
        t_(self_of(self));
        return nb::borrow(self);
      },
      method_docstring("t_"));
  for (const char* name : {"transpose_", "swapaxes_", "swapdims_"}) {
    cls.def(
        name,
        [](nb::handle self, int64_t a, int64_t b) {
          transpose_(self_of(self), a, b);
          return nb::borrow(self);
        },
        method_docstring(name));
  }
  cls.def(
      "squeeze_",
      [](nb::handle self, nb::handle dim) {
        if (dim.is_none()) squeeze_(self_of(self));
        else squeeze_(self_of(self), dims_from(dim, "squeeze_"));
        return nb::borrow(self);
      },
      nb::arg("dim") = nb::none(), method_docstring("squeeze_"));
  cls.def(
      "unsqueeze_",
      [](nb::handle self, int64_t d) {
        unsqueeze_(self_of(self), d);
        return nb::borrow(self);
      },
      nb::arg("dim"), method_docstring("unsqueeze_"));
  cls.def("_resize_", [](nb::handle self, nb::handle size) {
    resize_(self_of(self), shape_from_sequence(size, "resize_"));
    return nb::borrow(self);
  });
  cls.def("_set_to", [](nb::handle self, const Tensor& src) {
    set_(self_of(self), src);
    return nb::borrow(self);
  });
  cls.def("_set_storage", [](nb::handle self, const Tensor& storage, int64_t off, nb::handle size,
                             nb::handle stride) {
    set_(self_of(self), storage, off, shape_from_sequence(size, "set_"),
         shape_from_sequence(stride, "set_"));
    return nb::borrow(self);
  });
  cls.def("_set_empty", [](nb::handle self) {
    set_(self_of(self));
    return nb::borrow(self);
  });
  // Tensor.as_subclass: an alias view of t (so the result stays in t's graph) held by an
  // instance of the Tensor subclass `type`, built without running the subclass's __init__.
  m.def("_as_subclass", [](nb::handle type, const Tensor& t) {
    EMBER_CHECK(
        PyType_Check(type.ptr()) &&
            PyType_IsSubtype((PyTypeObject*)type.ptr(), (PyTypeObject*)tensor_class().ptr()),
        TypeError,
        "as_subclass: Creating a Tensor subclass from a class that does not inherit from Tensor is "
        "not possible. Make sure your class inherits from Tensor.");
    nb::object o = nb::inst_alloc(type);
    new (nb::inst_ptr<Tensor>(o)) Tensor(view(t, t.sizes()));
    nb::inst_mark_ready(o);
    return o;
  });
  cls.def("_storage_view", [](const Tensor& t, DType d) { return storage_view(t, d); });
  m.def(
      "cat", [](const std::vector<Tensor>& ts, int64_t d) { return cat(ts, d); },
      nb::arg("tensors"), nb::arg("dim") = 0, docstring("cat"));
  m.def(
      "cat",
      [](const std::vector<Tensor>& ts, int64_t d, nb::handle out) {
        return into(out, cat(ts, d), "cat");
      },
      nb::arg("tensors"), nb::arg("dim") = 0, nb::kw_only(), nb::arg("out").none(),
      docstring("cat"));
  m.def(
      "stack", [](const std::vector<Tensor>& ts, int64_t d) { return stack(ts, d); },
      nb::arg("tensors"), nb::arg("dim") = 0, docstring("stack"));
  m.def(
      "stack",
      [](const std::vector<Tensor>& ts, int64_t d, nb::handle out) {
        return into(out, stack(ts, d), "stack");
      },
      nb::arg("tensors"), nb::arg("dim") = 0, nb::kw_only(), nb::arg("out").none(),
      docstring("stack"));
}

}  // namespace ember::py
