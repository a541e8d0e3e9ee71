// Datasets and a DataLoader (torch.utils.data) for C++ training loops.
//
//   auto ds = std::make_shared<data::TensorDataset>(images, labels);   // (N, ...), (N)
//   data::DataLoader loader(ds, {.batch_size = 64, .shuffle = true, .seed = 0});
//   for (int epoch = 0; epoch < 10; ++epoch)
//     for (const data::Example& batch : loader)        // a new order every epoch
//       train_step(batch.data, batch.target);          // (64, ...), (64)
//
// A batch stacks `batch_size` examples along a new first dim (torch's default_collate);
// the last batch is smaller unless drop_last. Shuffling draws a permutation from the
// loader's own generator when a seed is given (the same orders for the same seed, epoch
// after epoch), else from the default generator (manual_seed), as torch's sampler does.
#pragma once
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>

#include "ember/random.h"
#include "ember/tensor.h"

namespace ember::data {

// One example, or a batch of them. target may be undefined (unlabelled data).
struct Example {
  Tensor data, target;
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  virtual Example get(int64_t index) const = 0;  // 0 <= index < size()
  // The examples at `indices` (int64, 1-d) stacked along a new first dim; the default calls
  // get() for each and stacks. Datasets over tensors override it with one gather.
  virtual Example get_batch(const Tensor& indices) const;
};

// Rows of tensors that share their first dim (torch.utils.data.TensorDataset).
class TensorDataset : public Dataset {
 public:
  // data (N, ...) and target (N, ...) or undefined; sizes differing in dim 0 throw ValueError.
  explicit TensorDataset(Tensor data, Tensor target = Tensor());
  int64_t size() const override;
  Example get(
      int64_t index) const override;  // IndexError out of range; negative counts from the end
  Example get_batch(const Tensor& indices) const override;
  const Tensor data, target;
};

// Fashion-MNIST (ember.datasets.FashionMNIST, src/data/fashion_mnist.cpp): 60000 training or
// 10000 test images of 28x28 grey pixels in 10 classes, read from the IDX files (plain or .gz)
// in `root` or root/FashionMNIST/raw. data: float32 (N, 1, 28, 28) scaled to [0, 1]; target:
// int64 (N). A missing or malformed file throws ValueError naming it (and the Debian package
// dataset-fashion-mnist, which installs the files in the default root). MNIST's files have
// the same layout and load the same way.
class FashionMNIST : public TensorDataset {
 public:
  static constexpr const char* kDefaultRoot = "/usr/share/datasets/fashion-mnist";
  static constexpr double kMean = 0.2860, kStd = 0.3530;  // of the training images in [0, 1]
  explicit FashionMNIST(const std::string& root = kDefaultRoot, bool train = true);
};

struct DataLoaderOptions {
  int64_t batch_size = 1;
  bool shuffle = false;
  bool drop_last = false;
  std::optional<uint64_t> seed;  // for shuffle: the loader's own stream
};

class DataLoader {
 public:
  DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options = {});
  // Batches per epoch: ceil(n / batch_size), or floor with drop_last.
  int64_t size() const;
  const Dataset& dataset() const { return *dataset_; }
  const DataLoaderOptions options;

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Example;
    using difference_type = std::ptrdiff_t;
    using pointer = const Example*;
    using reference = const Example&;
    Iterator() = default;
    const Example& operator*() const { return batch_; }
    const Example* operator->() const { return &batch_; }
    Iterator& operator++();
    bool operator==(const Iterator& o) const { return batch_index_ == o.batch_index_; }

   private:
    friend class DataLoader;
    Iterator(const DataLoader* loader, Tensor order, int64_t batch_index);
    void load();
    const DataLoader* loader_ = nullptr;
    Tensor order_;  // this epoch's sample indices
    int64_t batch_index_ = 0;
    Example batch_;
  };
  // Starts an epoch: draws a new order when shuffling.
  Iterator begin();
  Iterator end() const;

 private:
  std::shared_ptr<const Dataset> dataset_;
  std::unique_ptr<Generator> generator_;  // with a seed
};

}  // namespace ember::data
