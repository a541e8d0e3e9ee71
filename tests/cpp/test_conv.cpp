#include <gtest/gtest.h>

#include <vector>

#include "ember/autograd.h"
#include "ember/ember.h"

#include "tensor_values.h"

using namespace ember;
using namespace ember::test_values;

namespace {

struct Conv {
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
};

// Direct convolution in double: out[n, o, y, x] = b[o] + sum w[o, c, i, j] * in[n, g*cg + c, ...].
// With grad_out given, also the three gradients (the adjoint of the same loops).
struct Reference {
  std::vector<double> out, gin, gw, gb;
};
Reference reference(const Tensor& x, const Tensor& w, const Tensor& b, const Conv& p,
                    const Tensor& grad_out = Tensor()) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t O = w.size(0), cg = w.size(1), KH = w.size(2), KW = w.size(3), og = O / p.groups;
  const int64_t HO = (H + 2 * p.ph - p.dh * (KH - 1) - 1) / p.sh + 1;
  const int64_t WO = (W + 2 * p.pw - p.dw * (KW - 1) - 1) / p.sw + 1;
  std::vector<double> X = values(x), Wt = values(w), B = values(b);
  std::vector<double> G = grad_out.defined() ? values(grad_out) : std::vector<double>();
  Reference r{std::vector<double>(size_t(N * O * HO * WO)), std::vector<double>(X.size()),
              std::vector<double>(Wt.size()), std::vector<double>(size_t(O))};
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t y = 0; y < HO; ++y)
        for (int64_t xo = 0; xo < WO; ++xo) {
          const size_t oi = size_t(((n * O + o) * HO + y) * WO + xo);
          double acc = B[size_t(o)];
          const double g = G.empty() ? 0 : G[oi];
          r.gb[size_t(o)] += g;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t i = 0; i < KH; ++i)
              for (int64_t j = 0; j < KW; ++j) {
                const int64_t ih = y * p.sh - p.ph + i * p.dh, iw = xo * p.sw - p.pw + j * p.dw;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                const size_t xi = size_t(((n * C + (o / og) * cg + c) * H + ih) * W + iw);
                const size_t wi = size_t(((o * cg + c) * KH + i) * KW + j);
                acc += Wt[wi] * X[xi];
                r.gw[wi] += g * X[xi];
                r.gin[xi] += g * Wt[wi];
              }
          r.out[oi] = acc;
        }
  return r;
}

Tensor leaf(Tensor t) {
  autograd::set_requires_grad(t, true);
  return t;
}

}  // namespace

TEST(Conv, ForwardAndBackwardMatchDirectLoops) {
  manual_seed(0);
  struct Case {
    Dims in, w;
    Conv p;
  };
  const std::vector<Case> cases = {
      {{2, 3, 7, 6}, {4, 3, 3, 3}, {}},
      {{3, 4, 9, 8}, {6, 2, 3, 2}, {2, 1, 1, 2, 2, 1, 2}},  // stride, padding, dilation, groups
      {{2, 5, 4, 6}, {3, 5, 1, 1}, {}},                     // 1x1: no im2col
      {{3, 4, 4, 6}, {6, 2, 1, 1}, {1, 1, 0, 0, 1, 1, 2}},  // grouped 1x1
      {{37, 2, 6, 6}, {3, 2, 3, 3}, {1, 1, 1, 1}},          // more images than blocks
  };
  for (const Case& k : cases) {
    Tensor x = leaf(randn(k.in, DType::Float64)), w = leaf(randn(k.w, DType::Float64));
    Tensor b = leaf(randn({k.w[0]}, DType::Float64));
    Tensor out = conv2d(x, w, b, {k.p.sh, k.p.sw}, {k.p.ph, k.p.pw}, {k.p.dh, k.p.dw}, k.p.groups);
    Tensor g = randn(out.sizes(), DType::Float64);
    Reference r = reference(x, w, b, k.p, g);
    expect_near(out, r.out);
    autograd::backward({out}, {g}, false, false);
    expect_near(autograd::grad(x), r.gin);
    expect_near(autograd::grad(w), r.gw);
    expect_near(autograd::grad(b), r.gb);
  }
}

