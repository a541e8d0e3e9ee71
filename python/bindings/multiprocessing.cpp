// Shared memory between processes: Tensor.share_memory_/is_shared and the pieces
// ember.multiprocessing's pickling uses (Note [Shared memory] in src/core/shared_memory.cpp).
#include "common.h"

namespace ember::py {
namespace {

// A uint8 tensor over all of `storage`: how a received storage travels between the
// unpickling steps (the storage first, then each tensor that views it).
Tensor whole_storage(IntrusivePtr<Storage> storage) {
  int64_t n = int64_t(storage->nbytes());
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), Dims{n}, Dims{1}, 0, DType::UInt8));
}

// The view that the sending process pickled, checked against the storage's size (the
// bytes come from another process: never trust them to stay in bounds).
Tensor view_of(const Tensor& whole, DType dtype, const Dims& sizes, const Dims& strides,
               int64_t offset) {
  EMBER_CHECK(sizes.size() == strides.size(), ValueError, "shared tensor: ", sizes.size(),
              " sizes but ", strides.size(), " strides");
  EMBER_CHECK(offset >= 0, ValueError, "shared tensor: negative storage offset ", offset);
  int64_t last = offset;  // index of the last element, in elements
  bool empty = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0 && strides[i] >= 0, ValueError, "shared tensor: bad size ", sizes[i],
                " or stride ", strides[i]);
    empty |= sizes[i] == 0;
    if (sizes[i] > 0) last += (sizes[i] - 1) * strides[i];
  }
  size_t need = empty ? 0 : size_t(last + 1) * itemsize(dtype);
  EMBER_CHECK(need <= whole.storage()->nbytes(), ValueError, "shared tensor: the view needs ", need,
              " bytes but the shared storage holds ", whole.storage()->nbytes());
  return Tensor(make_intrusive<TensorImpl>(whole.storage(), sizes, strides, offset, dtype));
}

}  // namespace

void bind_multiprocessing(nb::module_& m) {
  auto& cls = tensor_class();
  cls.def(
      "share_memory_",
      [](nb::handle self) {
        self_of(self).storage()->share_memory_();
        return nb::borrow(self);
      },
      "Moves the storage into shared memory in place (a no-op if it is already shared); returns self.",
      method_docstring("share_memory_"));
  cls.def(
      "is_shared", [](const Tensor& t) { return t.storage()->is_shared(); },
      method_docstring("is_shared"));
  // For the pickler: shares the storage in place if needed and returns (storage identity,
  // fd, nbytes). The identity is the address of the Storage object, which lives while `t` does.
  m.def("_share_for_pickle", [](const Tensor& t) {
    Storage* s = t.storage().get();
    s->share_memory_();
    return nb::make_tuple(reinterpret_cast<uintptr_t>(s), s->shared_fd(), s->nbytes());
  });
  m.def(
      "_shared_storage_from_fd",
      [](int fd, size_t nbytes) { return whole_storage(Storage::from_shared_fd(fd, nbytes)); },
      nb::arg("fd"), nb::arg("nbytes"));
  m.def("_shared_view",
        [](const Tensor& whole, DType dtype, nb::handle sizes, nb::handle strides, int64_t offset) {
          return view_of(whole, dtype, shape_from_sequence(sizes, "shared tensor"),
                         shape_from_sequence(strides, "shared tensor"), offset);
        });
  // Returns the previous setting, so callers can restore it.
  m.def("_set_shared_allocation", [](bool on) {
    bool was = Storage::shared_allocation();
    Storage::set_shared_allocation(on);
    return was;
  });
}

}  // namespace ember::py
