// int8 and int16 through the C++ API (DType::Int8, DType::Int16): names and sizes, promotion
// (uint8 with int8 needs int16), creation range checks, casts, arithmetic that wraps as torch's,
// floor_divide/remainder signs and division by zero, sum/prod accumulating in int64, indexing,
// sorting and matmul. The Python suite (test_small_ints*.py) checks the same ops against PyTorch.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ember/ember.h"
#include "tensor_values.h"

using namespace ember;

namespace {

using test_values::values;
using V = std::vector<double>;  // int8/int16/int64 values here are exact as doubles

Tensor vec(const std::vector<double>& v, DType dt) { return to_dtype(test_values::vec(v), dt); }

}  // namespace

TEST(SmallInts, NamesSizesAndTraits) {
  EXPECT_EQ(dtype_name(DType::Int8), "int8");
  EXPECT_EQ(dtype_name(DType::Int16), "int16");
  EXPECT_EQ(torch_type_name(DType::Int8), "Char");
  EXPECT_EQ(torch_type_name(DType::Int16), "Short");
  EXPECT_EQ(itemsize(DType::Int8), 1u);
  EXPECT_EQ(itemsize(DType::Int16), 2u);
  EXPECT_TRUE(is_integral(DType::Int8, false) && is_integral(DType::Int16, false));
  EXPECT_FALSE(is_floating_point(DType::Int16));
  EXPECT_EQ(dtype_of<int8_t>::value, DType::Int8);
  EXPECT_EQ(dtype_of<int16_t>::value, DType::Int16);
  EXPECT_EQ(ones({2}, DType::Int16).itemsize(), 2u);
}

TEST(SmallInts, Promotion) {
  EXPECT_EQ(promote_types(DType::UInt8, DType::Int8), DType::Int16);  // as torch
  EXPECT_EQ(promote_types(DType::Int8, DType::UInt8), DType::Int16);
  EXPECT_EQ(promote_types(DType::UInt8, DType::Int16), DType::Int16);
  EXPECT_EQ(promote_types(DType::Int8, DType::Int16), DType::Int16);
  EXPECT_EQ(promote_types(DType::Int16, DType::Int32), DType::Int32);
  EXPECT_EQ(promote_types(DType::Int8, DType::Bool), DType::Int8);
  EXPECT_EQ(promote_types(DType::Int16, DType::Float16), DType::Float16);
  EXPECT_EQ(promote_types(DType::Int8, DType::BFloat16), DType::BFloat16);
  EXPECT_TRUE(can_cast(DType::Int64, DType::Int8));
  EXPECT_FALSE(can_cast(DType::Float32, DType::Int16));
  Tensor a = ones({2}, DType::Int8);
  EXPECT_EQ(add(a, Scalar(int64_t(1000))).dtype(), DType::Int8);  // a Python int keeps int8
  EXPECT_EQ(add(a, Scalar(1.5)).dtype(), DType::Float32);
  EXPECT_EQ(add(a, ones({2}, DType::UInt8)).dtype(), DType::Int16);
  EXPECT_EQ(div(a, a).dtype(), DType::Float32);
}

TEST(SmallInts, CreationChecksTheRange) {
  EXPECT_EQ(values(full({2}, Scalar(int64_t(-128)), DType::Int8)), (V{-128, -128}));
  EXPECT_EQ(values(full({1}, Scalar(int64_t(32767)), DType::Int16)), (V{32767}));
  EXPECT_THROW(full({2}, Scalar(int64_t(128)), DType::Int8), Error);
  EXPECT_THROW(full({2}, Scalar(int64_t(-32769)), DType::Int16), Error);
  Tensor r = randint(-128, 128, {4000}, DType::Int8);
  EXPECT_EQ(r.dtype(), DType::Int8);
  EXPECT_GE(values(amin(r))[0], -128);
  EXPECT_LE(values(amax(r))[0], 127);
  EXPECT_EQ(values(
                arange(Scalar(int64_t(0)), Scalar(int64_t(200)), Scalar(int64_t(50)), DType::Int8)),
            (V{0, 50, 100, -106}));  // wraps, as torch
}

TEST(SmallInts, CastsWrapAndTruncate) {
  EXPECT_EQ(values(to_dtype(vec({300, -300, 70000}, DType::Int64), DType::Int8)),
            (V{44, -44, 112}));
  EXPECT_EQ(values(to_dtype(vec({70000, -70000}, DType::Int32), DType::Int16)), (V{4464, -4464}));
  Tensor f = to_dtype(vec({1, -1}, DType::Int64), DType::Float32);
  f = add(f, Scalar(0.9));  // 1.9, -0.1
  EXPECT_EQ(values(to_dtype(f, DType::Int8)), (V{1, 0}));
  EXPECT_EQ(values(to_dtype(vec({-128, 127}, DType::Int8), DType::UInt8)), (V{128, 127}));
  EXPECT_EQ(values(to_dtype(vec({-32768}, DType::Int16), DType::Int8)), (V{0}));
}

