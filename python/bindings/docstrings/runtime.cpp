// The runtime (python/bindings/module.cpp, multiprocessing.cpp, numpy.cpp): dtype
// promotion, threads, build facts, shared memory, numpy export.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kRuntime[] = {
    {"promote_types", R"(The dtype PyTorch's type promotion gives an op on these two dtypes.

>>> ember.promote_types(ember.int32, ember.float16)
ember.float16
>>> ember.promote_types(ember.uint8, ember.bool)
ember.uint8)"},
    {"can_cast",
     R"(Whether PyTorch's casting rules allow an op to write from_'s dtype into to's (no float into int,
no complex into real).

>>> ember.can_cast(ember.int32, ember.float32), ember.can_cast(ember.float32, ember.int32)
(True, False))"},
    {"get_num_threads", R"(The number of threads ember's CPU kernels use.

>>> ember.get_num_threads() >= 1
True)"},
    {"set_num_threads", R"(Sets the number of threads ember's CPU kernels use (at least 1).

>>> n = ember.get_num_threads()
>>> ember.set_num_threads(1)
>>> ember.get_num_threads()
1
>>> ember.set_num_threads(n))"},
    {"build_info",
     R"(How this ember was built: a dict of str (compiler, SIMD targets, BLAS, ...); ember's own, not in
torch.

>>> isinstance(ember.build_info(), dict)
True)"},
    {"Tensor.share_memory_",
     R"(Moves self's storage into shared memory (for ember.multiprocessing); returns self.

>>> x = ember.zeros(2)
>>> x.share_memory_().is_shared()
True)"},
    {"Tensor.is_shared", R"(Whether self's storage is in shared memory.

>>> x = ember.zeros(2)
>>> x.is_shared()
False
>>> x.share_memory_().is_shared()
True)"},
    {"Tensor.numpy", R"(A numpy array sharing self's memory (self must not require grad).

>>> a = ember.tensor([1.0, 2.0]).numpy()
>>> a, a.dtype
(array([1., 2.], dtype=float32), dtype('float32')))"},
};

}  // namespace

std::span<const Docstring> runtime_docstrings() { return kRuntime; }

}  // namespace ember::py