TEST(Conv, StridedInputAndFloat32) {
  manual_seed(1);
  Tensor base = randn({2, 6, 8, 3});       // channels last
  Tensor x = permute(base, {0, 3, 1, 2});  // (2, 3, 6, 8), not contiguous
  Tensor w = randn({4, 3, 3, 3}), b = randn({4});
  Reference r = reference(contiguous(x), w, b, Conv{1, 1, 1, 1});
  expect_near(conv2d(x, w, b, {1}, {1}), r.out, 1e-4);
  // unbatched input: the batch dim is added and removed
  Tensor x3 = select(x, 0, 0);
  Tensor out3 = conv2d(x3, w, b, {1, 1}, {1, 1});
  EXPECT_EQ(out3.sizes(), (Dims{4, 6, 8}));
  expect_near(out3, std::vector<double>(r.out.begin(), r.out.begin() + 4 * 6 * 8), 1e-4);
  // a 1x1 kernel on a channels-last input: BLAS cannot read it in place, im2col copies it
  Tensor xl = leaf(permute(randn({3, 5, 4, 6}, DType::Float64), {0, 3, 1, 2}));
  Tensor w1 = leaf(randn({2, 6, 1, 1}, DType::Float64)), b1 = leaf(zeros({2}, DType::Float64));
  Tensor out1 = conv2d(xl, w1, b1);
  Tensor g1 = randn(out1.sizes(), DType::Float64);
  Reference r1 = reference(contiguous(xl), w1, b1, Conv{}, g1);
  expect_near(out1, r1.out);
  autograd::backward({out1}, {g1}, false, false);
  expect_near(autograd::grad(xl), r1.gin);
  expect_near(autograd::grad(w1), r1.gw);
}

TEST(Conv, GradientsDoNotDependOnThreadCount) {
  manual_seed(2);
  Tensor x = randn({20, 3, 10, 10}), w = randn({5, 3, 3, 3}), b = randn({5});
  std::vector<std::vector<double>> runs;
  const int old = get_num_threads();
  for (int n : {1, 2}) {
    set_num_threads(n);
    Tensor xs = leaf(detach(x)), ws = leaf(detach(w)), bs = leaf(detach(b));
    Tensor out = conv2d(xs, ws, bs, {1, 1}, {1, 1});
    autograd::backward({out}, {ones(out.sizes())}, false, false);
    std::vector<double> all = values(autograd::grad(ws));
    for (double v : values(autograd::grad(bs))) all.push_back(v);
    for (double v : values(autograd::grad(xs))) all.push_back(v);
    runs.push_back(all);
  }
  set_num_threads(old);
  EXPECT_EQ(runs[0], runs[1]);
}

TEST(Conv, SamePadding) {
  Tensor x = ones({1, 1, 5, 6}), w = ones({1, 1, 2, 4});
  Tensor out = conv2d(x, w, Tensor(), {1, 1}, PaddingMode::Same);
  EXPECT_EQ(out.sizes(), (Dims{1, 1, 5, 6}));
  // the extra row / column of padding goes after the input: the last row sees one input row
  EXPECT_DOUBLE_EQ(values(out)[0], 2 * 3.0);   // rows 0-1, columns -1..2 -> 2 x 3
  EXPECT_DOUBLE_EQ(values(out)[29], 1 * 2.0);  // row 4 (+ pad), columns 4..5 (+ 2 pads)
}

