// NumPy and DLPack interop without copies. t.numpy() and ember.from_numpy(a) share
// memory; the owner on each side stays alive as long as the other side's view does.
#include <optional>

#include <nanobind/ndarray.h>

#include "common.h"

namespace ember::py {
namespace {

nb::dlpack::dtype to_dl(DType d) {
  switch (d) {
    case DType::Bool: return nb::dtype<bool>();
    case DType::UInt8: return nb::dtype<uint8_t>();
    case DType::Int8: return nb::dtype<int8_t>();
    case DType::Int16: return nb::dtype<int16_t>();
    case DType::Int32: return nb::dtype<int32_t>();
    case DType::Int64: return nb::dtype<int64_t>();
    case DType::Float32: return nb::dtype<float>();
    case DType::Float64: return nb::dtype<double>();
    case DType::Complex64: return nb::dtype<std::complex<float>>();
    case DType::BFloat16: return {uint8_t(nb::dlpack::dtype_code::Bfloat), 16, 1};
    case DType::Float16: return {uint8_t(nb::dlpack::dtype_code::Float), 16, 1};
    case DType::UInt16: return nb::dtype<uint16_t>();
    case DType::UInt32: return nb::dtype<uint32_t>();
    case DType::UInt64: return nb::dtype<uint64_t>();
    case DType::Complex128: break;
  }
  return nb::dtype<std::complex<double>>();
}

DType from_dl(nb::dlpack::dtype d) {
  if (d == nb::dtype<bool>()) return DType::Bool;
  if (d == nb::dtype<uint8_t>()) return DType::UInt8;
  if (d == nb::dtype<int8_t>()) return DType::Int8;
  if (d == nb::dtype<int16_t>()) return DType::Int16;
  if (d == nb::dtype<int32_t>()) return DType::Int32;
  if (d == nb::dtype<int64_t>()) return DType::Int64;
  if (d == nb::dtype<uint16_t>()) return DType::UInt16;
  if (d == nb::dtype<uint32_t>()) return DType::UInt32;
  if (d == nb::dtype<uint64_t>()) return DType::UInt64;
  if (d == nb::dtype<float>()) return DType::Float32;
  if (d == nb::dtype<double>()) return DType::Float64;
  if (d == nb::dtype<std::complex<float>>()) return DType::Complex64;
  if (d == nb::dtype<std::complex<double>>()) return DType::Complex128;
  if (d == to_dl(DType::Float16)) return DType::Float16;
  if (d == to_dl(DType::BFloat16)) return DType::BFloat16;
  throw TypeError(
      detail::cat("from_numpy: unsupported dtype (code ", int(d.code), ", ", int(d.bits),
                  " bits); ember supports bool, uint8, uint16, uint32, uint64, int8, int16, int32, "
                  "int64, float16, bfloat16, float32, float64, complex64, complex128"));
}

// A capsule owning a Tensor handle: keeps the storage alive while NumPy uses it.
template <class Array>
Array export_array(const Tensor& t, nb::dlpack::dtype dl) {
  t.storage()->mark_exported();  // share_memory_() must not free what NumPy points at
  auto* keep = new Tensor(t);
  nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  return Array(t.data_ptr(), size_t(t.dim()), reinterpret_cast<const size_t*>(t.sizes().data()),
               owner, t.strides().data(), dl, nb::device::cpu::value);
}
template <class Array>
Array export_array(const Tensor& t) {
  return export_array<Array>(t, to_dl(t.dtype()));
}

// t.numpy(): NumPy has no bfloat16; ml_dtypes (which onnx and jax bring) has, so a bfloat16
// tensor becomes an ml_dtypes.bfloat16 array sharing its memory. Without ml_dtypes, torch's
// TypeError.
nb::object to_numpy(const Tensor& t) {
  if (t.dtype() != DType::BFloat16) return nb::cast(export_array<nb::ndarray<nb::numpy>>(t));
  nb::object bf16;
  try {
    bf16 = nb::module_::import_("ml_dtypes").attr("bfloat16");
  } catch (nb::python_error&) {
    throw TypeError("Got unsupported ScalarType BFloat16 (install ml_dtypes for bfloat16 arrays)");
  }
  nb::object bits = nb::cast(export_array<nb::ndarray<nb::numpy>>(t, nb::dtype<uint16_t>()));
  return bits.attr("view")(bf16);
}

void release_array(void* ctx) {
  nb::gil_scoped_acquire gil;
  delete static_cast<nb::ndarray<nb::ro>*>(ctx);
}

// `as`: the dtype the bytes hold when the array's own says less (ml_dtypes.bfloat16 arrives
// as its uint16 view).
Tensor import_array(const nb::ndarray<nb::ro>& a, const char* op, std::optional<DType> as = {}) {
  EMBER_CHECK(a.device_type() == nb::device::cpu::value, TypeError, op,
              ": only CPU arrays can be imported");
  DType dt = as ? *as : from_dl(a.dtype());
  EMBER_CHECK(!as || size_t(a.dtype().bits) * a.dtype().lanes == 8 * itemsize(*as), TypeError, op,
              ": cannot read ", int(a.dtype().bits), "-bit elements as ", dtype_name(*as));
  Dims shape(a.ndim()), strides(a.ndim());
  int64_t hi = 0;
  bool empty = false;
  for (size_t i = 0; i < a.ndim(); ++i) {
    shape[i] = int64_t(a.shape(i));
    strides[i] = a.stride(i);
    empty |= shape[i] == 0;
    EMBER_CHECK(
        strides[i] >= 0 || shape[i] <= 1, ValueError, op,
        ": arrays with negative strides are not supported; call .copy() on the array first");
    hi += std::max<int64_t>(strides[i], 0) * (shape[i] - 1);
  }
  size_t nbytes = empty ? 0 : size_t(hi + 1) * itemsize(dt);
  // A copy of the ndarray handle keeps whatever owns the memory alive (the NumPy array,
  // or the DLPack producer's tensor) until the last ember view dies.
  auto* keep = new nb::ndarray<nb::ro>(a);
  return Tensor::from_blob(const_cast<void*>(a.data()), shape, strides, dt, &release_array, keep,
                           nbytes);
}

}  // namespace

void bind_numpy(nb::module_& m) {
  auto& cls = tensor_class();
  cls.def(
      "numpy",
      [](const Tensor& t) {
        EMBER_CHECK(!is_meta(t), TypeError,
                    "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy "
                    "the tensor to host memory first.");
        capture::data_read("Tensor.numpy()");
        return to_numpy(t);
      },
      method_docstring("numpy"));
  // np.asarray(t) shares memory; np.array(t) (copy=True) and a dtype change copy.
  cls.def(
      "__array__",
      [](const Tensor& t, nb::handle dtype, nb::handle copy) {
        EMBER_CHECK(!is_meta(t), TypeError,
                    "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy "
                    "the tensor to host memory first.");
        nb::object a = to_numpy(t);
        bool must_copy = !copy.is_none() && nb::cast<bool>(copy);
        if (!dtype.is_none()) return a.attr("astype")(dtype, nb::arg("copy") = must_copy);
        return must_copy ? a.attr("copy")() : a;
      },
      nb::arg("dtype") = nb::none(), nb::arg("copy") = nb::none());
  cls.def("__dlpack__", [](const Tensor& t, nb::kwargs) { return export_array<nb::ndarray<>>(t); });
  cls.def("__dlpack_device__", [](const Tensor&) { return std::make_pair(1, 0); });
  m.def("_from_numpy", [](nb::ndarray<nb::ro> a) { return import_array(a, "from_numpy"); });
  m.def("_from_numpy_as",
        [](nb::ndarray<nb::ro> a, DType as) { return import_array(a, "from_numpy", as); });
  m.def("_from_dlpack", [](nb::ndarray<nb::ro> a) { return import_array(a, "from_dlpack"); });
}

}  // namespace ember::py
