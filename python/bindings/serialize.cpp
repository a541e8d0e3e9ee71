// safetensors save/load (include/ember/serialize.h) for python/ember/serialization/safetensors.py,
// which flattens nested objects to names and back; _storage_bytes for the PyTorch format.
// OSError keeps its errno, so Python sees FileNotFoundError, PermissionError, ... with the
// file name.
#include <nanobind/stl/map.h>

#include "common.h"

namespace ember::py {
namespace {

nb::tuple to_python(SafetensorsFile&& f) {
  nb::list tensors;
  for (auto& [name, t] : f.tensors) tensors.append(nb::make_tuple(name, std::move(t)));
  nb::dict metadata;
  for (auto& [k, v] : f.metadata)
    metadata[nb::str(k.data(), k.size())] = nb::str(v.data(), v.size());
  return nb::make_tuple(tensors, metadata);
}

}  // namespace

void bind_serialize(nb::module_& m) {
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const ember::OSError& e) {
      // OSError(errno, strerror, filename) picks the subclass (FileNotFoundError, ...).
      nb::object err =
          nb::steal(PyObject_CallFunction(PyExc_OSError, "isO", e.errno_value, e.reason.c_str(),
                                          nb::str(e.path.c_str()).ptr()));
      if (err.is_valid())
        PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(err.ptr())), err.ptr());
    }
  });
  m.def("_save_file", [](const std::map<std::string, Tensor>& tensors, const std::string& path,
                         const std::map<std::string, std::string>& metadata) {
    save_file(tensors, path, metadata);
  });
  m.def("_save_bytes", [](const std::map<std::string, Tensor>& tensors,
                          const std::map<std::string, std::string>& metadata) {
    std::string s = save_bytes(tensors, metadata);
    return nb::bytes(s.data(), s.size());
  });
  m.def("_load_file", [](const std::string& path, bool mmap) {
    SafetensorsFile f;
    {
      nb::gil_scoped_release unlocked;  // file I/O and parsing touch no Python object
      f = load_file(path, mmap);
    }
    return to_python(std::move(f));
  });
  m.def("_load_bytes",
        [](nb::bytes data) { return to_python(load_bytes(data.c_str(), data.size())); });
  // For the PyTorch-format writer (python/ember/serialization/torch_format.py): a uint8
  // tensor over all of t's storage, which torch.save writes whole as one data/N record.
  m.def("_storage_bytes", [](const Tensor& t) {
    IntrusivePtr<Storage> s = t.storage();
    int64_t n = int64_t(s->nbytes());
    return Tensor(make_intrusive<TensorImpl>(std::move(s), Dims{n}, Dims{1}, 0, DType::UInt8));
  });
}

}  // namespace ember::py