TEST(SmallInts, ArithmeticWrapsAsTorch) {
  Tensor e8 = vec({-128, 127, -1, 0}, DType::Int8);
  EXPECT_EQ(values(add(e8, Scalar(int64_t(1)))), (V{-127, -128, 0, 1}));
  EXPECT_EQ(values(neg(e8)), (V{-128, -127, 1, 0}));
  EXPECT_EQ(values(abs(e8)), (V{-128, 127, 1, 0}));
  EXPECT_EQ(values(mul(e8, e8)), (V{0, 1, 1, 0}));
  EXPECT_EQ(values(floor_divide(e8, Scalar(int64_t(-1)))), (V{-128, -127, 1, 0}));
  EXPECT_EQ(values(sign(e8)), (V{-1, 1, -1, 0}));
  Tensor e16 = vec({-32768, 32767, 200}, DType::Int16);
  EXPECT_EQ(values(mul(e16, Scalar(int64_t(2)))), (V{0, -2, 400}));
  EXPECT_EQ(values(mul(e16, e16)), (V{0, 1, 40000 - 65536}));
  EXPECT_EQ(values(clamp(e16, Scalar(int64_t(-5)), Scalar(int64_t(5)))), (V{-5, 5, 5}));
}

TEST(SmallInts, FloorDivideRemainderAndZero) {
  Tensor a = vec({-7, 7, -7, 7}, DType::Int8), b = vec({2, -2, -2, 2}, DType::Int16);
  EXPECT_EQ(floor_divide(a, b).dtype(), DType::Int16);
  EXPECT_EQ(values(floor_divide(a, b)), (V{-4, -4, 3, 3}));
  EXPECT_EQ(values(remainder(a, b)), (V{1, -1, -1, 1}));
  EXPECT_THROW(floor_divide(a, Scalar(int64_t(0))), Error);
  EXPECT_THROW(remainder(a, vec({1, 0, 1, 1}, DType::Int8)), Error);
  try {
    remainder(b, Scalar(int64_t(0)));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ZeroDivisionError"), std::string::npos) << e.what();
  }
}

TEST(SmallInts, BitwiseAndComparisons) {
  Tensor a = vec({-128, 5, 127}, DType::Int8), b = vec({1, 3, -1}, DType::Int8);
  EXPECT_EQ(values(bitwise_and(a, b)), (V{0, 1, 127}));
  EXPECT_EQ(values(bitwise_or(a, b)), (V{-127, 7, -1}));
  EXPECT_EQ(values(bitwise_xor(a, b)), (V{-127, 6, -128}));
  EXPECT_EQ(values(bitwise_not(a)), (V{127, -6, -128}));
  EXPECT_EQ(values(lt(a, b)), (V{1, 0, 0}));
  EXPECT_EQ(lt(a, b).dtype(), DType::Bool);
  EXPECT_EQ(values(eq(vec({200}, DType::UInt8), vec({-56}, DType::Int8))), (V{0}));  // via int16
}

TEST(SmallInts, ReductionsAccumulateInInt64) {
  Tensor x = full({1000}, Scalar(int64_t(127)), DType::Int8);
  EXPECT_EQ(sum(x).dtype(), DType::Int64);
  EXPECT_EQ(values(sum(x)), (V{127000}));
  EXPECT_EQ(sum(x, {}, false, DType::Int8).dtype(), DType::Int8);
  EXPECT_EQ(values(sum(x, {}, false, DType::Int8)), (V{int8_t(127000 & 0xff)}));
  Tensor y = vec({300, 300, -2}, DType::Int16);
  EXPECT_EQ(prod(y).dtype(), DType::Int64);
  EXPECT_EQ(values(prod(y)), (V{-180000}));
  EXPECT_EQ(cumsum(y, 0).dtype(), DType::Int64);
  EXPECT_EQ(values(cumsum(y, 0)), (V{300, 600, 598}));
  EXPECT_EQ(amax(y).dtype(), DType::Int16);
  EXPECT_EQ(values(amin(y)), (V{-2}));
}

TEST(SmallInts, IndexingJoiningSorting) {
  Tensor x = vec({5, -3, 9, -128}, DType::Int8);
  EXPECT_EQ(values(index_select(x, 0, vec({3, 0}, DType::Int64))), (V{-128, 5}));
  EXPECT_EQ(values(gather(x, 0, vec({2, 2, 1}, DType::Int64))), (V{9, 9, -3}));
  Tensor c = cat({x, vec({7}, DType::Int16)});
  EXPECT_EQ(c.dtype(), DType::Int16);
  EXPECT_EQ(values(c), (V{5, -3, 9, -128, 7}));
  EXPECT_EQ(stack({x, x}).dtype(), DType::Int8);
  auto [sorted, indices] = sort(x);
  EXPECT_EQ(values(sorted), (V{-128, -3, 5, 9}));
  EXPECT_EQ(values(indices), (V{3, 1, 0, 2}));
  auto [top, where_] = topk(x, 2);
  EXPECT_EQ(values(top), (V{9, 5}));
  EXPECT_EQ(values(where(gt(x, Scalar(int64_t(0))), x, zeros({4}, DType::Int8))), (V{5, 0, 9, 0}));
}

TEST(SmallInts, MatmulWraps) {
  Tensor a = view(vec({100, 100, -128, 1}, DType::Int8), {2, 2});
  Tensor b = view(vec({2, 0, 0, 2}, DType::Int8), {2, 2});
  EXPECT_EQ(matmul(a, b).dtype(), DType::Int8);
  EXPECT_EQ(values(matmul(a, b)), (V{-56, -56, 0, 2}));
  Tensor c = view(vec({300, 300}, DType::Int16), {1, 2});
  EXPECT_EQ(values(matmul(c, transpose(c, 0, 1))), (V{int16_t(180000 & 0xffff)}));
}
