// Datasets and the DataLoader of the C++ frontend (ember/data.h): batching, the last
// batch, drop_last, seeded shuffling (every index once per epoch, the same orders for the
// same seed, new orders each epoch), a Dataset without its own get_batch, and errors.
#include <filesystem>
#include <set>

#include "frontend_helpers.h"

using namespace ember;
using ftest::values;

namespace {

std::vector<std::vector<double>> epoch_targets(data::DataLoader& loader) {
  std::vector<std::vector<double>> out;
  for (const data::Example& b : loader) out.push_back(values(b.target));
  return out;
}

// Example i is (i, i, i) with target i, built one at a time.
class Counting : public data::Dataset {
 public:
  int64_t size() const override { return 5; }
  data::Example get(int64_t i) const override {
    return {full({3}, Scalar(double(i))), scalar_tensor(Scalar(i), DType::Int64)};
  }
};

}  // namespace

TEST(FrontendData, TensorDatasetRows) {
  Tensor x = reshape(arange(Scalar(0), Scalar(12), Scalar(1), DType::Float32), {6, 2});
  data::TensorDataset ds(x, arange(Scalar(0), Scalar(6), Scalar(1), DType::Int64));
  EXPECT_EQ(ds.size(), 6);
  data::Example e = ds.get(-1);
  ftest::expect_near(e.data, {10, 11}, 0);
  EXPECT_EQ(e.target.item().to_int(), 5);
  EXPECT_ERROR_NAMES(IndexError, ds.get(6), "TensorDataset");
  EXPECT_ERROR_NAMES(ValueError, data::TensorDataset(x, zeros({5})), "size mismatch");
  data::TensorDataset unlabelled(x);
  EXPECT_FALSE(unlabelled.get(0).target.defined());
}

TEST(FrontendData, BatchesInOrderWithASmallerLastBatchOrDropLast) {
  auto ds = std::make_shared<data::TensorDataset>(randn({10, 3}), arange(Scalar(0), Scalar(10),
                                                                         Scalar(1), DType::Int64));
  data::DataLoader loader(ds, {.batch_size = 4});
  EXPECT_EQ(loader.size(), 3);
  auto t = epoch_targets(loader);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0], (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(t[2], (std::vector<double>{8, 9}));
  int64_t n = 0;
  for (const data::Example& b : loader) {
    EXPECT_EQ(b.data.size(1), 3);
    EXPECT_EQ(b.data.size(0), b.target.size(0));
    n += b.data.size(0);
  }
  EXPECT_EQ(n, 10);
  data::DataLoader dropping(ds, {.batch_size = 4, .drop_last = true});
  EXPECT_EQ(dropping.size(), 2);
  EXPECT_EQ(epoch_targets(dropping).size(), 2u);
  data::DataLoader whole(ds, {.batch_size = 64, .drop_last = true});
  EXPECT_EQ(whole.begin(), whole.end());  // every example dropped
}

TEST(FrontendData, SeededShuffleIsAPermutationEachEpochAndReproducible) {
  auto ds = std::make_shared<data::TensorDataset>(zeros({20, 1}), arange(Scalar(0), Scalar(20),
                                                                         Scalar(1), DType::Int64));
  data::DataLoader a(ds, {.batch_size = 6, .shuffle = true, .seed = 42});
  data::DataLoader b(ds, {.batch_size = 6, .shuffle = true, .seed = 42});
  data::DataLoader c(ds, {.batch_size = 6, .shuffle = true, .seed = 43});
  auto a1 = epoch_targets(a), a2 = epoch_targets(a);
  EXPECT_EQ(a1, epoch_targets(b));
  EXPECT_EQ(a2, epoch_targets(b));
  EXPECT_NE(a1, a2);  // a new order each epoch
  EXPECT_NE(a1, epoch_targets(c));
  std::multiset<double> seen;
  for (auto& batch : a1) seen.insert(batch.begin(), batch.end());
  EXPECT_EQ(seen.size(), 20u);
  EXPECT_EQ(std::set<double>(seen.begin(), seen.end()).size(), 20u);
  // Without a seed, the default generator decides: manual_seed makes it reproducible.
  data::DataLoader d(ds, {.batch_size = 6, .shuffle = true});
  manual_seed(5);
  auto d1 = epoch_targets(d);
  manual_seed(5);
  EXPECT_EQ(d1, epoch_targets(d));
}

TEST(FrontendData, DatasetWithoutGetBatchIsStacked) {
  data::DataLoader loader(std::make_shared<Counting>(), {.batch_size = 2});
  auto it = loader.begin();
  EXPECT_EQ(it->data.sizes(), (Dims{2, 3}));
  ftest::expect_near(it->data, {0, 0, 0, 1, 1, 1}, 0);
  ++it;
  ++it;
  EXPECT_EQ(it->target.sizes(), (Dims{1}));
  EXPECT_EQ(it->target.item().to_int(), 4);
  ++it;
  EXPECT_EQ(it, loader.end());
}

TEST(FrontendData, BadOptionsThrow) {
  auto ds = std::make_shared<Counting>();
  EXPECT_ERROR_NAMES(ValueError, data::DataLoader(ds, {.batch_size = 0}), "batch_size");
  EXPECT_ERROR_NAMES(ValueError, data::DataLoader(nullptr), "null dataset");
  EXPECT_ERROR_NAMES(ValueError, data::DataLoader(ds, {.seed = 1}), "shuffle");
}

TEST(FrontendData, FashionMNISTReadsTheIDXFilesOrNamesWhatIsMissing) {
  EXPECT_ERROR_NAMES(ValueError, data::FashionMNIST("/nonexistent/fashion"),
                     "dataset-fashion-mnist");
  if (!std::filesystem::exists(data::FashionMNIST::kDefaultRoot))
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  data::FashionMNIST test(data::FashionMNIST::kDefaultRoot, /*train=*/false);
  EXPECT_EQ(test.size(), 10000);
  EXPECT_EQ(test.data.sizes(), (Dims{10000, 1, 28, 28}));
  EXPECT_EQ(test.target.dtype(), DType::Int64);
  EXPECT_EQ(amin(test.data).item().to_double(), 0.0);
  EXPECT_EQ(amax(test.data).item().to_double(), 1.0);
  EXPECT_EQ(amax(test.target).item().to_int(), 9);
  // Each class holds 1000 of the test images.
  EXPECT_EQ(sum(eq(test.target, Scalar(int64_t(3)))).item().to_int(), 1000);
}
