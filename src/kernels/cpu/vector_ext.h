// GCC vector-extension types for the per-ISA kernel copies (nn_impl.h, attention_impl.h):
// V<T>, a vector of EMBER_VECTOR_BYTES bytes of float or double (16: SSE2, 32: AVX2, 64:
// AVX-512, as the includer's target allows), kW<T> its lanes, loadv / storev unaligned.
// Include this INSIDE the includer's ISA-named anonymous namespace with EMBER_VECTOR_BYTES
// defined (as branchless.h: each ISA gets its own copy, no include guard on purpose).
template <class T>
struct VecOf;
template <>
struct VecOf<float> {
  typedef float type __attribute__((vector_size(EMBER_VECTOR_BYTES)));
};
template <>
struct VecOf<double> {
  typedef double type __attribute__((vector_size(EMBER_VECTOR_BYTES)));
};
template <class T>
using V = typename VecOf<T>::type;
template <class T>
constexpr int kW = int(EMBER_VECTOR_BYTES / sizeof(T));  // lanes of V<T>

template <class T>
V<T> loadv(const T* p) {
  V<T> v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void storev(T* p, V<T> v) {
  __builtin_memcpy(p, &v, sizeof v);
}
