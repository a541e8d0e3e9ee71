// The C++ API of the foundation: elementwise ops (promotion, broadcasting, scalars on
// either side, in-place rules, domain edges), clamp/where/masked_fill, views sharing
// storage and the version counter, and the creation ops. The Python suite checks the
// same ops against PyTorch value by value; these tests pin the C++ entry points.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

Tensor vec(std::vector<double> v, DType dt = DType::Float32) {
  Tensor t = empty({int64_t(v.size())}, DType::Float64);
  for (size_t i = 0; i < v.size(); ++i) t.data<double>()[i] = v[i];
  return to_dtype(t, dt);
}

// Values of any tensor as doubles, in logical (row-major) order.
std::vector<double> values(const Tensor& t) {
  Tensor c = contiguous(to_dtype(t, DType::Float64));
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

Tensor arange_f(int64_t n, DType dt = DType::Float32) {
  return arange(Scalar(int64_t(0)), Scalar(n), Scalar(int64_t(1)), dt);
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

// ---- promotion ------------------------------------------------------------------------------

TEST(Promotion, TensorsScalarsAndZeroDim) {
  Tensor i32 = ones({2}, DType::Int32), f32 = ones({2}), u8 = ones({2}, DType::UInt8);
  Tensor b = ones({2}, DType::Bool);
  EXPECT_EQ(mul(i32, Scalar(2.5)).dtype(), DType::Float32);  // int tensor * float -> float32
  EXPECT_EQ(mul(i32, Scalar(int64_t(2))).dtype(), DType::Int32);
  EXPECT_EQ(add(f32, scalar_tensor(Scalar(1.0), DType::Float64)).dtype(), DType::Float32);
  EXPECT_EQ(add(i32, scalar_tensor(Scalar(int64_t(1)), DType::Int64)).dtype(), DType::Int32);
  EXPECT_EQ(add(i32, scalar_tensor(Scalar(1.0), DType::Float64)).dtype(), DType::Float64);
  EXPECT_EQ(add(b, b).dtype(), DType::Bool);
  EXPECT_EQ(add(b, Scalar(int64_t(1))).dtype(), DType::Int64);
  EXPECT_EQ(add(u8, Scalar(int64_t(-3))).dtype(), DType::UInt8);
  EXPECT_EQ(add(u8, i32).dtype(), DType::Int32);
  EXPECT_EQ(add(u8, b).dtype(), DType::UInt8);
  EXPECT_EQ(div(i32, i32).dtype(), DType::Float32);  // true division
  EXPECT_EQ(add(scalar_tensor(Scalar(1.0)), ones({2}, DType::Float64)).dtype(), DType::Float64);
  EXPECT_EQ(result_type(i32, Scalar(true)), DType::Int32);
  EXPECT_EQ(result_type(b, Scalar(2.5)), DType::Float32);
  EXPECT_EQ(promote_types(DType::UInt8, DType::Int32), DType::Int32);
  EXPECT_EQ(promote_types(DType::Int64, DType::Float32), DType::Float32);
  EXPECT_FALSE(can_cast(DType::Float32, DType::Int64));
  EXPECT_FALSE(can_cast(DType::Int32, DType::Bool));
  EXPECT_TRUE(can_cast(DType::Int64, DType::UInt8));
}

// ---- binary ops -----------------------------------------------------------------------------

TEST(Binary, BroadcastShapesAndValues) {
  Tensor a = view(arange_f(3), {3, 1});
  Tensor b = arange_f(4);
  Tensor c = add(a, b);
  EXPECT_EQ(c.sizes(), (Dims{3, 4}));
  EXPECT_EQ(values(c), (std::vector<double>{0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5}));
  Tensor d = mul(ones({2, 3, 4}), view(arange_f(3), {3, 1}));
  EXPECT_EQ(d.sizes(), (Dims{2, 3, 4}));
  EXPECT_EQ(values(d)[4 * 2], 2.0);
  EXPECT_EQ(sub(zeros({0, 3}), ones({3})).sizes(), (Dims{0, 3}));
  EXPECT_EQ(add(scalar_tensor(Scalar(1.0)), scalar_tensor(Scalar(2.0))).dim(), 0);
  EXPECT_THROW(add(ones({3, 4}), ones({5})), ValueError);
}

TEST(Binary, ScalarOnEitherSide) {
  Tensor x = vec({1, 2, 4});
  EXPECT_EQ(values(sub(Scalar(10.0), x)), (std::vector<double>{9, 8, 6}));
  EXPECT_EQ(values(sub(x, Scalar(10.0))), (std::vector<double>{-9, -8, -6}));
  EXPECT_EQ(values(div(Scalar(8.0), x)), (std::vector<double>{8, 4, 2}));
  EXPECT_EQ(values(pow(Scalar(2.0), x)), (std::vector<double>{2, 4, 16}));
  EXPECT_EQ(values(remainder(Scalar(int64_t(7)), vec({2, 3, 4}, DType::Int64))),
            (std::vector<double>{1, 1, 3}));
}

TEST(Binary, NonContiguousOperands) {
  Tensor a = view(arange_f(12), {3, 4});
  Tensor at = transpose(a, 0, 1);                          // (4, 3)
  Tensor s = narrow(view(arange_f(24), {4, 6}), 1, 1, 3);  // (4, 3), row stride 6
  Tensor r = add(at, s);
  std::vector<double> v = values(r);
  EXPECT_EQ(v[0], 0 + 1);          // at[0,0] = 0, s[0,0] = 1
  EXPECT_EQ(v[1 * 3 + 2], 9 + 9);  // at[1,2] = a[2,1] = 9, s[1,2] = 6 + 3
}

TEST(Binary, FloatEdgeCases) {
  std::vector<double> q = values(div(vec({1, -1, 0}), vec({0, 0, 0})));
  EXPECT_EQ(q[0], kInf);
  EXPECT_EQ(q[1], -kInf);
  EXPECT_TRUE(std::isnan(q[2]));
  // floor division rounds like Python: 1 // 0.1 == 9
  EXPECT_EQ(values(floor_divide(vec({1.0}, DType::Float64), vec({0.1}, DType::Float64)))[0], 9.0);
  EXPECT_EQ(values(floor_divide(vec({-7}), vec({2})))[0], -4.0);
  EXPECT_EQ(values(remainder(vec({-7}), vec({2})))[0], 1.0);
  EXPECT_EQ(values(remainder(vec({7}), vec({-2})))[0], -1.0);
  std::vector<double> mx = values(maximum(vec({kNaN, 1}), vec({0, kNaN})));
  EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1]));
  EXPECT_TRUE(std::isnan(values(pow(vec({-8}), Scalar(1.0 / 3)))[0]));
}

