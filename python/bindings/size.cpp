// ember.Size (torch.Size): a tuple of ints, made in C so that `x.shape` and `x.shape[0]` cost
// what a tuple does (as a Python subclass of tuple they took 200 and 100 ns more). A slice is a
// Size again; repr is ember.Size([2, 3]); numel() multiplies the sizes. Pickles as a tuple
// subclass (ember.Size(tuple)). Size(...) takes an iterable of ints (anything with __index__);
// Size + tuple, tuple + Size and Size * n are Sizes, as torch's.
#include "common.h"

namespace ember::py {
namespace {

PyTypeObject* g_size = nullptr;

PyObject* size_subscript(PyObject* self, PyObject* key) {
  PyObject* r = PyTuple_Type.tp_as_mapping->mp_subscript(self, key);
  if (r == nullptr || !PySlice_Check(key)) return r;
  PyObject* s = PyObject_CallOneArg(reinterpret_cast<PyObject*>(Py_TYPE(self)), r);
  Py_DECREF(r);
  return s;
}

// Size(sizes=()): each item an int or something with __index__ (a 0-d integer tensor), as torch.
PyObject* size_new(PyTypeObject* type, PyObject* args, PyObject* kwds) {
  PyObject* arg = nullptr;
  static const char* kwlist[] = {"sizes", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:Size", const_cast<char**>(kwlist), &arg))
    return nullptr;
  PyObject* items = arg == nullptr ? PyTuple_New(0) : PySequence_Tuple(arg);
  if (items == nullptr) return nullptr;
  const Py_ssize_t n = PyTuple_GET_SIZE(items);
  PyObject* ints = PyTuple_New(n);
  for (Py_ssize_t i = 0; ints != nullptr && i < n; ++i) {
    PyObject* item = PyTuple_GET_ITEM(items, i);
    PyObject* v = PyIndex_Check(item) ? PyNumber_Index(item) : nullptr;
    if (v == nullptr) {
      if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "ember.Size() takes an iterable of 'int' (item %zd is '%s')",
                     i, Py_TYPE(item)->tp_name);
      }
      Py_CLEAR(ints);
      break;
    }
    PyTuple_SET_ITEM(ints, i, v);
  }
  Py_DECREF(items);
  if (ints == nullptr) return nullptr;
  PyObject* tuple_args = PyTuple_Pack(1, ints);
  Py_DECREF(ints);
  if (tuple_args == nullptr) return nullptr;
  PyObject* r = PyTuple_Type.tp_new(type, tuple_args, nullptr);
  Py_DECREF(tuple_args);
  return r;
}

// A plain tuple made by tuple's own concatenation or repetition, as a Size again.
PyObject* as_size(PyObject* tuple) {
  if (tuple == nullptr) return nullptr;
  PyObject* r = PyObject_CallOneArg(reinterpret_cast<PyObject*>(g_size), tuple);
  Py_DECREF(tuple);
  return r;
}

PyObject* size_add(PyObject* a, PyObject* b) {
  if (!PyTuple_Check(a) || !PyTuple_Check(b)) Py_RETURN_NOTIMPLEMENTED;
  return as_size(PyTuple_Type.tp_as_sequence->sq_concat(a, b));
}

PyObject* size_multiply(PyObject* a, PyObject* b) {
  PyObject* seq = PyTuple_Check(a) ? a : b;
  PyObject* count = seq == a ? b : a;
  if (!PyIndex_Check(count)) Py_RETURN_NOTIMPLEMENTED;
  const Py_ssize_t n = PyNumber_AsSsize_t(count, PyExc_OverflowError);
  if (n == -1 && PyErr_Occurred()) return nullptr;
  return as_size(PyTuple_Type.tp_as_sequence->sq_repeat(seq, n));
}

PyObject* size_repr(PyObject* self) {
  PyObject* list = PySequence_List(self);
  if (list == nullptr) return nullptr;
  PyObject* r = PyUnicode_FromFormat("ember.Size(%R)", list);
  Py_DECREF(list);
  return r;
}

PyObject* size_numel(PyObject* self, PyObject*) {
  PyObject* n = PyLong_FromLong(1);
  for (Py_ssize_t i = 0; n != nullptr && i < PyTuple_GET_SIZE(self); ++i) {
    PyObject* next = PyNumber_Multiply(n, PyTuple_GET_ITEM(self, i));
    Py_DECREF(n);
    n = next;
  }
  return n;
}

PyMethodDef size_methods[] =
    {{"numel", size_numel, METH_NOARGS,
      "numel() -> int\n\nThe number of elements a tensor of this size holds.\n\n"
      ">>> ember.Size([2, 3]).numel()\n6"},
     {nullptr, nullptr, 0, nullptr}};

PyType_Slot size_slots[] =
    {{Py_mp_subscript, reinterpret_cast<void*>(size_subscript)},
     {Py_tp_new, reinterpret_cast<void*>(size_new)},
     {Py_nb_add, reinterpret_cast<void*>(size_add)},
     {Py_nb_multiply, reinterpret_cast<void*>(size_multiply)},
     {Py_tp_repr, reinterpret_cast<void*>(size_repr)},
     {Py_tp_methods, size_methods},
     {Py_tp_doc,
      const_cast<char*>("Size(sizes) -> ember.Size\n\n"
                        "torch.Size: a tuple of ints that prints as ember.Size([2, 3]); a slice of "
                        "it, Size + tuple and Size * n are Sizes too.\n\n"
                        ">>> s = ember.ones(2, 3).shape\n"
                        ">>> s, s.numel(), s[1:], s[0]\n"
                        "(ember.Size([2, 3]), 6, ember.Size([3]), 2)\n"
                        ">>> s[:1] + (4,)\n"
                        "ember.Size([2, 4])")},
     {0, nullptr}};

PyType_Spec size_spec = {"ember.Size", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, size_slots};

}  // namespace

nb::object make_size(IntList v) {
  PyObject* t = g_size->tp_alloc(g_size, Py_ssize_t(v.size()));
  if (t == nullptr) throw nb::python_error();
  for (size_t i = 0; i < v.size(); ++i) {
    PyObject* n = PyLong_FromLongLong(v[i]);
    if (n == nullptr) {
      Py_DECREF(t);
      throw nb::python_error();
    }
    PyTuple_SET_ITEM(t, Py_ssize_t(i), n);
  }
  return nb::steal(t);
}

void bind_size(nb::module_& m) {
  PyObject* bases = PyTuple_Pack(1, reinterpret_cast<PyObject*>(&PyTuple_Type));
  PyObject* type = PyType_FromSpecWithBases(&size_spec, bases);
  Py_XDECREF(bases);
  if (type == nullptr) throw nb::python_error();
  g_size = reinterpret_cast<PyTypeObject*>(type);
  m.attr("Size") = nb::steal(type);  // the module owns it; g_size borrows
}

}  // namespace ember::py
