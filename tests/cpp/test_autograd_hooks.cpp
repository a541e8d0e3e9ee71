// Post-accumulate-grad hooks, final callbacks (what DistributedDataParallel builds on) and
// hooks on autograd nodes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {
Tensor leaf(int64_t n) {
  Tensor t = ones(Dims{n}, DType::Float32);
  autograd::set_requires_grad(t, true);
  return t;
}
}  // namespace

TEST(AutogradHooks, PostAccumulateSeesTheUpdatedGrad) {
  Tensor x = leaf(3);
  std::vector<double> seen;
  autograd::register_post_accumulate_grad_hook(x, [&](const Tensor& p) {
    seen.push_back(sum(autograd::grad(p)).item().to_double());
  });
  autograd::backward(sum(mul(x, x)));
  autograd::backward(sum(mul(x, x)));
  EXPECT_EQ(seen, (std::vector<double>{6.0, 12.0}));  // after each accumulation
  EXPECT_THROW(autograd::register_post_accumulate_grad_hook(mul(x, x), [](const Tensor&) {}),
               Error);
  EXPECT_THROW(autograd::register_post_accumulate_grad_hook(ones(Dims{2}, DType::Float32),
                                                            [](const Tensor&) {}),
               Error);
}

TEST(AutogradHooks, FinalCallbacksRunAfterEveryHook) {
  Tensor a = leaf(2), b = leaf(2);
  std::vector<std::string> log;
  auto hook = [&](const Tensor&) {
    log.push_back("hook");
    if (log.size() == 1)
      autograd::queue_callback([&] {
        log.push_back("cb");
        autograd::queue_callback([&] { log.push_back("cb2"); });
      });
  };
  autograd::register_post_accumulate_grad_hook(a, hook);
  autograd::register_post_accumulate_grad_hook(b, hook);
  autograd::backward(sum(mul(a, b)));
  EXPECT_EQ(log, (std::vector<std::string>{"hook", "hook", "cb", "cb2"}));
  EXPECT_THROW(autograd::queue_callback([] {}), Error);  // no backward running
}

TEST(AutogradHooks, FailedBackwardDropsItsCallbacks) {
  Tensor a = leaf(2);
  bool ran = false;
  autograd::register_post_accumulate_grad_hook(a, [&](const Tensor&) {
    autograd::queue_callback([&] { ran = true; });
    throw ValueError("boom");
  });
  EXPECT_THROW(autograd::backward(sum(a)), ValueError);
  EXPECT_FALSE(ran);
  EXPECT_THROW(autograd::queue_callback([] {}), Error);  // the failed backward's scope is gone
}

// Note [Gradient into .grad]: with a kept .grad buffer, mm's backward adds into it in place
// (same buffer, same sums), and a post-accumulate hook still runs once per backward.
TEST(AutogradHooks, MatmulGradientGoesIntoTheKeptBuffer) {
  Tensor x = ones(Dims{3, 4}, DType::Float64);
  Tensor w = ones(Dims{4, 2}, DType::Float64);
  autograd::set_requires_grad(w, true);
  int hooks = 0;
  autograd::register_post_accumulate_grad_hook(w, [&](const Tensor&) { ++hooks; });
  autograd::backward(sum(mm(x, w)));
  const void* buffer = autograd::grad(w).data_ptr();
  autograd::backward(sum(mm(x, w)));
  autograd::backward(sum(mm(x, w)));
  EXPECT_EQ(autograd::grad(w).data_ptr(), buffer);
  EXPECT_EQ(hooks, 3);
  EXPECT_DOUBLE_EQ(sum(autograd::grad(w)).item().to_double(), 3 * 3.0 * 8);  // each entry 3 * 3
}

TEST(AutogradHooks, NodeHooksSeeAndReplaceGradients) {
  Tensor x = leaf(3);
  Tensor y = mul(x, full(Dims{3}, 2.0, DType::Float32));
  IntrusivePtr<Node> n = autograd::grad_fn(y);
  std::vector<std::string> order;
  uint64_t pre = autograd::add_node_prehook(*n, [&](const Grads& g) -> std::optional<Grads> {
    order.push_back("pre");
    return Grads{mul(g[0], full(Dims{3}, 10.0, DType::Float32))};
  });
  uint64_t post =
      autograd::add_node_hook(*n, [&](const Grads& in, const Grads& out) -> std::optional<Grads> {
        order.push_back("post");
        EXPECT_EQ(in.size(), 2u);  // one per input: x, and the constant (undefined)
        EXPECT_FALSE(in[1].defined());
        EXPECT_EQ(sum(out[0]).item().to_double(), 30.0);  // after the pre-hook
        return std::nullopt;
      });
  autograd::backward({sum(y)}, {}, /*retain_graph=*/true, false);
  EXPECT_EQ(order, (std::vector<std::string>{"pre", "post"}));
  EXPECT_EQ(sum(autograd::grad(x)).item().to_double(), 60.0);  // 3 * 2 * 10
  EXPECT_TRUE(autograd::remove_node_hook(*n, pre));
  EXPECT_TRUE(autograd::remove_node_hook(*n, post));
  EXPECT_FALSE(autograd::remove_node_hook(*n, post));
  EXPECT_EQ(n->hooks, nullptr);  // nothing left: the node is plain again
  autograd::backward(sum(y));
  EXPECT_EQ(sum(autograd::grad(x)).item().to_double(), 66.0);
}

TEST(AutogradHooks, NodeHookWithTheWrongCountThrows) {
  Tensor x = leaf(2);
  Tensor y = exp(x);
  autograd::add_node_hook(*autograd::grad_fn(y), [](const Grads& in, const Grads&) {
    return std::optional<Grads>(Grads{in[0], in[0]});
  });
  EXPECT_THROW(autograd::backward(sum(y)), Error);
  EXPECT_FALSE(autograd::grad(x).defined());
}
