// Datasets and the DataLoader of include/ember/data.h.
#include "ember/data.h"

#include "ember/error.h"
#include "ember/ops.h"

namespace ember::data {

Example Dataset::get_batch(const Tensor& indices) const {
  EMBER_CHECK(indices.defined() && indices.dim() == 1 && indices.dtype() == DType::Int64,
              ValueError, "Dataset::get_batch: expected 1-d int64 indices");
  const Tensor idx = contiguous(indices);
  std::vector<Tensor> xs, ys;
  for (int64_t i = 0; i < idx.numel(); ++i) {
    Example e = get(idx.data<int64_t>()[i]);
    xs.push_back(e.data);
    if (e.target.defined()) ys.push_back(e.target);
  }
  EMBER_CHECK(ys.empty() || ys.size() == xs.size(), ValueError,
              "Dataset::get_batch: some examples have a target and some do not");
  if (xs.empty()) return {};
  return {stack(xs), ys.empty() ? Tensor() : stack(ys)};
}

TensorDataset::TensorDataset(Tensor d, Tensor t) : data(std::move(d)), target(std::move(t)) {
  EMBER_CHECK(data.defined() && data.dim() >= 1, ValueError,
              "TensorDataset: data must be a tensor with at least 1 dim (the examples)");
  EMBER_CHECK(!target.defined() || (target.dim() >= 1 && target.size(0) == data.size(0)),
              ValueError, "TensorDataset: size mismatch between tensors: data of shape ",
              data.sizes(), " and target of shape ", target.defined() ? target.sizes() : Dims{});
}

int64_t TensorDataset::size() const { return data.size(0); }

Example TensorDataset::get(int64_t index) const {
  const int64_t n = size();
  EMBER_CHECK(index >= -n && index < n, IndexError, "TensorDataset: index ", index,
              " is out of range for a dataset of size ", n);
  if (index < 0) index += n;
  return {select(data, 0, index), target.defined() ? select(target, 0, index) : Tensor()};
}

Example TensorDataset::get_batch(const Tensor& indices) const {
  return {index_select(data, 0, indices),
          target.defined() ? index_select(target, 0, indices) : Tensor()};
}

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions o)
    : options(o), dataset_(std::move(dataset)) {
  EMBER_CHECK(dataset_ != nullptr, ValueError, "DataLoader: got a null dataset");
  EMBER_CHECK(o.batch_size > 0, ValueError,
              "DataLoader: batch_size should be a positive integer value, but got batch_size=",
              o.batch_size);
  EMBER_CHECK(!o.seed || o.shuffle, ValueError, "DataLoader: a seed is for shuffle=true");
  if (o.seed) generator_ = std::make_unique<Generator>(*o.seed);
}

int64_t DataLoader::size() const {
  const int64_t n = dataset_->size(), b = options.batch_size;
  return options.drop_last ? n / b : (n + b - 1) / b;
}

DataLoader::Iterator DataLoader::begin() {
  const int64_t n = dataset_->size();
  Tensor order = options.shuffle
                     ? randperm(n, DType::Int64, generator_.get())
                     : arange(Scalar(int64_t(0)), Scalar(n), Scalar(int64_t(1)), DType::Int64);
  return Iterator(this, std::move(order), 0);
}

DataLoader::Iterator DataLoader::end() const {
  Iterator it;
  it.batch_index_ = size();
  return it;
}

DataLoader::Iterator::Iterator(const DataLoader* loader, Tensor order, int64_t batch_index)
    : loader_(loader), order_(std::move(order)), batch_index_(batch_index) {
  load();
}

void DataLoader::Iterator::load() {
  if (batch_index_ >= loader_->size()) {
    batch_ = {};
    return;
  }
  const int64_t b = loader_->options.batch_size, start = batch_index_ * b;
  const int64_t len = std::min(b, order_.numel() - start);
  batch_ = loader_->dataset_->get_batch(narrow(order_, 0, start, len));
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  ++batch_index_;
  load();
  return *this;
}

}  // namespace ember::data