TEST(Binary, IntegerSemantics) {
  Tensor a = vec({-7, 7, -7, 7}, DType::Int64), b = vec({2, -2, -2, 2}, DType::Int64);
  EXPECT_EQ(values(floor_divide(a, b)), (std::vector<double>{-4, -4, 3, 3}));
  EXPECT_EQ(values(remainder(a, b)), (std::vector<double>{1, -1, -1, 1}));
  EXPECT_EQ(values(div(a, b)), (std::vector<double>{-3.5, -3.5, 3.5, 3.5}));
  EXPECT_THROW(floor_divide(a, Scalar(int64_t(0))), Error);
  EXPECT_THROW(remainder(a, vec({1, 0, 1, 1}, DType::Int64)), Error);
  EXPECT_THROW(floor_divide(Scalar(int64_t(3)), vec({1, 0}, DType::Int32)), Error);
  EXPECT_EQ(values(pow(vec({2, 3, -2}, DType::Int64), Scalar(int64_t(3)))),
            (std::vector<double>{8, 27, -8}));
  EXPECT_THROW(pow(vec({2}, DType::Int64), Scalar(int64_t(-1))), Error);
  EXPECT_EQ(values(pow(vec({2, 1, -1}, DType::Int64), vec({-1, -1, -1}, DType::Int64))),
            (std::vector<double>{0, 1, -1}));
  Tensor u = vec({200}, DType::UInt8);
  EXPECT_EQ(values(add(u, Scalar(int64_t(100))))[0], 44.0);  // wraps
  EXPECT_EQ(values(neg(u))[0], 56.0);
}

