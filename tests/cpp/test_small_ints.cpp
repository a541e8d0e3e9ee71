// int8 and int16 through the C++ API (DType::Int8, DType::Int16): names and sizes, promotion
// (uint8 with int8 needs int16), creation range checks, casts, arithmetic that wraps as torch's,
// floor_divide/remainder signs and division by zero, sum/prod accumulating in int64, indexing,
// sorting and matmul. The Python suite (test_small_ints*.py) checks the same ops against PyTorch.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

Tensor vec(std::vector<int64_t> v, DType dt) {
  Tensor t = empty({int64_t(v.size())}, DType::Int64);
  for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
  return to_dtype(t, dt);
}

std::vector<int64_t> ints(const Tensor& t) {
  Tensor c = contiguous(to_dtype(t, DType::Int64));
  return std::vector<int64_t>(c.data<int64_t>(), c.data<int64_t>() + c.numel());
}

using V = std::vector<int64_t>;

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
  EXPECT_EQ(ints(full({2}, Scalar(int64_t(-128)), DType::Int8)), (V{-128, -128}));
  EXPECT_EQ(ints(full({1}, Scalar(int64_t(32767)), DType::Int16)), (V{32767}));
  EXPECT_THROW(full({2}, Scalar(int64_t(128)), DType::Int8), Error);
  EXPECT_THROW(full({2}, Scalar(int64_t(-32769)), DType::Int16), Error);
  Tensor r = randint(-128, 128, {4000}, DType::Int8);
  EXPECT_EQ(r.dtype(), DType::Int8);
  EXPECT_GE(ints(amin(r))[0], -128);
  EXPECT_LE(ints(amax(r))[0], 127);
  EXPECT_EQ(ints(
                arange(Scalar(int64_t(0)), Scalar(int64_t(200)), Scalar(int64_t(50)), DType::Int8)),
            (V{0, 50, 100, -106}));  // wraps, as torch
}

TEST(SmallInts, CastsWrapAndTruncate) {
  EXPECT_EQ(ints(to_dtype(vec({300, -300, 70000}, DType::Int64), DType::Int8)), (V{44, -44, 112}));
  EXPECT_EQ(ints(to_dtype(vec({70000, -70000}, DType::Int32), DType::Int16)), (V{4464, -4464}));
  Tensor f = to_dtype(vec({1, -1}, DType::Int64), DType::Float32);
  f = add(f, Scalar(0.9));  // 1.9, -0.1
  EXPECT_EQ(ints(to_dtype(f, DType::Int8)), (V{1, 0}));
  EXPECT_EQ(ints(to_dtype(vec({-128, 127}, DType::Int8), DType::UInt8)), (V{128, 127}));
  EXPECT_EQ(ints(to_dtype(vec({-32768}, DType::Int16), DType::Int8)), (V{0}));
}

TEST(SmallInts, ArithmeticWrapsAsTorch) {
  Tensor e8 = vec({-128, 127, -1, 0}, DType::Int8);
  EXPECT_EQ(ints(add(e8, Scalar(int64_t(1)))), (V{-127, -128, 0, 1}));
  EXPECT_EQ(ints(neg(e8)), (V{-128, -127, 1, 0}));
  EXPECT_EQ(ints(abs(e8)), (V{-128, 127, 1, 0}));
  EXPECT_EQ(ints(mul(e8, e8)), (V{0, 1, 1, 0}));
  EXPECT_EQ(ints(floor_divide(e8, Scalar(int64_t(-1)))), (V{-128, -127, 1, 0}));
  EXPECT_EQ(ints(sign(e8)), (V{-1, 1, -1, 0}));
  Tensor e16 = vec({-32768, 32767, 200}, DType::Int16);
  EXPECT_EQ(ints(mul(e16, Scalar(int64_t(2)))), (V{0, -2, 400}));
  EXPECT_EQ(ints(mul(e16, e16)), (V{0, 1, 40000 - 65536}));
  EXPECT_EQ(ints(clamp(e16, Scalar(int64_t(-5)), Scalar(int64_t(5)))), (V{-5, 5, 5}));
}

