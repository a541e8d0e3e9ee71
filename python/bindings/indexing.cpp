// Indexing: t[...], t[...] = v and the index ops. A Python index (int, slice, None,
// Ellipsis, bool, Tensor, nested lists, NumPy arrays, tuples of these) becomes a
// std::vector<TensorIndex> here, reading lists in place (no Python object per element).
#include "common.h"

namespace ember::py {
namespace {

PyObject* g_module = nullptr;  // ember._C, for _from_numpy (the module outlives every call)

bool is_tensor(PyObject* o) { return nb::isinstance<Tensor>(nb::handle(o)); }

bool is_array(PyObject* o) {
  return PyObject_HasAttrString(o, "__array_interface__") ||
         PyObject_HasAttrString(o, "__dlpack__");
}

// Any Python sequence other than a string, a tensor or an array is an index list, as in
// PyTorch (x[range(3)], x[[0, 1], range(2)]).
bool is_index_sequence(PyObject* o) {
  return PySequence_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o) && !is_tensor(o) &&
         !is_array(o);
}

[[noreturn]] void invalid_index(PyObject* o) {
  PyErr_Clear();
  throw IndexError(
      detail::cat("only integers, slices (`:`), ellipsis (`...`), None and long or "
                  "byte tensors are valid indices (got ",
                  Py_TYPE(o)->tp_name, ")"));
}

int64_t to_int64(PyObject* o) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    throw IndexError("index: integer index out of the int64 range");
  }
  return v;
}

// A nested list/tuple of numbers -> an index tensor, as PyTorch's indexing_tensor_from_data:
// bool when every element is a bool, else int64 (floats truncate).
struct SequenceReader {
  Dims shape;
  std::vector<int64_t> values;
  int64_t leaf_depth = -1;
  bool all_bool = true;

  void read(PyObject* o, int64_t depth) {
    if (!PyList_Check(o) && !PyTuple_Check(o) && is_index_sequence(o)) {
      // range, NumPy arrays nested in a list, any other sequence: read as a list, as
      // PyTorch's indexing_tensor_from_data reads any Python sequence
      nb::object fast = nb::steal(PySequence_Fast(o, "index: expected a sequence"));
      if (!fast.is_valid()) throw nb::python_error();
      read(fast.ptr(), depth);
      return;
    }
    if (PyList_Check(o) || PyTuple_Check(o)) {
      EMBER_CHECK(leaf_depth < 0 || depth < leaf_depth, ValueError,
                  "index: a list index must be rectangular (found a sequence next to a number)");
      Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      if (int64_t(shape.size()) == depth) shape.push_back(n);
      EMBER_CHECK(shape[size_t(depth)] == n, ValueError, "index: expected a sequence of length ",
                  shape[size_t(depth)], " at dim ", depth, " (got ", n, ")");
      for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); ++i) {
        nb::object item = nb::borrow(PySequence_Fast_GET_ITEM(o, i));  // kept alive while read
        read(item.ptr(), depth + 1);
      }
      return;
    }
    if (leaf_depth < 0) leaf_depth = depth;
    EMBER_CHECK(depth == leaf_depth && depth == int64_t(shape.size()), ValueError,
                "index: a list index must be rectangular (found a number next to a sequence)");
    values.push_back(leaf(o));
  }

  int64_t leaf(PyObject* o) {
    if (PyBool_Check(o)) return o == Py_True;
    all_bool = false;
    if (PyLong_Check(o)) return to_int64(o);
    if (PyFloat_Check(o)) return int64_t(PyFloat_AS_DOUBLE(o));
    if (is_tensor(o)) return nb::inst_ptr<Tensor>(o)->item().to_int();
    Scalar s;
    if (scalar_from_python(o, s)) return s.to_int();
    throw TypeError(
        detail::cat("index: a list index may hold only ints and bools, got ", Py_TYPE(o)->tp_name));
  }

  Tensor tensor() const {
    bool b = all_bool && !values.empty();
    Tensor t = Tensor::empty(shape, b ? DType::Bool : DType::Int64);
    if (b) std::copy(values.begin(), values.end(), t.data<bool>());
    else std::copy(values.begin(), values.end(), t.data<int64_t>());
    return t;
  }
};

