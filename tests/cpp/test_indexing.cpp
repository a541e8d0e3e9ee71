// Indexing from C++: views for basic indices, copies for advanced ones, index_put_
// (including accumulate and atomicity on error), gather/scatter/index_select, nonzero and
// masked_select. The Python suite compares against PyTorch; these pin the C++ API.
#include <gtest/gtest.h>

#include "ember/ember.h"

#include "tensor_values.h"

using namespace ember;
using namespace ember::test_values;

namespace {

Tensor iota(IntList shape, DType dt = DType::Float32) {
  return reshape(arange(Scalar(int64_t(0)), Scalar(numel_of(shape)), Scalar(int64_t(1)), dt),
                 shape);
}

Tensor ints(std::vector<int64_t> v, IntList shape = {}) {
  Tensor t = Tensor::empty({int64_t(v.size())}, DType::Int64);
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return shape.empty() ? t : reshape(t, shape);
}

Tensor bools(std::vector<int> v) {
  Tensor t = Tensor::empty({int64_t(v.size())}, DType::Bool);
  for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i] != 0;
  return t;
}

using TI = TensorIndex;

}  // namespace

TEST(Indexing, BasicIndicesAreViews) {
  Tensor x = iota({3, 4, 5});
  Tensor v = index(x, {TI::integer(1), TI::sliced(1, std::nullopt, 2), TI::none(), TI::ellipsis()});
  EXPECT_EQ(v.sizes(), (Dims{2, 1, 5}));
  EXPECT_EQ(v.storage(), x.storage());
  EXPECT_EQ(v.offset(), 25);
  EXPECT_EQ(v.strides(), (Dims{10, 5, 1}));
  Tensor e = index(x, {TI::ellipsis(), TI::integer(-1)});
  EXPECT_EQ(e.sizes(), (Dims{3, 4}));
  EXPECT_EQ(values(e)[5], 29.0);
  Tensor a = index(x, {});
  EXPECT_FALSE(a.is_same(x));
  EXPECT_EQ(a.storage(), x.storage());
}

TEST(Indexing, BasicErrors) {
  Tensor x = iota({3, 4});
  EXPECT_THROW(index(x, {TI::integer(3)}), IndexError);
  EXPECT_THROW(index(x, {TI::integer(0), TI::integer(-5)}), IndexError);
  EXPECT_THROW(index(x, {TI::sliced(std::nullopt, std::nullopt, -1)}), ValueError);
  EXPECT_THROW(index(x, {TI::integer(0), TI::integer(0), TI::integer(0)}), IndexError);
  EXPECT_THROW(index(x, {TI::ellipsis(), TI::ellipsis()}), IndexError);
  EXPECT_THROW(index(scalar_tensor(Scalar(1.0)), {TI::integer(0)}), IndexError);
  EXPECT_THROW(index(x, {TI::of(ones({2}))}), IndexError);  // float index tensor
  try {
    index(x, {TI::integer(1), TI::integer(7)});
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("index 7 is out of bounds for dimension 1 with size 4"),
              std::string::npos);
  }
}

