// Scalar: a Python number (bool, int, float or complex) passed to an op.
// Scalars take part in type promotion with the lowest priority (as in PyTorch:
// `int_tensor * 2.5` is float32, `float32_tensor * 2.5` stays float32, `float64_t * 1j`
// is complex128).
#pragma once
#include <complex>
#include <cstdint>

#include "ember/dtype.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float, Complex };
  Scalar() : kind_(Kind::Int), i_(0) {}
  Scalar(bool v) : kind_(Kind::Bool), i_(v) {}
  Scalar(int v) : kind_(Kind::Int), i_(v) {}
  Scalar(int64_t v) : kind_(Kind::Int), i_(v) {}
  Scalar(double v) : kind_(Kind::Float), d_(v) {}
  Scalar(float v) : kind_(Kind::Float), d_(v) {}
  Scalar(std::complex<double> v) : kind_(Kind::Complex), d_(v.real()), im_(v.imag()) {}

  Kind kind() const { return kind_; }
  bool is_floating() const { return kind_ == Kind::Float; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_complex() const { return kind_ == Kind::Complex; }
  // 0 = bool, 1 = int, 2 = float, 3 = complex (as ember::category of a dtype).
  int category() const { return int(kind_); }
  // A complex scalar's real part (the imaginary part is dropped, as a C++ conversion).
  double to_double() const { return kind_ >= Kind::Float ? d_ : double(i_); }
  int64_t to_int() const { return kind_ >= Kind::Float ? int64_t(d_) : i_; }
  double imag() const { return kind_ == Kind::Complex ? im_ : 0.0; }
  std::complex<double> to_complex() const { return {to_double(), imag()}; }
  // The dtype a tensor made from this scalar gets (the default complex or floating dtype,
  // int64 or bool).
  DType default_dtype() const {
    return kind_ == Kind::Complex ? default_complex_dtype()
           : kind_ == Kind::Float ? ember::default_dtype()
           : kind_ == Kind::Int   ? DType::Int64
                                  : DType::Bool;
  }
  template <class T>
  T to() const {
    if constexpr (is_complex_v<T>) return T(to_complex());
    else if constexpr (std::is_same_v<T, bool>)
      return kind_ >= Kind::Float ? (d_ != 0 || imag() != 0) : i_ != 0;
    else if constexpr (std::is_floating_point_v<T>) return T(to_double());
    else return kind_ >= Kind::Float ? T(d_) : T(i_);
  }

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
  double im_ = 0.0;
};

}  // namespace ember