// NumPy's (and PyTorch's) legacy rule: a short list holding a tensor, sequence, slice,
// None or Ellipsis is a tuple of indices (t[[0, slice(None)]] is t[0, :]).
// Like PyTorch, it warns that this reading is deprecated.
bool is_tuple_like(PyObject* e) {
  return is_tensor(e) || PySequence_Check(e) || PySlice_Check(e) || e == Py_Ellipsis ||
         e == Py_None;
}

// nonzero(t, as_tuple=True): one index tensor per dim; a 0-d tensor counts as 1-d, as in PyTorch
nb::object nonzero_tuple(const Tensor& t) {
  Tensor nz = nonzero(t.dim() == 0 ? reshape(t, {1}) : t);
  nb::list cols;
  for (int64_t j = 0; j < nz.sizes()[1]; ++j) cols.append(nb::cast(select(nz, 1, j)));
  return nb::tuple(cols);
}

void warn_sequence_as_tuple() {
  if (PyErr_WarnEx(
          PyExc_UserWarning,
          "Using a non-tuple sequence for multidimensional indexing is deprecated and will "
          "be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 "
          "this will be interpreted as tensor index, x[torch.tensor(seq)], which will "
          "result either in an error or a different result",
          1) < 0)
    throw nb::python_error();
}

bool sequence_is_tuple(PyObject* o) {
  if (PyList_Check(o)) {
    Py_ssize_t n = PyList_GET_SIZE(o);
    if (n >= 32) return false;
    for (Py_ssize_t i = 0; i < n; ++i)
      if (is_tuple_like(PyList_GET_ITEM(o, i))) return warn_sequence_as_tuple(), true;
    return false;
  }
  if (PyLong_Check(o) || PySlice_Check(o) || !is_index_sequence(o)) return false;
  Py_ssize_t n = PySequence_Size(o);
  if (n < 0) PyErr_Clear();
  if (n < 0 || n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    nb::object e = nb::steal(PySequence_GetItem(o, i));
    if (!e.is_valid()) {
      PyErr_Clear();
      return false;
    }
    if (is_tuple_like(e.ptr())) return warn_sequence_as_tuple(), true;
  }
  return false;
}

Tensor array_to_tensor(PyObject* o) {
  try {
    return nb::cast<Tensor>(nb::handle(g_module).attr("_from_numpy")(nb::handle(o)));
  } catch (const nb::python_error&) {
    invalid_index(o);
  } catch (const nb::cast_error&) {
    invalid_index(o);
  }
}

TensorIndex to_index(PyObject* o) {
  if (PyLong_CheckExact(o)) return TensorIndex::integer(to_int64(o));
  if (o == Py_None) return TensorIndex::none();
  if (o == Py_Ellipsis) return TensorIndex::ellipsis();
  if (PySlice_Check(o)) {
    Py_ssize_t start, stop, step;  // None becomes 0 / PY_SSIZE_T_MAX, which slice() clamps
    if (PySlice_Unpack(o, &start, &stop, &step) < 0) throw nb::python_error();
    return TensorIndex::sliced(start, stop, step);
  }
  if (PyBool_Check(o)) return TensorIndex::of(scalar_tensor(Scalar(o == Py_True)));
  if (is_tensor(o)) return TensorIndex::of(*nb::inst_ptr<Tensor>(o));
  if (PyList_Check(o) || PyTuple_Check(o)) {
    SequenceReader r;
    r.read(o, 0);
    return TensorIndex::of(r.tensor());
  }
  if (PyFloat_Check(o) || PyUnicode_Check(o) || PyBytes_Check(o)) invalid_index(o);
  if (PyIndex_Check(o)) {  // NumPy integers and 0-d integer arrays, objects with __index__
    if (PyObject* i = PyNumber_Index(o)) {
      nb::object keep = nb::steal(i);
      return TensorIndex::integer(to_int64(i));
    }
    PyErr_Clear();  // e.g. a 1-d NumPy array: handled below
  }
  if (is_array(o)) return TensorIndex::of(array_to_tensor(o));
  if (is_index_sequence(o)) {
    SequenceReader r;
    r.read(o, 0);
    return TensorIndex::of(r.tensor());
  }
  invalid_index(o);
}

