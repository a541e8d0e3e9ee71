// The bridge from Tensors to kernel Loops: broadcast each tensor's strides to the
// loop shape and hand the kernel raw pointers. Private to src/ops.
#pragma once
#include <initializer_list>

#include "ember/tensor.h"
#include "kernels/cpu/loop.h"

namespace ember::ops {

// A Loop over `shape` whose operand k is tensor ts[k] broadcast to `shape`.
kernels::Loop make_loop(IntList shape, std::initializer_list<const Tensor*> ts);

// A Loop over `shape` with operands ts..., then one stride-0 operand pointing at `scalar`
// (a value already converted to the loop's dtype).
kernels::Loop make_loop_with_scalar(IntList shape, std::initializer_list<const Tensor*> ts,
                                    void* scalar, int64_t itemsize);

// Note [Output layout]: the result of an elementwise op over `inputs`. As in PyTorch, when
// every input has the result's shape and the same strides, and those strides cover their
// memory without gaps or overlaps (a transposed or permuted tensor), the result takes that
// layout, so every operand walks memory in order (a.t() + b.t() at copy speed, not one row
// jump per element); otherwise it is contiguous.
Tensor empty_like_inputs(IntList shape, DType dt, std::initializer_list<const Tensor*> inputs);

// Writes `v` converted to dtype `dt` into buf (at least 16 bytes: complex128).
void store_scalar(DType dt, Scalar v, void* buf);

// Throws when `v` cannot be stored as `dt` without overflow (PyTorch's checked
// conversion, used by fill_/full/masked_fill/clamp): out-of-range integers, NaN or
// out-of-range floats into an integer dtype, finite doubles beyond float32's range.
// Negative integers may wrap into uint8 (as in PyTorch, so `-1` fills 255).
void check_scalar_fits(DType dt, Scalar v, const char* op);

// Throws when an in-place op would write one memory location through several elements
// of `t` (a stride-0 dim of size > 1, as made by expand): the result would depend on
// the order of the writes. PyTorch refuses the same way.
void check_no_internal_overlap(const Tensor& t, const char* op);

// Throws when an op's result dtype `result` cannot be cast to the dtype of the tensor it is
// written into (`out`: the self of an in-place op, or an out= argument), as PyTorch refuses.
void check_result_cast(const char* op, DType result, DType out);

// `b`, or a copy of it when it overlaps the storage `a` writes to, so an in-place op never
// reads an element it already overwrote.
Tensor unaliased(const Tensor& a, const Tensor& b);

// Throws TypeError when x is not floating point, naming op and x's shape, as torch's
// layers and losses refuse integer inputs.
void check_floating_input(const Tensor& x, const char* op);

// Throws when `t` was not defined (an empty handle reached an op).
void check_defined(const Tensor& t, const char* op);

}  // namespace ember::ops