TEST(SmallInts, FloorDivideRemainderAndZero) {
  Tensor a = vec({-7, 7, -7, 7}, DType::Int8), b = vec({2, -2, -2, 2}, DType::Int16);
  EXPECT_EQ(floor_divide(a, b).dtype(), DType::Int16);
  EXPECT_EQ(ints(floor_divide(a, b)), (V{-4, -4, 3, 3}));
  EXPECT_EQ(ints(remainder(a, b)), (V{1, -1, -1, 1}));
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
  EXPECT_EQ(ints(bitwise_and(a, b)), (V{0, 1, 127}));
  EXPECT_EQ(ints(bitwise_or(a, b)), (V{-127, 7, -1}));
  EXPECT_EQ(ints(bitwise_xor(a, b)), (V{-127, 6, -128}));
  EXPECT_EQ(ints(bitwise_not(a)), (V{127, -6, -128}));
  EXPECT_EQ(ints(lt(a, b)), (V{1, 0, 0}));
  EXPECT_EQ(lt(a, b).dtype(), DType::Bool);
  EXPECT_EQ(ints(eq(vec({200}, DType::UInt8), vec({-56}, DType::Int8))), (V{0}));  // via int16
}

TEST(SmallInts, ReductionsAccumulateInInt64) {
  Tensor x = full({1000}, Scalar(int64_t(127)), DType::Int8);
  EXPECT_EQ(sum(x).dtype(), DType::Int64);
  EXPECT_EQ(ints(sum(x)), (V{127000}));
  EXPECT_EQ(sum(x, {}, false, DType::Int8).dtype(), DType::Int8);
  EXPECT_EQ(ints(sum(x, {}, false, DType::Int8)), (V{int8_t(127000 & 0xff)}));
  Tensor y = vec({300, 300, -2}, DType::Int16);
  EXPECT_EQ(prod(y).dtype(), DType::Int64);
  EXPECT_EQ(ints(prod(y)), (V{-180000}));
  EXPECT_EQ(cumsum(y, 0).dtype(), DType::Int64);
  EXPECT_EQ(ints(cumsum(y, 0)), (V{300, 600, 598}));
  EXPECT_EQ(amax(y).dtype(), DType::Int16);
  EXPECT_EQ(ints(amin(y)), (V{-2}));
}

TEST(SmallInts, IndexingJoiningSorting) {
  Tensor x = vec({5, -3, 9, -128}, DType::Int8);
  EXPECT_EQ(ints(index_select(x, 0, vec({3, 0}, DType::Int64))), (V{-128, 5}));
  EXPECT_EQ(ints(gather(x, 0, vec({2, 2, 1}, DType::Int64))), (V{9, 9, -3}));
  Tensor c = cat({x, vec({7}, DType::Int16)});
  EXPECT_EQ(c.dtype(), DType::Int16);
  EXPECT_EQ(ints(c), (V{5, -3, 9, -128, 7}));
  EXPECT_EQ(stack({x, x}).dtype(), DType::Int8);
  auto [values, indices] = sort(x);
  EXPECT_EQ(ints(values), (V{-128, -3, 5, 9}));
  EXPECT_EQ(ints(indices), (V{3, 1, 0, 2}));
  auto [top, where_] = topk(x, 2);
  EXPECT_EQ(ints(top), (V{9, 5}));
  EXPECT_EQ(ints(where(gt(x, Scalar(int64_t(0))), x, zeros({4}, DType::Int8))), (V{5, 0, 9, 0}));
}

TEST(SmallInts, MatmulWraps) {
  Tensor a = view(vec({100, 100, -128, 1}, DType::Int8), {2, 2});
  Tensor b = view(vec({2, 0, 0, 2}, DType::Int8), {2, 2});
  EXPECT_EQ(matmul(a, b).dtype(), DType::Int8);
  EXPECT_EQ(ints(matmul(a, b)), (V{-56, -56, 0, 2}));
  Tensor c = view(vec({300, 300}, DType::Int16), {1, 2});
  EXPECT_EQ(ints(matmul(c, transpose(c, 0, 1))), (V{int16_t(180000 & 0xffff)}));
}
