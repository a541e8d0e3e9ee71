// Complex tensors (python/bindings/complex.cpp): views between complex and real storage, angle
// and conjugation.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kComplex[] = {
    {"view_as_real",
     R"(A real view of a complex tensor with a trailing dimension of 2 (real, imaginary); shares
storage.

>>> z = ember.tensor([1 + 2j, 3 - 1j])
>>> ember.view_as_real(z)
tensor([[ 1.,  2.],
        [ 3., -1.]]))"},
    {"view_as_complex",
     R"(A complex view of a real tensor whose last dimension is 2 (real, imaginary) and has stride 1;
shares storage.

>>> ember.view_as_complex(ember.tensor([[1.0, 2.0], [3.0, -1.0]]))
tensor([1.+2.j, 3.-1.j]))"},
    {"angle",
     R"(The argument (radians) of each complex element; for real input 0 where >= 0 and pi where
negative.

>>> z = ember.tensor([1j, -1 + 0j])
>>> ember.angle(z), ember.tensor([-2.0, 2.0]).angle()
(tensor([1.5708, 3.1416]), tensor([3.1416, 0.0000])))"},
    {"conj", R"(The complex conjugate of each element; real tensors are returned as they are.

>>> z = ember.tensor([1 + 2j])
>>> ember.conj(z), z.conj()
(tensor([1.-2.j]), tensor([1.-2.j])))"},
    {"conj_physical",
     R"(The complex conjugate of each element, computed into new memory (ember has no lazy conjugate
bit, so conj does the same).

>>> z = ember.tensor([1 + 2j, 3 - 1j])
>>> ember.conj_physical(z), z.conj_physical()
(tensor([1.-2.j, 3.+1.j]), tensor([1.-2.j, 3.+1.j])))"},
    {"Tensor.conj_physical_",
     R"(In-place Tensor.conj_physical: the result is written into self, which is returned.

>>> z = ember.tensor([1 + 2j])
>>> z.conj_physical_()
tensor([1.-2.j])
>>> z
tensor([1.-2.j]))"},
};

}  // namespace

std::span<const Docstring> complex_docstrings() { return kComplex; }

}  // namespace ember::py