TEST(Indexing, AdvancedIndexing) {
  Tensor x = iota({3, 4, 5});
  Tensor r = index(x, {TI::of(ints({2, 0, -1}))});
  EXPECT_EQ(r.sizes(), (Dims{3, 4, 5}));
  EXPECT_NE(r.storage(), x.storage());
  EXPECT_EQ(values(r)[0], 40.0);
  // separated by a slice: the index dims go first
  Tensor s = index(x, {TI::of(ints({0, 1})), TI::sliced(std::nullopt, std::nullopt),
                       TI::of(ints({1, 2}))});
  EXPECT_EQ(s.sizes(), (Dims{2, 4}));
  EXPECT_EQ(values(s)[4], 20.0 + 2.0);
  // adjacent: in place
  Tensor a =
      index(x, {TI::sliced(std::nullopt, std::nullopt), TI::of(ints({0, 3})), TI::of(ints({4}))});
  EXPECT_EQ(a.sizes(), (Dims{3, 2}));
  EXPECT_EQ(values(a), (std::vector<double>{4, 19, 24, 39, 44, 59}));
  // bool mask over the first dim, on a transposed (non-contiguous) base
  Tensor t = transpose(iota({4, 3}), 0, 1);
  Tensor m = index(t, {TI::of(bools({1, 0, 1}))});
  EXPECT_EQ(m.sizes(), (Dims{2, 4}));
  EXPECT_EQ(values(m), (std::vector<double>{0, 3, 6, 9, 2, 5, 8, 11}));
  // a full mask is masked_select
  Tensor full = index(x, {TI::of(gt(x, Scalar(57.0)))});
  EXPECT_EQ(values(full), (std::vector<double>{58, 59}));
  // bool scalar and empty results
  EXPECT_EQ(index(x, {TI::of(scalar_tensor(Scalar(false)))}).sizes(), (Dims{0, 3, 4, 5}));
  EXPECT_EQ(index(x, {TI::of(ints({}, {0}))}).sizes(), (Dims{0, 4, 5}));
}

TEST(Indexing, AdvancedErrors) {
  Tensor x = iota({3, 4});
  EXPECT_THROW(index(x, {TI::of(ints({3}))}), IndexError);
  EXPECT_THROW(index(x, {TI::of(ints({0, 1})), TI::of(ints({0, 1, 2}))}), IndexError);
  EXPECT_THROW(index(x, {TI::of(bools({1, 0}))}), IndexError);
}

TEST(Indexing, IndexPutAndVersion) {
  Tensor x = zeros({3, 4});
  uint32_t v = x.version();
  index_put_(x, {TI::integer(1)}, Scalar(2.0));
  EXPECT_EQ(x.version(), v + 1);
  index_put_(x, {TI::of(ints({0, 2})), TI::of(ints({3}))}, ones({1}));
  EXPECT_EQ(x.version(), v + 2);
  Tensor mask = gt(x, Scalar(1.5));
  index_put_(x, {TI::of(mask)}, Scalar(-1.0));  // the masked_fill fast path
  EXPECT_EQ(x.version(), v + 3);
  EXPECT_EQ(values(x), (std::vector<double>{0, 0, 0, 1, -1, -1, -1, -1, 0, 0, 0, 1}));
  // value converted to the target's dtype and broadcast (leading 1s dropped)
  Tensor i = zeros({2, 3}, DType::Int64);
  index_put_(i, {TI::integer(0)}, full({1, 1, 3}, Scalar(2.7)));
  EXPECT_EQ(values(i), (std::vector<double>{2, 2, 2, 0, 0, 0}));
}

TEST(Indexing, IndexPutAccumulateAndDuplicates) {
  Tensor x = zeros({4});
  index_put_(x, {TI::of(ints({1, 1, 3, 1}))}, ones({4}), true);
  EXPECT_EQ(values(x), (std::vector<double>{0, 3, 0, 1}));
  index_put_(x, {TI::of(ints({0, 0}))}, iota({2}));  // the last write wins
  EXPECT_EQ(values(x)[0], 1.0);
}

TEST(Indexing, FailedPutLeavesTargetUntouched) {
  Tensor x = iota({3, 4});
  uint32_t v = x.version();
  EXPECT_THROW(index_put_(x, {TI::of(ints({0, 5}))}, Scalar(9.0)), IndexError);
  EXPECT_THROW(index_put_(x, {TI::of(ints({0, 1}))}, ones({3})), ValueError);
  EXPECT_THROW(index_put_(x, {TI::integer(0)}, ones({2, 4})), ValueError);
  EXPECT_EQ(x.version(), v);
  EXPECT_EQ(values(x), values(iota({3, 4})));
}

