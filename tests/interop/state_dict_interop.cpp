// The C++ half of tests/python/test_cpp_state_dict.py: state dicts and training runs that
// the Python half checks against ember.nn and torch (issue 19: "a model saved from C++ loads
// in Python with identical outputs, and the reverse").
//
//   ember_state_dict_interop save DIR         trains the Zoo a little, saves its state dict
//                                             (DIR/cpp_model.pt, .safetensors), its inputs and
//                                             its eval-mode outputs (safetensors)
//   ember_state_dict_interop run DIR FILE     loads DIR/FILE into a fresh Zoo, writes its
//                                             eval-mode outputs on DIR/inputs.safetensors
//   ember_state_dict_interop train DIR        runs each optimizer + scheduler configuration on
//                                             DIR/train_init.safetensors, writes the results
//   ember_state_dict_interop resume DIR       continues DIR/torch_ckpt.pt (model + Adam state that
//                                             torch saved) for 3 steps, writes
//                                             DIR/resumed.safetensors
//   ember_state_dict_interop inspect FILE     prints each tensor of a state dict file
#include <cstdio>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <ember/ember.h>

using namespace ember;

namespace {

// Every layer kind of the C++ frontend, with the state dict keys of the Python Zoo in
// tests/python/test_cpp_state_dict.py.
class Zoo : public nn::Module {
 public:
  Zoo() {
    cnn = std::make_shared<nn::Sequential>(
        std::vector<nn::ModulePtr>{std::make_shared<nn::Conv2d>(1, 4, IntList{3},
                                                                nn::ConvOptions{.padding = {1}}),
                                   std::make_shared<nn::BatchNorm2d>(4),
                                   std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),
                                   std::make_shared<nn::Flatten>(),
                                   std::make_shared<nn::Linear>(64, 10)});
    conv1d = std::make_shared<nn::Sequential>(
        std::vector<nn::ModulePtr>{std::make_shared<nn::Conv1d>(3, 5, 3,
                                                                nn::ConvOptions{.padding = {1}}),
                                   std::make_shared<nn::BatchNorm1d>(5)});
    emb = std::make_shared<nn::Embedding>(20, 8, 0);
    lstm = std::make_shared<nn::LSTM>(8, 16,
                                      nn::RNNOptions{.num_layers = 2,
                                                     .batch_first = true,
                                                     .bidirectional = true});
    gru = std::make_shared<nn::GRU>(32, 12, nn::RNNOptions{.batch_first = true});
    norm = std::make_shared<nn::LayerNorm>(IntList{12});
    head = std::make_shared<nn::Linear>(12, 3);
    lcell = std::make_shared<nn::LSTMCell>(3, 5);
    gcell = std::make_shared<nn::GRUCell>(3, 5);
    for (auto [name, m] : std::vector<std::pair<const char*, nn::ModulePtr>>{{"cnn", cnn},
                                                                             {"conv1d", conv1d},
                                                                             {"emb", emb},
                                                                             {"lstm", lstm},
                                                                             {"gru", gru},
                                                                             {"norm", norm},
                                                                             {"head", head},
                                                                             {"lcell", lcell},
                                                                             {"gcell", gcell}})
      register_module(name, m);
  }
  Tensor forward(const Tensor& images) override { return cnn->forward(images); }
  std::map<std::string, Tensor> outputs(const std::map<std::string, Tensor>& in) {
    const Tensor first = select(in.at("signals"), 2, 0), h = narrow(first, 1, 0, 1);
    const Tensor state = expand(h, {-1, 5});  // (N, 5) from the signal itself
    return {{"cnn", cnn->forward(in.at("images"))},
            {"lcell", lcell->forward(first, state, mul(state, Scalar(0.5)))[1]},
            {"gcell", gcell->forward(first, state)},
            {"conv1d", conv1d->forward(in.at("signals"))},
            {"seq", head->forward(norm->forward(
                        gru->forward(lstm->forward(emb->forward(in.at("tokens"))))))}};
  }
  std::shared_ptr<nn::Sequential> cnn, conv1d;
  std::shared_ptr<nn::Embedding> emb;
  std::shared_ptr<nn::LSTM> lstm;
  std::shared_ptr<nn::GRU> gru;
  std::shared_ptr<nn::LayerNorm> norm;
  std::shared_ptr<nn::Linear> head;
  std::shared_ptr<nn::LSTMCell> lcell;
  std::shared_ptr<nn::GRUCell> gcell;
};