TEST(Binary, BoolRules) {
  Tensor t = vec({1, 0}, DType::Bool), f = vec({1, 1}, DType::Bool);
  EXPECT_EQ(values(add(t, f)), (std::vector<double>{1, 1}));
  EXPECT_EQ(add(t, f).dtype(), DType::Bool);
  EXPECT_EQ(values(mul(t, f)), (std::vector<double>{1, 0}));
  EXPECT_THROW(sub(t, f), TypeError);
  EXPECT_THROW(sub(vec({1.5}), vec({1}, DType::Bool)), TypeError);
  EXPECT_THROW(sub(vec({1.5}), Scalar(true)), TypeError);
  EXPECT_THROW(neg(t), TypeError);
  EXPECT_THROW(abs(t), TypeError);
  EXPECT_THROW(pow(t, f), TypeError);
  EXPECT_THROW(floor_divide(t, f), TypeError);
  EXPECT_EQ(pow(t, Scalar(true)).dtype(), DType::Bool);  // bool ** scalar is allowed
  EXPECT_EQ(square(t).dtype(), DType::Int64);
  EXPECT_EQ(div(t, f).dtype(), DType::Float32);
  EXPECT_THROW(bitwise_and(vec({1.0}), vec({1.0})), TypeError);
  EXPECT_EQ(values(bitwise_not(vec({0, 5}, DType::UInt8))), (std::vector<double>{255, 250}));
  EXPECT_EQ(values(bitwise_not(t)), (std::vector<double>{0, 1}));
}

TEST(Binary, AddAlpha) {
  EXPECT_EQ(values(add(vec({1, 2}), vec({1, 1}), Scalar(2.5))), (std::vector<double>{3.5, 4.5}));
  EXPECT_EQ(values(sub(vec({1, 2}, DType::Int64), vec({1, 1}, DType::Int64), Scalar(int64_t(3)))),
            (std::vector<double>{-2, -1}));
  EXPECT_THROW(add(vec({1}, DType::Int64), vec({1}, DType::Int64), Scalar(1.5)), TypeError);
  EXPECT_THROW(add(vec({1}), vec({1}), Scalar(true)), TypeError);
}

// ---- unary ops ------------------------------------------------------------------------------

TEST(Unary, DtypesAndDomainEdges) {
  EXPECT_EQ(exp(ones({2}, DType::Int64)).dtype(), DType::Float32);
  EXPECT_EQ(exp(ones({2}, DType::Float64)).dtype(), DType::Float64);
  EXPECT_EQ(abs(ones({2}, DType::Int32)).dtype(), DType::Int32);
  std::vector<double> l = values(log(vec({-1, 0, 1})));
  EXPECT_TRUE(std::isnan(l[0]));
  EXPECT_EQ(l[1], -kInf);
  EXPECT_EQ(l[2], 0.0);
  EXPECT_TRUE(std::isnan(values(sqrt(vec({-1})))[0]));
  EXPECT_EQ(values(rsqrt(vec({0})))[0], kInf);
  EXPECT_EQ(values(reciprocal(vec({0, 2}, DType::Int64))), (std::vector<double>{kInf, 0.5}));
  EXPECT_EQ(values(round(vec({0.5, 1.5, 2.5, -0.5}))), (std::vector<double>{0, 2, 2, -0.0}));
  EXPECT_EQ(values(sign(vec({kNaN, -2, 0, 3}))), (std::vector<double>{0, -1, 0, 1}));
  EXPECT_EQ(values(sigmoid(vec({-1000, 0, 1000}))), (std::vector<double>{0, 0.5, 1}));
  EXPECT_TRUE(std::isnan(values(relu(vec({kNaN})))[0]));
  EXPECT_EQ(values(relu(vec({-2, 3}, DType::Int32))), (std::vector<double>{0, 3}));
}

TEST(Unary, LargeParallelMatchesSerialFormula) {
  Tensor x = arange(Scalar(0.0), Scalar(1.0), Scalar(1.0 / 200000), DType::Float64);
  std::vector<double> v = values(sin(x)), in = values(x);
  ASSERT_EQ(v.size(), in.size());
  for (size_t i = 0; i < v.size(); i += 997) EXPECT_DOUBLE_EQ(v[i], std::sin(in[i]));
  Tensor xt = transpose(view(x, {400, 500}), 0, 1);  // strided, big
  std::vector<double> e = values(exp(xt)), src = values(xt);
  for (size_t i = 0; i < e.size(); i += 1009) EXPECT_DOUBLE_EQ(e[i], std::exp(src[i]));
}

