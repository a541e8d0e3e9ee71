// Complex tensors (complex64, complex128): views between complex and real, construction,
// conjugation. Arithmetic (add, mul, div, pow, exp, log, sqrt, ...), sum/mean and matmul
// take complex tensors through their usual ops; an op that has not been taught complex
// raises "<op>: not implemented for 'complex64'" (Note [Adding a dtype] in dtype.h).
//
//   Tensor z = complex(randn({3}), randn({3}));   // complex64
//   Tensor r = view_as_real(z);                     // [3, 2] float32, same storage
//   Tensor loss = sum(abs(mul(z, z)));              // gradients follow PyTorch's convention
//
// Gradients are PyTorch's (conjugate Wirtinger): for a real loss L of z = x + iy, z.grad is
// dL/dx + i dL/dy.
#pragma once
#include "ember/tensor.h"

namespace ember {

// A real view of a complex tensor: shape [..., 2] (real, imaginary), strides doubled, last
// stride 1, the same storage.
Tensor view_as_real(const Tensor& t);
// The inverse view of a float32/float64 tensor whose last dim has size 2 and stride 1 (other
// strides and the offset even).
Tensor view_as_complex(const Tensor& t);
// The real and imaginary parts as views (writable: real(z).mul_(2) changes z). real() of a
// real tensor is the tensor itself; imag() of one raises, as torch.
Tensor real(const Tensor& t);
Tensor imag(const Tensor& t);
// real + i imag (float32 -> complex64, float64 -> complex128), broadcast.
Tensor complex(const Tensor& real, const Tensor& imag);
// abs * (cos(angle) + i sin(angle)).
Tensor polar(const Tensor& abs, const Tensor& angle);
// The argument of each element (atan2(imag, real)); for a real tensor, pi where negative, 0
// elsewhere (NaN stays NaN); integers give float32.
Tensor angle(const Tensor& t);
// The complex conjugate as a new tensor (a real tensor: itself for conj, a copy for
// conj_physical). ember has no lazy conjugate bit: is_conj() is always false.
Tensor conj(const Tensor& t);
Tensor conj_physical(const Tensor& t);
Tensor& conj_physical_(Tensor& t);

}  // namespace ember