std::map<std::string, Tensor> read(const std::string& path) {
  std::map<std::string, Tensor> out;
  for (auto& [name, t] : load(path)) out[name] = t;
  return out;
}

std::map<std::string, Tensor> detached(std::map<std::string, Tensor> m) {
  for (auto& [k, t] : m) t = detach(t);
  return m;
}

int save_cmd(const std::string& dir) {
  manual_seed(0);
  Zoo zoo;
  std::map<std::string, Tensor> in = {{"images", randn({4, 1, 8, 8})},
                                      {"signals", randn({4, 3, 10})},
                                      {"tokens", randint(0, 20, {4, 6})}};
  // A few training steps, so the weights and the running statistics are not the initial ones.
  optim::SGD opt(zoo.parameters(), {.lr = 0.05, .momentum = 0.9});
  for (int step = 0; step < 3; ++step) {
    Tensor loss = zeros({});
    for (auto& [k, y] : zoo.outputs(in)) loss = add(loss, mean(mul(y, y)));
    opt.zero_grad();
    autograd::backward(loss);
    opt.step();
  }
  zoo.eval();
  NoGradGuard no_grad;
  save_file(in, dir + "/inputs.safetensors");
  save_file(detached(zoo.outputs(in)), dir + "/cpp_outputs.safetensors");
  save(zoo.state_dict(), dir + "/cpp_model.pt");
  save(zoo.state_dict(), dir + "/cpp_model.safetensors");
  return 0;
}

int run_cmd(const std::string& dir, const std::string& file) {
  Zoo zoo;
  zoo.load_state_dict(load(dir + "/" + file));
  zoo.eval();
  NoGradGuard no_grad;
  save_file(detached(zoo.outputs(read(dir + "/inputs.safetensors"))),
            dir + "/" + file + ".outputs.safetensors");
  return 0;
}

// One optimizer + scheduler configuration of test_cpp_state_dict.py's CONFIGS.
struct Config {
  std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)> optimizer;
  std::function<std::unique_ptr<optim::LRScheduler>(optim::Optimizer&)> scheduler;
};

std::map<std::string, Config> configs() {
  using namespace optim;
  auto sgd = [](SGDOptions o) {
    return [o](std::vector<Tensor> p) { return std::make_unique<SGD>(p, o); };
  };
  auto adam = [](AdamOptions o) {
    return [o](std::vector<Tensor> p) { return std::make_unique<Adam>(p, o); };
  };
  return {
      {"sgd_nesterov_step",
       {sgd({.lr = 0.1, .momentum = 0.9, .weight_decay = 1e-2, .nesterov = true}),
        [](Optimizer& o) { return std::make_unique<StepLR>(o, 2, 0.5); }}},
      {"adam_cosine",
       {adam({.lr = 0.05, .amsgrad = true}),
        [](Optimizer& o) { return std::make_unique<CosineAnnealingLR>(o, 4, 1e-3); }}},
      {"adamw_linear",
       {[](std::vector<Tensor> p) {
          return std::make_unique<AdamW>(p, AdamWOptions{.lr = 0.05, .weight_decay = 0.1});
        },
        [](Optimizer& o) { return std::make_unique<LinearLR>(o, 0.5, 1.0, 3); }}},
      {"sgd_onecycle",
       {sgd({.lr = 0.1, .momentum = 0.9}),
        [](Optimizer& o) {
          return std::make_unique<OneCycleLR>(o, 0.2, OneCycleOptions{.total_steps = 6});
        }}},
      {"adam_onecycle_linear_three_phase",
       {adam({.lr = 0.01}),
        [](Optimizer& o) {
          return std::make_unique<OneCycleLR>(o, 0.1,
                                              OneCycleOptions{.total_steps = 6,
                                                              .cos_anneal = false,
                                                              .three_phase = true});
        }}},
      {"rmsprop_lambda",
       {[](std::vector<Tensor> p) {
          return std::make_unique<RMSprop>(p, RMSpropOptions{.lr = 0.01,
                                                             .momentum = 0.5,
                                                             .centered = true});
        },
        [](Optimizer& o) {
          return std::make_unique<LambdaLR>(o, [](int64_t e) { return std::pow(0.9, double(e)); });
        }}},
      {"adagrad_exponential",
       {[](std::vector<Tensor> p) {
          return std::make_unique<Adagrad>(p, AdagradOptions{.lr = 0.1});
        },
        [](Optimizer& o) { return std::make_unique<ExponentialLR>(o, 0.8); }}},
      {"sgd_multistep",
       {sgd({.lr = 0.1}),
        [](Optimizer& o) {
          return std::make_unique<MultiStepLR>(o, std::vector<int64_t>{2, 4}, 0.3);
        }}},
  };
}