TEST(Indexing, GatherScatterIndexSelect) {
  Tensor x = iota({3, 4});
  Tensor g = gather(x, 1, ints({0, 3, 2, 2}, {2, 2}));
  EXPECT_EQ(values(g), (std::vector<double>{0, 3, 6, 6}));
  Tensor s = scatter(zeros({3, 4}), 1, ints({1, 0}, {2, 1}), iota({2, 1}));
  EXPECT_EQ(values(s), (std::vector<double>{0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}));
  Tensor sa = scatter_add(zeros({2}), 0, ints({1, 1, 0}), ones({3}));
  EXPECT_EQ(values(sa), (std::vector<double>{1, 2}));
  Tensor is = index_select(x, 1, ints({3, 0}));
  EXPECT_EQ(values(is), (std::vector<double>{3, 0, 7, 4, 11, 8}));
  EXPECT_EQ(values(take_along_dim(x, ints({3, 1, 0}, {3, 1}), 1)), (std::vector<double>{3, 5, 8}));
  Tensor t = zeros({3, 4});
  uint32_t v = t.version();
  scatter_(t, 0, ints({2, 2, 2, 2}, {1, 4}), Scalar(5.0));
  EXPECT_EQ(t.version(), v + 1);
  EXPECT_EQ(values(t)[8], 5.0);
}

TEST(Indexing, GatherScatterErrors) {
  Tensor x = iota({3, 4});
  EXPECT_THROW(gather(x, 1, ints({4}, {1, 1})), IndexError);
  EXPECT_THROW(gather(x, 1, ints({0, 1})), ValueError);
  EXPECT_THROW(gather(x, 1, ones({1, 1})), TypeError);
  EXPECT_THROW(index_select(x, 0, ints({3})), IndexError);
  EXPECT_THROW(scatter_(x, 0, ints({0, 1}, {1, 2}), ones({1, 2}, DType::Float64)), TypeError);
  uint32_t v = x.version();
  EXPECT_THROW(scatter_(x, 1, ints({0, 9}, {1, 2}), ones({1, 2})), IndexError);
  EXPECT_EQ(x.version(), v);
  EXPECT_EQ(values(x), values(iota({3, 4})));
}

TEST(Indexing, NonzeroAndMaskedSelect) {
  Tensor x = iota({2, 3});
  Tensor nz = nonzero(x);
  EXPECT_EQ(nz.sizes(), (Dims{5, 2}));
  EXPECT_EQ(values(nz), (std::vector<double>{0, 1, 0, 2, 1, 0, 1, 1, 1, 2}));
  EXPECT_EQ(nonzero(scalar_tensor(Scalar(2.0))).sizes(), (Dims{1, 0}));
  EXPECT_EQ(nonzero(zeros({2, 0})).sizes(), (Dims{0, 2}));
  Tensor ms = masked_select(x, bools({1, 0, 1}));  // broadcast over rows
  EXPECT_EQ(values(ms), (std::vector<double>{0, 2, 3, 5}));
  EXPECT_THROW(masked_select(x, ones({3})), TypeError);
}

TEST(Indexing, LargeParallelPaths) {
  // big enough for the parallel loops and the chunked compactions
  Tensor x = iota({300, 700});
  Tensor mask = gt(remainder(x, Scalar(int64_t(3))), Scalar(0.5));
  Tensor sel = masked_select(x, mask);
  EXPECT_EQ(sel.numel(), 140000);
  EXPECT_EQ(values(sel)[139999], 209999.0);
  Tensor nz = nonzero(mask);
  EXPECT_EQ(nz.sizes(), (Dims{140000, 2}));
  // gather reversing every row, then scatter_add back (row-parallel put): x doubled
  Tensor col = remainder(iota({300, 700}, DType::Int64), Scalar(int64_t(700)));
  Tensor rev = sub(Scalar(int64_t(699)), col);
  Tensor g = gather(x, 1, rev);
  EXPECT_EQ(values(g)[0], 699.0);
  EXPECT_EQ(values(g)[700 * 299 + 699], 700.0 * 299);
  Tensor back = scatter_add(x, 1, rev, g);
  EXPECT_EQ(values(back), values(mul(x, Scalar(2.0))));
  Tensor rows = index(x, {TI::of(ints({299, 0}))});
  EXPECT_EQ(values(rows)[0], 299.0 * 700);
}
