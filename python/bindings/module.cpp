// ember._C: the extension module. Each bind_* lives in its own file.
#include "common.h"
#include "ember/build_info.h"
#include "ember/interpreter_lock.h"

namespace ember::py {

bool scalar_from_python(PyObject* o, Scalar& out) {
  if (PyBool_Check(o)) {
    out = Scalar(o == Py_True);
    return true;
  }
  if (PyFloat_Check(o)) {
    out = Scalar(PyFloat_AS_DOUBLE(o));
    return true;
  }
  if (PyComplex_Check(o)) {  // ops that are not complex-aware refuse it by its dtype
    out = Scalar(std::complex<double>(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)));
    return true;
  }
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
    out = Scalar(int64_t(v));
    return true;
  }
  if (nb::isinstance<Tensor>(nb::handle(o))) return false;
  // NumPy scalars and other number-likes: integers through __index__, the rest __float__.
  PyTypeObject* tp = Py_TYPE(o);
  if (tp->tp_as_number && tp->tp_as_number->nb_index) {
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    out = Scalar(int64_t(v));
    return true;
  }
  if (tp->tp_as_number && tp->tp_as_number->nb_float) {
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    out = Scalar(v);
    return true;
  }
  return false;
}

Dims shape_from_sequence(nb::handle h, const char* op) {
  if (!PyTuple_Check(h.ptr()) && !PyList_Check(h.ptr()))
    throw TypeError(detail::cat(op, ": expected a shape (a sequence of ints), got ",
                                nb::type_name(h.type()).c_str()));
  Dims out;
  for (nb::handle item : h) {
    Scalar s;
    if (scalar_from_python(item.ptr(), s) && s.kind() == Scalar::Kind::Int) {
      out.push_back(s.to_int());
      continue;
    }
    // An integer tensor of one element counts as its int (torch.full((n_tensor,), v)).
    if (nb::isinstance<Tensor>(item)) {
      const Tensor& t = nb::cast<const Tensor&>(item);
      if (t.numel() == 1 && is_integral(t.dtype(), /*include_bool=*/false)) {
        out.push_back(t.item().to_int());
        continue;
      }
    }
    throw TypeError(
        detail::cat(op, ": shape elements must be ints, got ", nb::type_name(item.type()).c_str()));
  }
  return out;
}

Dims shape_from_args(const nb::args& args, const char* op) {
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) return shape_from_sequence(args[0], op);
  return shape_from_sequence(args, op);
}

Dims dims_from(nb::handle h, const char* op) {
  if (h.is_none()) return {};
  Scalar s;
  if (scalar_from_python(h.ptr(), s)) {
    if (s.kind() != Scalar::Kind::Int)
      throw TypeError(detail::cat(op, ": dim must be an int or a tuple of ints"));
    return {s.to_int()};
  }
  return shape_from_sequence(h, op);
}

nb::object named_pair(const char* name, std::pair<Tensor, Tensor> r) {
  // Imported once and kept for the life of the process (never released at exit).
  static PyObject* mod = nb::module_::import_("ember.return_types").release().ptr();
  return nb::handle(mod).attr(name)(nb::cast(std::move(r.first)), nb::cast(std::move(r.second)));
}

void bind_fft(nb::module_& m);         // fft.cpp
void bind_sparse(nb::module_& m);      // sparse.cpp
void add_numpy_names(nb::module_& m);  // numpy_names.cpp

}  // namespace ember::py

NB_MODULE(_C, m) {
  using namespace ember;
  // The Python layer adds methods to Tensor and dtype; the resulting module <-> type
  // references are only collected after nanobind's exit-time leak check, which would then
  // report false leaks. Real leaks are caught by tests that watch resident memory.
  nb::set_leak_warnings(false);
  // Big kernels let the interpreter's other threads run (ember/interpreter_lock.h): the
  // lock is dropped only by a thread that holds it, so a nested or foreign thread is a no-op.
  set_interpreter_lock_hooks(
      {[]() -> void* { return PyGILState_Check() ? PyEval_SaveThread() : nullptr; },
       [](void* token) { PyEval_RestoreThread(static_cast<PyThreadState*>(token)); }});
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const ember::ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const ember::IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const ember::TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const ember::NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const ember::Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const std::bad_alloc&) {
      PyErr_SetString(PyExc_MemoryError, "ember: out of memory");
    }
  });
  nb::enum_<DType>(m, "dtype", py::docstring("dtype"))
      .value("bool", DType::Bool)
      .value("uint8", DType::UInt8)
      .value("int8", DType::Int8)
      .value("int16", DType::Int16)
      .value("int32", DType::Int32)
      .value("int64", DType::Int64)
      .value("float32", DType::Float32)
      .value("float64", DType::Float64)
      .value("complex64", DType::Complex64)
      .value("complex128", DType::Complex128)
      .value("bfloat16", DType::BFloat16)
      .value("float16", DType::Float16)
      .value("uint16", DType::UInt16)
      .value("uint32", DType::UInt32)
      .value("uint64", DType::UInt64);
  m.def("promote_types", &promote_types, py::docstring("promote_types"));
  m.def("can_cast", &can_cast, py::docstring("can_cast"));
  m.def("_get_default_dtype", &default_dtype);
  m.def("_get_default_complex_dtype", &default_complex_dtype);
  m.def("_set_default_dtype", &set_default_dtype);
  m.def("get_num_threads", &get_num_threads, py::docstring("get_num_threads"));
  m.def("set_num_threads", &set_num_threads, py::docstring("set_num_threads"));
  m.def(
      "build_info",
      [] {
        nb::dict d;
        for (const auto& [key, value] : build_info()) d[key.c_str()] = nb::str(value.c_str());
        return d;
      },
      py::docstring("build_info"));
  m.def("allocator_stats", [] {
    AllocatorStats s = allocator_stats();
    nb::dict d;
    d["allocated_bytes"] = s.allocated_bytes;
    d["cached_bytes"] = s.cached_bytes;
    d["allocations"] = s.allocations;
    d["cache_hits"] = s.cache_hits;
    return d;
  });
  m.def("empty_cache", &empty_cache);
  py::bind_size(m);
  py::bind_tensor(m);
  py::bind_creation(m);
  py::bind_elementwise(m);
  py::bind_views(m);
  py::bind_reduce(m);
  py::bind_linalg(m);
  py::bind_indexing(m);
  py::bind_numpy(m);
  py::bind_autograd(m);
  py::bind_nn(m);
  py::bind_layers(m);
  py::bind_losses(m);
  py::bind_profiler(m);
  py::bind_optim(m);
  py::bind_serialize(m);
  py::bind_multiprocessing(m);
  py::bind_distributed(m);
  py::bind_scan_sort_special(m);
  py::bind_special(m);
  py::bind_random(m);
  py::bind_complex(m);
  py::bind_autocast(m);
  py::bind_capture(m);
  py::bind_fft(m);
  py::bind_sparse(m);
  // Run by ember/__init__.py once every name is bound, not here: the type stubs are made
  // from the bare module and keep the real signatures only
  m.def("_add_numpy_names", [h = nb::handle(m)]() {
    auto mod = nb::borrow<nb::module_>(h);
    py::add_numpy_names(mod);
  });
}