int train_cmd(const std::string& dir) {
  std::map<std::string, Tensor> init = read(dir + "/train_init.safetensors");
  for (auto& [name, cfg] : configs()) {
    nn::Linear model(5, 3);
    model.load_state_dict({{"weight", init.at("weight")}, {"bias", init.at("bias")}});
    std::unique_ptr<optim::Optimizer> opt = cfg.optimizer(model.parameters());
    std::unique_ptr<optim::LRScheduler> sched = cfg.scheduler(*opt);
    std::vector<double> lrs;
    for (int step = 0; step < 6; ++step) {
      lrs.push_back(opt->lr());
      Tensor loss = mse_loss(model.forward(init.at("x")), init.at("y"));
      opt->zero_grad();
      autograd::backward(loss);
      opt->step();
      sched->step();
    }
    Tensor lr_t = empty({int64_t(lrs.size())}, DType::Float64);
    std::copy(lrs.begin(), lrs.end(), lr_t.data<double>());
    save_file({{"weight", detach(model.weight)}, {"bias", detach(model.bias)}, {"lrs", lr_t}},
              dir + "/train_" + name + ".safetensors");
  }
  return 0;
}

// The entries of `sd` under "<prefix>.", with the prefix removed.
StateDict under(const StateDict& sd, const std::string& prefix) {
  StateDict out;
  for (const auto& [k, t] : sd)
    if (k.starts_with(prefix + ".")) out.emplace_back(k.substr(prefix.size() + 1), t);
  return out;
}

int resume_cmd(const std::string& dir) {
  std::map<std::string, Tensor> data = read(dir + "/train_init.safetensors");
  const StateDict ckpt = load(dir + "/torch_ckpt.pt");
  nn::Linear model(5, 3);
  model.load_state_dict(under(ckpt, "model"));
  optim::Adam opt(model.parameters(), {.lr = 0.05, .amsgrad = true});
  opt.load_state_dict(under(ckpt, "optim"));
  for (int step = 0; step < 3; ++step) {
    Tensor loss = mse_loss(model.forward(data.at("x")), data.at("y"));
    opt.zero_grad();
    autograd::backward(loss);
    opt.step();
  }
  std::map<std::string, Tensor> out = {{"weight", detach(model.weight)},
                                       {"bias", detach(model.bias)}};
  for (auto& [k, t] : opt.state_dict()) out[k] = t;
  save_file(out, dir + "/resumed.safetensors");
  return 0;
}

int inspect_cmd(const std::string& file) {
  for (auto& [name, t] : load(file)) {
    std::printf("%s %s (", name.c_str(), std::string(dtype_name(t.dtype())).c_str());
    for (int64_t d = 0; d < t.dim(); ++d) std::printf(d ? ", %lld" : "%lld", (long long)t.size(d));
    std::printf(")\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) try {
  const std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "save" && argc == 3) return save_cmd(argv[2]);
  if (cmd == "run" && argc == 4) return run_cmd(argv[2], argv[3]);
  if (cmd == "train" && argc == 3) return train_cmd(argv[2]);
  if (cmd == "resume" && argc == 3) return resume_cmd(argv[2]);
  if (cmd == "inspect" && argc == 3) return inspect_cmd(argv[2]);
  std::fprintf(stderr,
               "usage: %s save DIR | run DIR FILE | train DIR | resume DIR | inspect FILE\n",
               argv[0]);
  return 2;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
