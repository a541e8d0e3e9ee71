// Trains a small CNN on Fashion-MNIST with the C++ frontend alone: the dataset and a shuffling
// DataLoader (ember/data.h), Conv2d/BatchNorm2d/Dropout (ember/nn), AdamW with a OneCycleLR
// schedule (ember/lr_scheduler.h), the profiler on the first steps, and the trained state dict
// saved in PyTorch's format (ember::save), which torch.load and ember.load read.
//
//   ember_fashion_mnist_cnn [--epochs 2] [--batch-size 64] [--lr 3e-3] [--threads 2]
//                           [--data /usr/share/datasets/fashion-mnist] [--limit N] [--save cnn.pt]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include <ember/ember.h>

using namespace ember;

namespace {

struct Args {
  int epochs = 2, threads = 0;
  int64_t batch_size = 64, limit = 0;
  double lr = 3e-3;
  std::string data = data::FashionMNIST::kDefaultRoot, save_path;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; i += 2) {
    const std::string k = argv[i];
    if (i + 1 >= argc) throw std::runtime_error("missing value after " + k);
    const char* v = argv[i + 1];
    if (k == "--epochs") a.epochs = std::atoi(v);
    else if (k == "--batch-size") a.batch_size = std::atoll(v);
    else if (k == "--lr") a.lr = std::atof(v);
    else if (k == "--threads") a.threads = std::atoi(v);
    else if (k == "--data") a.data = v;
    else if (k == "--limit") a.limit = std::atoll(v);
    else if (k == "--save") a.save_path = v;
    else throw std::runtime_error("unknown option " + k);
  }
  if (a.epochs < 1 || a.batch_size < 1)
    throw std::runtime_error("--epochs and --batch-size must be >= 1");
  return a;
}

// The first `limit` examples (all for 0), normalized by the training set's mean and std.
std::shared_ptr<data::TensorDataset> split(const std::string& root, bool train, int64_t limit) {
  data::FashionMNIST ds(root, train);
  const int64_t n = limit > 0 ? std::min(limit, ds.size()) : ds.size();
  Tensor x = div(sub(narrow(ds.data, 0, 0, n), Scalar(data::FashionMNIST::kMean)),
                 Scalar(data::FashionMNIST::kStd));
  return std::make_shared<data::TensorDataset>(x, narrow(ds.target, 0, 0, n));
}

std::shared_ptr<nn::Sequential> cnn() {
  using namespace nn;
  return std::make_shared<Sequential>(
      std::vector<ModulePtr>{std::make_shared<Conv2d>(1, 16, IntList{3},
                                                      ConvOptions{.padding = {1}}),
                             std::make_shared<BatchNorm2d>(16), std::make_shared<ReLU>(),
                             std::make_shared<MaxPool2d>(2),
                             std::make_shared<Conv2d>(16, 32, IntList{3},
                                                      ConvOptions{.padding = {1}}),
                             std::make_shared<BatchNorm2d>(32), std::make_shared<ReLU>(),
                             std::make_shared<MaxPool2d>(2), std::make_shared<Flatten>(),
                             std::make_shared<Dropout>(0.25),
                             std::make_shared<Linear>(32 * 7 * 7, 10)});
}

double accuracy(nn::Module& model, const std::shared_ptr<data::TensorDataset>& test) {
  NoGradGuard no_grad;
  model.eval();
  int64_t correct = 0;
  for (const data::Example& b : data::DataLoader(test, {.batch_size = 1000}))
    correct += sum(eq(argmax(model.forward(b.data), 1), b.target)).item().to_int();
  model.train();
  return double(correct) / double(test->size());
}

}  // namespace

int main(int argc, char** argv) try {
  const Args args = parse(argc, argv);
  if (args.threads > 0) set_num_threads(args.threads);
  manual_seed(0);
  auto train = split(args.data, true, args.limit), test = split(args.data, false, args.limit);
  data::DataLoader loader(train, {.batch_size = args.batch_size, .shuffle = true, .seed = 0});
  auto model = cnn();
  optim::AdamW opt(model->parameters(), {.lr = args.lr});
  optim::OneCycleLR sched(opt, args.lr, {.total_steps = args.epochs * loader.size()});
  std::printf(
      "C++ CNN: %lld training / %lld test images, batch %lld, AdamW + OneCycleLR (max lr %g), %d thread(s)\n",
      (long long)train->size(), (long long)test->size(), (long long)args.batch_size, args.lr,
      get_num_threads());
  double acc = 0;
  for (int epoch = 1; epoch <= args.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<profiler::Profile> prof;
    if (epoch == 1) prof = std::make_unique<profiler::Profile>();  // the first steps only
    double loss_sum = 0;
    int64_t step = 0;
    for (const data::Example& batch : loader) {
      Tensor loss = cross_entropy(model->forward(batch.data), batch.target);
      opt.zero_grad();
      autograd::backward(loss);
      opt.step();
      sched.step();
      loss_sum += loss.item().to_double() * double(batch.data.size(0));
      if (prof && ++step == 20) {
        prof->stop();
        std::printf("%s\n", prof->table("self_cpu_time_total", 8).c_str());
        prof.reset();
      }
    }
    if (prof) prof->stop();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    acc = accuracy(*model, test);
    std::printf("epoch %d: train loss %.4f | test acc %.4f | %.1f s (%.0f images/s)\n", epoch,
                loss_sum / double(train->size()), acc, seconds, double(train->size()) / seconds);
    std::fflush(stdout);
  }
  if (!args.save_path.empty()) {
    save(model->state_dict(), args.save_path);
    std::printf("saved the state dict to %s (torch.load / ember.load read it)\n",
                args.save_path.c_str());
  }
  std::printf("summary: C++ cnn, %d epochs: final test accuracy %.4f\n", args.epochs, acc);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "ember_fashion_mnist_cnn: %s\n", e.what());
  return 1;
}