void parse_index(PyObject* o, std::vector<TensorIndex>& out) {
  if (PyTuple_Check(o) || PyList_Check(o)) {
    if (PyList_Check(o) && !sequence_is_tuple(o)) {
      out.push_back(to_index(o));
      return;
    }
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); ++i) {
      nb::object item = nb::borrow(PySequence_Fast_GET_ITEM(o, i));
      out.push_back(to_index(item.ptr()));
    }
    return;
  }
  if (PyLong_CheckExact(o) || PySlice_Check(o) || !sequence_is_tuple(o)) {
    out.push_back(to_index(o));
    return;
  }
  // another sequence (a range or deque holding slices, sequences...) read as a tuple
  nb::object fast = nb::steal(PySequence_Fast(o, "index: expected a sequence"));
  if (!fast.is_valid()) throw nb::python_error();
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast.ptr()); ++i) {
    nb::object item = nb::borrow(PySequence_Fast_GET_ITEM(fast.ptr(), i));
    out.push_back(to_index(item.ptr()));
  }
}

// t[i] runs in loops: one reusable vector saves a heap allocation per call. A nested use
// (an __index__ that itself indexes a tensor) gets a vector of its own.
class IndexList {
 public:
  IndexList() : v_(busy_ ? &local_ : &shared_) {
    if (v_ == &shared_) busy_ = true;
  }
  ~IndexList() {
    v_->clear();
    if (v_ == &shared_) busy_ = false;
  }
  IndexList(const IndexList&) = delete;
  IndexList& operator=(const IndexList&) = delete;
  std::vector<TensorIndex>& get() { return *v_; }

 private:
  static inline std::vector<TensorIndex> shared_;
  static inline bool busy_ = false;
  std::vector<TensorIndex> local_;
  std::vector<TensorIndex>* v_;
};

void setitem(Tensor& t, nb::handle idx, nb::handle value) {
  IndexList l;
  parse_index(idx.ptr(), l.get());
  if (is_tensor(value.ptr())) {
    index_put_(t, l.get(), *nb::inst_ptr<Tensor>(value));
    return;
  }
  Scalar s;
  if (!PySequence_Check(value.ptr()) && scalar_from_python(value.ptr(), s)) {
    index_put_(t, l.get(), s);
    return;
  }
  throw TypeError(detail::cat("can't assign a ", Py_TYPE(value.ptr())->tp_name,
                              " to a Tensor (expected a Tensor or a number)"));
}

// The src-or-value argument of scatter: a tensor, or a number given as src or value=.
Tensor scatter_any(Tensor* inplace, const Tensor& t, int64_t dim, const Tensor& index,
                   nb::handle src, nb::handle value, nb::handle reduce) {
  nb::handle v = src.is_none() ? value : src;
  if (!reduce.is_none()) {
    EMBER_CHECK(nb::isinstance<nb::str>(reduce) && nb::cast<std::string>(reduce) == "add" &&
                    is_tensor(v.ptr()),
                NotImplementedError,
                "scatter: only reduce='add' with a tensor src is supported (use scatter_add)");
    const Tensor& s = *nb::inst_ptr<Tensor>(v);
    return inplace ? scatter_add_(*inplace, dim, index, s) : scatter_add(t, dim, index, s);
  }
  if (is_tensor(v.ptr())) {
    const Tensor& s = *nb::inst_ptr<Tensor>(v);
    return inplace ? scatter_(*inplace, dim, index, s) : scatter(t, dim, index, s);
  }
  Scalar s;
  if (v.is_none() || !scalar_from_python(v.ptr(), s))
    throw TypeError("scatter: expected a Tensor src or a number value");
  return inplace ? scatter_(*inplace, dim, index, s) : scatter(t, dim, index, s);
}

std::vector<TensorIndex> tensor_indices(nb::handle indices) {
  std::vector<TensorIndex> out;
  parse_index(indices.ptr(), out);
  return out;
}

}  // namespace