TEST(Conv, BadArgumentsThrowBeforeAnyWork) {
  Tensor x = ones({2, 3, 5, 5}), w = ones({4, 3, 3, 3});
  EXPECT_THROW(conv2d(ones({3, 5}), w), Error);
  EXPECT_THROW(conv2d(x, ones({4, 2, 3, 3})), Error);
  EXPECT_THROW(conv2d(x, ones({4, 3, 6, 6})), Error);
  EXPECT_THROW(conv2d(x, ones({4, 1, 3, 3}), Tensor(), {1, 1}, {0, 0}, {1, 1}, 2), Error);
  EXPECT_THROW(conv2d(x, w, ones({5})), Error);
  EXPECT_THROW(conv2d(x, w, Tensor(), {0, 1}), Error);
  EXPECT_THROW(conv2d(x, w, Tensor(), {1, 1}, {1, 1, 1}), Error);
  EXPECT_THROW(conv2d(x, to_dtype(w, DType::Float64)), TypeError);
  EXPECT_THROW(conv2d(x, w, Tensor(), {2, 2}, PaddingMode::Same), Error);
  try {
    conv2d(x, ones({4, 2, 3, 3}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("conv2d"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("(4, 2, 3, 3)"), std::string::npos);
  }
}

TEST(Pool, MaxAvgAdaptiveOnASmallImage) {
  // 1 x 1 x 4 x 4 image with values 0..15
  Tensor x = view(arange(Scalar(0.0), Scalar(16.0), Scalar(1.0), DType::Float64), Dims{1, 1, 4, 4});
  auto [m, idx] = max_pool2d_with_indices(x, {2});
  expect_near(m, {5, 7, 13, 15});
  expect_near(idx, {5, 7, 13, 15});
  EXPECT_EQ(idx.dtype(), DType::Int64);
  // padding 1, count_include_pad: the corner window holds x[0, 0] and three zeros
  Tensor a = avg_pool2d(x, {2}, {2}, {1});
  EXPECT_EQ(a.sizes(), (Dims{1, 1, 3, 3}));
  EXPECT_DOUBLE_EQ(values(a)[0], 0.0 / 4);
  EXPECT_DOUBLE_EQ(values(a)[4], (5 + 6 + 9 + 10) / 4.0);
  EXPECT_DOUBLE_EQ(values(avg_pool2d(x, {2}, {2}, {1}, false, false))[1], (1 + 2) / 2.0);
  expect_near(adaptive_avg_pool2d(x, {1}), {7.5});
  expect_near(adaptive_avg_pool2d(x, {3, 3}), {2.5, 3.5, 4.5, 6.5, 7.5, 8.5, 10.5, 11.5, 12.5});
}

TEST(Pool, MaxPoolBackwardAddsWhereWindowsOverlap) {
  Tensor x =
      leaf(view(arange(Scalar(0.0), Scalar(9.0), Scalar(1.0), DType::Float64), Dims{1, 3, 3}));
  // 3x3 windows around each element: x[2, 2] = 8 is the max of four of them, 5 and 7 of two
  Tensor out = max_pool2d(x, {3}, {1}, {1});
  EXPECT_EQ(out.sizes(), (Dims{1, 3, 3}));
  autograd::backward({out}, {ones({1, 3, 3}, DType::Float64)}, false, false);
  expect_near(autograd::grad(x), {0, 0, 0, 0, 1, 2, 0, 2, 4});
}

TEST(Pool, BadArgumentsThrow) {
  Tensor x = ones({2, 3, 5, 5});
  EXPECT_THROW(max_pool2d(x, {6}), Error);
  EXPECT_THROW(max_pool2d(x, {3}, {}, {2}), Error);
  EXPECT_THROW(max_pool2d(ones({5, 5}), {2}), Error);
  EXPECT_THROW(max_pool2d(to_dtype(x, DType::Bool), {2}), NotImplementedError);
  EXPECT_THROW(avg_pool2d(x, {2}, {}, {0}, false, true, 0), Error);
  EXPECT_THROW(avg_pool2d(to_dtype(x, DType::Int32), {2}), NotImplementedError);
  EXPECT_THROW(adaptive_avg_pool2d(x, {-1, 2}), Error);
  EXPECT_THROW(adaptive_avg_pool2d(ones({2, 3, 0, 5}), {2}), Error);
}

// conv3d = the sum over kernel depth taps of conv2d's of the matching input planes (and
// conv_transpose3d is its adjoint: <conv3d(x, w), y> = <x, conv_transpose3d(y, w)>).
TEST(Conv3d, IsASumOfConv2dsOverDepthAndHasItsAdjoint) {
  manual_seed(3);
  Tensor x = randn({2, 3, 4, 5, 6}, DType::Float64), w = randn({4, 3, 2, 3, 2}, DType::Float64);
  Tensor out = conv3d(x, w, Tensor(), {1, 1, 1}, {0, 1, 0});  // depth 3 out, (5 x 5)
  ASSERT_EQ(out.sizes(), (Dims{2, 4, 3, 5, 5}));
  for (int64_t oz = 0; oz < 3; ++oz) {
    Tensor want = zeros({2, 4, 5, 5}, DType::Float64);
    for (int64_t kz = 0; kz < 2; ++kz)
      want = add(want, conv2d(select(x, 2, oz + kz), select(w, 2, kz), Tensor(), {1, 1}, {1, 0}));
    expect_near(select(out, 2, oz), values(want), 1e-12);
  }
  Tensor y = randn(out.sizes(), DType::Float64);
  Tensor xt = conv_transpose3d(y, w, {1, 1, 1}, {0, 1, 0});
  ASSERT_EQ(xt.sizes(), x.sizes());
  EXPECT_NEAR(values(sum(mul(out, y)))[0], values(sum(mul(x, xt)))[0], 1e-9);
}

TEST(Pool3d, OneDeepVolumeIsThe2dPoolAndErrorsAreRuntimeErrors) {
  manual_seed(4);
  Tensor x = randn({2, 3, 6, 5});
  auto [m3, i3] = max_pool3d_with_indices(unsqueeze(x, 2), {1, 2, 2});
  auto [m2, i2] = max_pool2d_with_indices(x, {2});
  expect_near(squeeze(m3, {2}), values(m2));
  expect_near(squeeze(i3, {2}), values(i2));
  expect_near(squeeze(avg_pool3d(unsqueeze(x, 2), {1, 3, 2}, {1, 1, 2}), {2}),
              values(avg_pool2d(x, {3, 2}, {1, 2})), 1e-6);
  expect_near(squeeze(adaptive_avg_pool3d(unsqueeze(x, 2), {1, 4, 3}), {2}),
              values(adaptive_avg_pool2d(x, {4, 3})), 1e-6);
  EXPECT_THROW(max_pool3d(x, {7}), Error);
  EXPECT_THROW(conv3d(x, ones({2, 3, 1, 1})), Error);
  try {
    conv3d(ones({1, 1, 2, 2, 2}), ones({1, 1, 3, 3, 3}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("conv3d"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("(2 x 2 x 2)"), std::string::npos);
  }
}
