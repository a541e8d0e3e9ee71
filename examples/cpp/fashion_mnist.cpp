// Trains the Fashion-MNIST MLP of `python -m ember.examples.fashion_mnist` (784-256-128-10,
// Adam, cross-entropy, learning rate on a half cosine) through include/ember alone.
//
//   ember_fashion_mnist [--epochs 10] [--batch-size 64] [--lr 1e-3] [--threads 2]
//                       [--data /usr/share/datasets/fashion-mnist] [--limit N]
#include <zlib.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <ember/ember.h>

using namespace ember;

namespace {

// An IDX file (plain or gzip; zlib reads both): big-endian magic, dims, then uint8 data.
Tensor read_idx(const std::string& path, int ndim) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error(path + ": cannot open (apt-get install dataset-fashion-mnist)");
  auto read_u32 = [&] {
    unsigned char b[4];
    if (gzread(f, b, 4) != 4) throw std::runtime_error(path + ": truncated header");
    return (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | b[3];
  };
  uint32_t magic = read_u32();
  if (magic != (0x800u | uint32_t(ndim))) {
    gzclose(f);
    throw std::runtime_error(path + ": not an IDX file of uint8 with " + std::to_string(ndim) +
                             " dims");
  }
  Dims shape;
  for (int i = 0; i < ndim; ++i) shape.push_back(read_u32());
  Tensor t = empty(shape, DType::UInt8);
  const int64_t n = t.numel();
  int got = gzread(f, t.data_ptr(), unsigned(n));
  gzclose(f);
  if (got != n) throw std::runtime_error(path + ": truncated data");
  return t;
}

struct Split {
  Tensor images;  // float32 (N, 1, 28, 28), normalized
  Tensor labels;  // int64 (N,)
};

Split load(const std::string& dir, const char* prefix, int64_t limit) {
  Tensor x = read_idx(dir + "/" + prefix + "-images-idx3-ubyte.gz", 3);
  Tensor y = read_idx(dir + "/" + prefix + "-labels-idx1-ubyte.gz", 1);
  if (limit > 0 && limit < x.size(0)) {
    x = narrow(x, 0, 0, limit);
    y = narrow(y, 0, 0, limit);
  }
  // [0, 1], then the training set's mean and std (as the Python example does).
  Tensor images =
      div(sub(div(to_dtype(unsqueeze(x, 1), DType::Float32), Scalar(255.0)), Scalar(0.2860)),
          Scalar(0.3530));
  return {images, to_dtype(y, DType::Int64)};
}

std::pair<double, double> evaluate(nn::Module& model, const Split& s) {
  NoGradGuard no_grad;
  model.eval();
  double loss = 0;
  int64_t correct = 0;
  const int64_t n = s.images.size(0);
  for (int64_t i = 0; i < n; i += 1000) {
    int64_t b = std::min<int64_t>(1000, n - i);
    Tensor out = model(narrow(s.images, 0, i, b));
    Tensor y = narrow(s.labels, 0, i, b);
    loss += cross_entropy(out, y, Tensor(), Reduction::Sum).item().to_double();
    correct += sum(eq(argmax(out, 1), y)).item().to_int();
  }
  model.train();
  return {loss / double(n), double(correct) / double(n)};
}

struct Args {
  int epochs = 10;
  int64_t batch_size = 64, limit = 0;
  double lr = 1e-3;
  int threads = 0;
  std::string data = "/usr/share/datasets/fashion-mnist";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) throw std::runtime_error("missing value after " + k);
    const char* v = argv[++i];
    if (k == "--epochs") a.epochs = std::atoi(v);
    else if (k == "--batch-size") a.batch_size = std::atoll(v);
    else if (k == "--lr") a.lr = std::atof(v);
    else if (k == "--threads") a.threads = std::atoi(v);
    else if (k == "--data") a.data = v;
    else if (k == "--limit") a.limit = std::atoll(v);
    else throw std::runtime_error("unknown option " + k);
  }
  if (a.epochs < 1 || a.batch_size < 1)
    throw std::runtime_error("--epochs and --batch-size must be >= 1");
  return a;
}

}  // namespace

int main(int argc, char** argv) try {
  const Args args = parse(argc, argv);
  if (args.threads > 0) set_num_threads(args.threads);
  manual_seed(0);
  const Split train = load(args.data, "train", args.limit),
              test = load(args.data, "t10k", args.limit);

  nn::Sequential model({std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(784, 256),
                        std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(256, 128),
                        std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(128, 10)});
  optim::Adam opt(model.parameters(), {.lr = args.lr});
  const int64_t n = train.images.size(0);
  std::printf(
      "C++ MLP: %lld training / %lld test images, batch %lld, Adam lr %g (cosine), %d thread(s)\n",
      (long long)n, (long long)test.images.size(0), (long long)args.batch_size, args.lr,
      get_num_threads());

  double final_acc = 0;
  for (int epoch = 1; epoch <= args.epochs; ++epoch) {
    // torch's CosineAnnealingLR(T_max = epochs), stepped once per epoch.
    opt.options.lr = args.lr * 0.5 * (1 + std::cos(M_PI * (epoch - 1) / args.epochs));
    const auto start = std::chrono::steady_clock::now();
    Tensor order = randperm(n);
    double loss_sum = 0;
    int64_t correct = 0;
    for (int64_t i = 0; i < n; i += args.batch_size) {
      const int64_t b = std::min(args.batch_size, n - i);
      Tensor idx = narrow(order, 0, i, b);
      Tensor x = index_select(train.images, 0, idx), y = index_select(train.labels, 0, idx);
      Tensor out = model(x);
      Tensor loss = cross_entropy(out, y);
      opt.zero_grad();
      autograd::backward(loss);
      opt.step();
      loss_sum += loss.item().to_double() * double(b);
      correct += sum(eq(argmax(out, 1), y)).item().to_int();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    auto [test_loss, test_acc] = evaluate(model, test);
    final_acc = test_acc;
    std::printf(
        "epoch %2d: train loss %.4f acc %.4f | test loss %.4f acc %.4f | %.1f s (%.0f samples/s)\n",
        epoch, loss_sum / double(n), double(correct) / double(n), test_loss, test_acc, seconds,
        double(n) / seconds);
    std::fflush(stdout);
  }
  std::printf("summary: C++ mlp, %d epochs: final test accuracy %.4f\n", args.epochs, final_acc);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "ember_fashion_mnist: %s\n", e.what());
  return 1;
}