void bind_indexing(nb::module_& m) {
  g_module = m.ptr();
  auto& cls = tensor_class();
  cls.def(
      "__getitem__",
      [](const Tensor& t, nb::handle idx) {
        IndexList l;
        parse_index(idx.ptr(), l.get());
        return index(t, l.get());
      },
      nb::arg("index").none());
  cls.def(
      "__setitem__", [](Tensor& t, nb::handle idx, nb::handle value) { setitem(t, idx, value); },
      nb::arg("index").none(), nb::arg("value").none());
  cls.def(
      "index_put_",
      [](nb::handle self, nb::handle indices, const Tensor& values, bool acc) {
        index_put_(self_of(self), tensor_indices(indices), values, acc);
        return nb::borrow(self);
      },
      nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false,
      method_docstring("index_put_"));
  def_both(
      m, cls, "index_put",
      [](const Tensor& t, nb::handle indices, const Tensor& values, bool acc) {
        Tensor out = clone(t);
        return index_put_(out, tensor_indices(indices), values, acc);
      },
      nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);

  def_both(
      m, cls, "index_select",
      [](const Tensor& t, int64_t dim, const Tensor& index) { return index_select(t, dim, index); },
      nb::arg("dim"), nb::arg("index"));
  m.def(
      "index_select",
      [](const Tensor& t, int64_t dim, const Tensor& index, nb::handle out) {
        return into(out, index_select(t, dim, index), "index_select");
      },
      nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("out").none(),
      docstring("index_select"));
  def_both(
      m, cls, "gather",
      [](const Tensor& t, int64_t dim, const Tensor& index, bool) { return gather(t, dim, index); },
      nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("sparse_grad") = false);
  def_both(
      m, cls, "take_along_dim",
      [](const Tensor& t, const Tensor& indices, std::optional<int64_t> dim) {
        return take_along_dim(t, indices, dim);
      },
      nb::arg("indices"), nb::arg("dim") = nb::none());

  def_both(
      m, cls, "scatter",
      [](const Tensor& t, int64_t dim, const Tensor& index, nb::handle src, nb::handle value,
         nb::handle reduce) { return scatter_any(nullptr, t, dim, index, src, value, reduce); },
      nb::arg("dim"), nb::arg("index"), nb::arg("src").none() = nb::none(), nb::kw_only(),
      nb::arg("value").none() = nb::none(), nb::arg("reduce").none() = nb::none());
  cls.def(
      "scatter_",
      [](nb::handle self, int64_t dim, const Tensor& index, nb::handle src, nb::handle value,
         nb::handle reduce) {
        scatter_any(&self_of(self), self_of(self), dim, index, src, value, reduce);
        return nb::borrow(self);
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("src").none() = nb::none(), nb::kw_only(),
      nb::arg("value").none() = nb::none(), nb::arg("reduce").none() = nb::none(),
      method_docstring("scatter_"));
  def_both(
      m, cls, "scatter_add",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
        return scatter_add(t, dim, index, src);
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("src"));
  cls.def(
      "scatter_add_",
      [](nb::handle self, int64_t dim, const Tensor& index, const Tensor& src) {
        scatter_add_(self_of(self), dim, index, src);
        return nb::borrow(self);
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("src"), method_docstring("scatter_add_"));

  def_both(
      m, cls, "nonzero",
      [](const Tensor& t, bool as_tuple) -> nb::object {
        return as_tuple ? nonzero_tuple(t) : nb::cast(nonzero(t));
      },
      nb::kw_only(), nb::arg("as_tuple") = false);
  // where(condition) alone is nonzero(condition, as_tuple=True), as in PyTorch (the 3-argument
  // where is in elementwise.cpp)
  m.def(
      "where", [](const Tensor& condition) { return nonzero_tuple(condition); },
      nb::arg("condition"), docstring("where"));
  def_both(m, cls, "argwhere", [](const Tensor& t) { return nonzero(t); });
  def_both(
      m, cls, "masked_select",
      [](const Tensor& t, const Tensor& mask) { return masked_select(t, mask); }, nb::arg("mask"));
}

}  // namespace ember::py