// ---- compare and logical ------------------------------------------------------------------

TEST(Compare, ResultsAreBoolAndPromote) {
  Tensor a = vec({1, 2, 3}, DType::Int64);
  Tensor r = lt(a, Scalar(2.5));
  EXPECT_EQ(r.dtype(), DType::Bool);
  EXPECT_EQ(values(r), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(values(eq(a, vec({1, 2.5, 3}))), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(values(ne(vec({kNaN}), vec({kNaN}))), (std::vector<double>{1}));
  EXPECT_EQ(values(logical_and(vec({1, 0, 2}), vec({3, 3, 0}, DType::Int32))),
            (std::vector<double>{1, 0, 0}));
  EXPECT_EQ(values(logical_xor(vec({1, 0}), Scalar(true))), (std::vector<double>{0, 1}));
  EXPECT_EQ(values(logical_not(vec({kNaN, 0}))), (std::vector<double>{0, 1}));
  EXPECT_EQ(ge(ones({3, 1}), ones({4})).sizes(), (Dims{3, 4}));
}

// ---- in-place ---------------------------------------------------------------------------------

TEST(Inplace, WritesThroughViewsAndBumpsVersion) {
  Tensor x = zeros({3, 4});
  Tensor v = transpose(x, 0, 1);
  uint32_t v0 = x.version();
  add_(v, Scalar(1.0));
  EXPECT_GT(x.version(), v0);
  EXPECT_EQ(v.version(), x.version());
  uint32_t v1 = x.version();
  Tensor row = select(x, 0, 1), col = narrow(x, 1, 0, 1), last = select(x, 1, 3);
  mul_(row, Scalar(3.0));
  exp_(col);
  clamp_(x, Scalar(0.0), Scalar(2.0));
  masked_fill_(x, gt(x, Scalar(1.5)), Scalar(-1.0));
  fill_(last, Scalar(7.0));
  copy_(v, ones({4, 3}));
  zero_(x);
  EXPECT_EQ(x.version(), v1 + 7);
  Tensor y = add(x, Scalar(1.0));  // out-of-place: no bump
  EXPECT_EQ(x.version(), v1 + 7);
  EXPECT_EQ(y.version(), 0u);
}

TEST(Inplace, RefusalsLeaveSelfUntouched) {
  Tensor a = vec({1, 2}, DType::Int64);
  uint32_t v0 = a.version();
  EXPECT_THROW(add_(a, Scalar(0.5)), Error);         // RuntimeError, as torch
  EXPECT_THROW(div_(a, Scalar(int64_t(2))), Error);  // RuntimeError, as torch
  EXPECT_THROW(exp_(a), Error);                      // RuntimeError, as torch
  EXPECT_THROW(add_(a, ones({3, 2}, DType::Int64)), Error);
  EXPECT_THROW(floor_divide_(a, Scalar(int64_t(0))), Error);
  EXPECT_THROW(pow_(a, Scalar(int64_t(-1))), Error);
  EXPECT_EQ(a.version(), v0);
  EXPECT_EQ(values(a), (std::vector<double>{1, 2}));
  Tensor b = vec({1}, DType::Bool);
  EXPECT_THROW(add_(b, Scalar(int64_t(1))), Error);
}

TEST(Inplace, ExpandedSelfIsRefused) {
  Tensor base = zeros({1});
  Tensor e = expand(base, {3});
  EXPECT_THROW(add_(e, Scalar(1.0)), Error);
  EXPECT_THROW(neg_(e), Error);
  EXPECT_THROW(copy_(e, ones({3})), Error);
  EXPECT_THROW(clamp_(e, Scalar(0.0), std::nullopt), Error);
  EXPECT_EQ(values(base)[0], 0.0);
  fill_(e, Scalar(2.0));  // allowed: every element gets the same value
  EXPECT_EQ(values(base)[0], 2.0);
}

TEST(Inplace, OverlappingOperandIsReadFirst) {
  Tensor x = view(arange_f(4), {2, 2});
  Tensor xt = transpose(x, 0, 1);
  add_(x, xt);  // x + x.t() computed from the old values
  EXPECT_EQ(values(x), (std::vector<double>{0, 3, 3, 6}));
}

TEST(Inplace, ComputesInThePromotedDtype) {
  Tensor u = vec({200}, DType::UInt8);
  floor_divide_(u, vec({-3}, DType::Int64));  // int64: 200 // -3 = -67 -> 189 in uint8
  EXPECT_EQ(values(u)[0], 189.0);
  Tensor f = vec({1});
  mul_(f, vec({0.1}, DType::Float64));
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_FLOAT_EQ(float(values(f)[0]), 0.1f);
}

// ---- clamp / where / masked_fill -----------------------------------------------------------

TEST(Clamp, BoundsDtypesAndNaN) {
  Tensor x = vec({-2, 0.5, 3, kNaN});
  std::vector<double> c = values(clamp(x, Scalar(-1.0), Scalar(1.0)));
  EXPECT_EQ(c[0], -1.0);
  EXPECT_EQ(c[1], 0.5);
  EXPECT_EQ(c[2], 1.0);
  EXPECT_TRUE(std::isnan(c[3]));
  EXPECT_EQ(values(clamp(vec({1, 5}), Scalar(3.0), Scalar(2.0))), (std::vector<double>{2, 2}));
  EXPECT_EQ(clamp(vec({1, 5}, DType::Int64), Scalar(0.5), std::nullopt).dtype(), DType::Float32);
  EXPECT_THROW(clamp(x, std::nullopt, std::nullopt), ValueError);
  EXPECT_THROW(clamp(vec({1}, DType::UInt8), Scalar(int64_t(300)), std::nullopt), Error);
  Tensor i = vec({1, 5}, DType::Int32);
  EXPECT_THROW(clamp_(i, std::nullopt, Scalar(2.5)), Error);  // RuntimeError, as torch
}

TEST(Where, BroadcastAndPromote) {
  Tensor cond = view(vec({1, 0, 1}, DType::Bool), {3, 1});
  Tensor r = where(cond, ones({4}, DType::Int32), zeros({3, 4}, DType::Float64));
  EXPECT_EQ(r.sizes(), (Dims{3, 4}));
  EXPECT_EQ(r.dtype(), DType::Float64);
  EXPECT_EQ(values(r)[0], 1.0);
  EXPECT_EQ(values(r)[4], 0.0);
  EXPECT_THROW(where(ones({2}), ones({2}), ones({2})), TypeError);
}

TEST(Where, ScalarOperandTakesTheTensorsDtypeAndMustFit) {
  Tensor cond = vec({1, 0}, DType::Bool);
  Tensor i8 = vec({1, 2}, DType::Int8);
  Tensor r = where(cond, i8, Scalar(int64_t(100)));
  EXPECT_EQ(r.dtype(), DType::Int8);
  EXPECT_EQ(values(r), (std::vector<double>{1, 100}));
  EXPECT_EQ(where(cond, Scalar(2.5), i8).dtype(), DType::Float32);
  EXPECT_THROW(where(cond, i8, Scalar(int64_t(300))), Error);  // torch: RuntimeError
  EXPECT_THROW(where(cond, Scalar(int64_t(-129)), i8), Error);
  EXPECT_EQ(values(where(cond, vec({1, 2}, DType::UInt8), Scalar(int64_t(-1))))[1], 255.0);
  EXPECT_THROW(where(cond, vec({1, 2}), Scalar(1e300)), Error);
}

TEST(MaskedFill, ValuesRangesAndAliasing) {
  Tensor x = vec({1, 2, 3});
  Tensor m = vec({1, 0, 1}, DType::Bool);
  EXPECT_EQ(values(masked_fill(x, m, Scalar(9.0))), (std::vector<double>{9, 2, 9}));
  EXPECT_EQ(values(x), (std::vector<double>{1, 2, 3}));
  EXPECT_THROW(masked_fill(x, vec({1, 0, 1}, DType::Int64), Scalar(0.0)), TypeError);
  EXPECT_THROW(masked_fill(vec({1}, DType::UInt8), vec({1}, DType::Bool), Scalar(int64_t(256))),
               Error);
  EXPECT_EQ(values(
                masked_fill(vec({1}, DType::UInt8), vec({1}, DType::Bool), Scalar(int64_t(-1))))[0],
            255);
  Tensor y = ones({2, 3});
  masked_fill_(y, gt(narrow(y, 1, 0, 1), Scalar(0.0)), Scalar(5.0));  // the mask aliases y
  EXPECT_EQ(values(y), std::vector<double>(6, 5.0));
}

// ---- views and joins -----------------------------------------------------------------------

TEST(Views, ShareStorageAndGeometry) {
  Tensor x = view(arange_f(24), {2, 3, 4});
  Tensor p = permute(x, {2, 0, 1});
  EXPECT_EQ(p.sizes(), (Dims{4, 2, 3}));
  EXPECT_EQ(p.strides(), (Dims{1, 12, 4}));
  EXPECT_EQ(p.storage(), x.storage());
  Tensor s = select(x, 1, 2);
  EXPECT_EQ(s.offset(), 8);
  EXPECT_EQ(s.sizes(), (Dims{2, 4}));
  Tensor d = diagonal(view(arange_f(12), {3, 4}), 1);
  EXPECT_EQ(values(d), (std::vector<double>{1, 6, 11}));
  Tensor e = expand(view(arange_f(3), {3, 1}), {2, 3, 4});
  EXPECT_EQ(e.strides(), (Dims{0, 1, 0}));
  EXPECT_EQ(unsqueeze(x, 3).sizes(), (Dims{2, 3, 4, 1}));
  EXPECT_EQ(squeeze(zeros({1, 2, 1})).sizes(), (Dims{2}));
  EXPECT_EQ(squeeze(zeros({1, 2, 1}), Dims{}).sizes(), (Dims{1, 2, 1}));  // no dims: no-op
  EXPECT_EQ(flatten(x, 1).sizes(), (Dims{2, 12}));
  EXPECT_EQ(unflatten(x, -1, {2, -1}).sizes(), (Dims{2, 3, 2, 2}));
  EXPECT_THROW(view(transpose(x, 0, 2), {24}), Error);
  Tensor r = reshape(transpose(x, 0, 2), {24});  // a copy
  EXPECT_NE(r.storage(), x.storage());
  EXPECT_EQ(reshape(x, {6, 4}).storage(), x.storage());
}

TEST(Views, SplitChunkUnbind) {
  Tensor x = arange_f(10);
  std::vector<Tensor> c = chunk(x, 4);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[3].sizes(), (Dims{1}));
  std::vector<Tensor> s = split_with_sizes(x, {2, 3, 5});
  EXPECT_EQ(values(s[1]), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(split(x, 3).size(), 4u);
  EXPECT_EQ(unbind(view(x, {2, 5}), 1).size(), 5u);
  EXPECT_THROW(split_with_sizes(x, {2, 3}), ValueError);
  EXPECT_THROW(chunk(x, 0), ValueError);
  EXPECT_THROW(select(x, 0, 10), IndexError);
  EXPECT_THROW(narrow(x, 0, 8, 3), IndexError);
  EXPECT_THROW(transpose(x, 0, 1), IndexError);
}

TEST(Join, CatStackPromotion) {
  Tensor a = ones({2, 3}, DType::Int32), b = zeros({1, 3}, DType::Float32);
  Tensor c = cat({a, b}, 0);
  EXPECT_EQ(c.sizes(), (Dims{3, 3}));
  EXPECT_EQ(c.dtype(), DType::Float32);
  EXPECT_EQ(cat({zeros({0}), ones({2, 2})}, 0).sizes(), (Dims{2, 2}));  // legacy empty skip
  EXPECT_THROW(cat({ones({2, 3}), ones({2, 2})}, 0), ValueError);
  EXPECT_THROW(cat({}, 0), ValueError);
  Tensor s = stack({arange_f(3), arange_f(3)}, -1);
  EXPECT_EQ(s.sizes(), (Dims{3, 2}));
  EXPECT_EQ(values(s), (std::vector<double>{0, 0, 1, 1, 2, 2}));
  EXPECT_THROW(stack({ones({3}), ones({2})}, 0), ValueError);
}

// ---- creation ------------------------------------------------------------------------------

TEST(Creation, ArangeLinspaceEyeFull) {
  EXPECT_EQ(values(arange(Scalar(int64_t(0)), Scalar(int64_t(5)), Scalar(int64_t(2)))),
            (std::vector<double>{0, 2, 4}));
  EXPECT_EQ(arange(Scalar(0.0), Scalar(1.0), Scalar(0.1)).numel(), 10);
  EXPECT_EQ(arange(Scalar(0.0), Scalar(2.5), Scalar(int64_t(1)), DType::Int64).numel(), 2);
  EXPECT_EQ(arange(Scalar(0.0), Scalar(2.5), Scalar(int64_t(1)), DType::Int32).numel(), 3);
  EXPECT_THROW(arange(Scalar(int64_t(0)), Scalar(int64_t(5)), Scalar(int64_t(0))), ValueError);
  EXPECT_THROW(arange(Scalar(int64_t(5)), Scalar(int64_t(0)), Scalar(int64_t(1))), ValueError);
  EXPECT_THROW(arange(Scalar(0.0), Scalar(kNaN), Scalar(1.0)), ValueError);
  EXPECT_EQ(values(linspace(0, 1, 5)), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(values(linspace(3, 7, 1)), (std::vector<double>{3}));
  EXPECT_EQ(linspace(0, 1, 0).numel(), 0);
  EXPECT_THROW(linspace(0, 1, -1), ValueError);
  EXPECT_EQ(values(eye(2, 3)), (std::vector<double>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(eye(3).sizes(), (Dims{3, 3}));
  EXPECT_THROW(eye(-1), ValueError);
  EXPECT_THROW(eye(2, -2), ValueError);
  EXPECT_EQ(full({2}, Scalar(int64_t(7))).dtype(), DType::Int64);
  EXPECT_EQ(full({2}, Scalar(true)).dtype(), DType::Bool);
  EXPECT_EQ(values(full({2}, Scalar(int64_t(-1)), DType::UInt8))[0], 255.0);
  EXPECT_THROW(full({2}, Scalar(int64_t(300)), DType::UInt8), Error);
  EXPECT_THROW(full({2}, Scalar(kNaN), DType::Int32), Error);
  EXPECT_THROW(full({2}, Scalar(1e300), DType::Float32), Error);
  EXPECT_THROW(zeros({2, -1}), ValueError);
}

TEST(Creation, RandomIsSeededAndInRange) {
  manual_seed(42);
  std::vector<double> a = values(rand({100}));
  std::vector<double> p = values(randperm(20));
  manual_seed(42);
  EXPECT_EQ(values(rand({100})), a);
  EXPECT_EQ(values(randperm(20)), p);
  for (double v : a) EXPECT_TRUE(v >= 0 && v < 1);
  std::vector<double> r = values(randint(-3, 3, {500}));
  for (double v : r) EXPECT_TRUE(v >= -3 && v < 3);
  EXPECT_THROW(randint(3, 3, {2}), ValueError);
  EXPECT_THROW(rand({2}, DType::Int64), NotImplementedError);  // as torch
  EXPECT_EQ(randn({2, 3}, DType::Float64).dtype(), DType::Float64);
}

TEST(Copy, CloneContiguousToDtype) {
  Tensor x = transpose(view(arange_f(6), {2, 3}), 0, 1);
  Tensor c = contiguous(x);
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_NE(c.storage(), x.storage());
  EXPECT_EQ(values(c), values(x));
  Tensor y = arange_f(3);
  EXPECT_TRUE(contiguous(y).is_same(y));
  EXPECT_TRUE(to_dtype(y, DType::Float32).is_same(y));
  EXPECT_EQ(values(to_dtype(vec({1.7, -1.7, kNaN}), DType::Int32)),
            (std::vector<double>{1, -1, 0}));
  Tensor d = detach(y);
  EXPECT_EQ(d.storage(), y.storage());
  EXPECT_FALSE(d.is_same(y));
}
