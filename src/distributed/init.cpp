// The default process group: init_process_group (file://, redis://, env://) and the
// module-level collectives of torch.distributed.
#include <pthread.h>

#include <cstdlib>
#include <mutex>

#include "distributed/process_group_impl.h"

namespace ember::distributed {
namespace {

std::mutex g_mu;
std::shared_ptr<ProcessGroup> g_default;  // guarded by g_mu
int g_groups_created = 0;                 // guarded by g_mu; part of the store prefix

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

int int_from_env(const char* name, const char* method) {
  const char* v = env(name);
  EMBER_CHECK(v, ValueError, "init_process_group: ", method, " needs the environment variable ",
              name, " (or pass ", name[0] == 'R' ? "rank" : "world_size", "=)");
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  EMBER_CHECK(*end == '\0' && x >= 0 && x < (1L << 30), ValueError, "init_process_group: ", name,
              " must be a non-negative integer, got '", v, "'");
  return int(x);
}

// env:// rendezvous: the launcher's $EMBER_RENDEZVOUS, else redis on the master.
std::string env_store_url() {
  if (const char* r = env("EMBER_RENDEZVOUS")) return r;
  const char* addr = env("MASTER_ADDR");
  const char* port = env("MASTER_PORT");
  EMBER_CHECK(addr && port, ValueError,
              "init_process_group: env:// needs EMBER_RENDEZVOUS (a file:// or redis:// URL) or "
              "MASTER_ADDR and MASTER_PORT (a redis server) in the environment");
  return detail::cat("redis://", addr, ":", port);
}

// A child forked after init_process_group (a DataLoader worker) has none of the
// group's threads: it forgets the group, deliberately leaking it, since destroying it
// would join threads that do not exist in the child.
void forget_group_in_child() {
  if (g_default) new std::shared_ptr<ProcessGroup>(std::move(g_default));  // leaked on purpose
  forget_groups_in_child();
}

void register_fork_handler() {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, &forget_group_in_child); });
}

WorkPtr finish(WorkPtr w, bool async_op) {
  if (async_op) return w;
  w->wait();
  return nullptr;
}

}  // namespace

void init_process_group(const InitOptions& o) {
  EMBER_CHECK(o.backend == "gloo" || o.backend == "cpu:gloo", ValueError,
              "init_process_group: unknown backend '", o.backend, "' (ember supports 'gloo')");
  std::string method = o.init_method.empty() ? "env://" : o.init_method;
  bool is_env = method == "env://";
  int rank = o.rank >= 0 ? o.rank : int_from_env("RANK", is_env ? "env://" : method.c_str());
  int world = o.world_size >= 0 ? o.world_size
                                : int_from_env("WORLD_SIZE", is_env ? "env://" : method.c_str());
  std::string url = is_env ? env_store_url() : method;
  std::string prefix;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    EMBER_CHECK(!g_default, ValueError,
                "init_process_group: trying to initialize the default process group twice");
    const char* run = env("EMBER_RUN_ID");
    prefix = detail::cat("ember-", run ? run : "default", "-", g_groups_created);
  }
  register_fork_handler();
  // Connecting blocks until every rank joined: not under the lock.
  auto group = std::make_shared<ProcessGroup>(url, prefix, rank, world, o.timeout);
  std::lock_guard<std::mutex> lock(g_mu);
  EMBER_CHECK(!g_default, ValueError,
              "init_process_group: trying to initialize the default process group twice");
  g_default = std::move(group);
  ++g_groups_created;
}

bool is_initialized() {
  std::lock_guard<std::mutex> lock(g_mu);
  return bool(g_default);
}

void destroy_process_group() {
  std::shared_ptr<ProcessGroup> g;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g = std::move(g_default);
  }
  // Finishes the queued work and stops the thread, outside the lock; a ProcessGroup
  // still referenced elsewhere (Python) stays inert.
  destroy_all_groups();
  if (g) {
    g->shutdown();
    remove_keys_when_all_ready(*g);
  }
}

std::shared_ptr<ProcessGroup> default_group(const char* op) {
  std::lock_guard<std::mutex> lock(g_mu);
  EMBER_CHECK(
      g_default, ValueError, op,
      ": the default process group has not been initialized, call init_process_group first");
  return g_default;
}

int get_rank() { return default_group("get_rank")->rank(); }
int get_world_size() { return default_group("get_world_size")->size(); }

WorkPtr all_reduce(const Tensor& t, ReduceOp op, bool async_op) {
  return finish(default_group("all_reduce")->all_reduce(t, op), async_op);
}
WorkPtr broadcast(const Tensor& t, int src, bool async_op) {
  return finish(default_group("broadcast")->broadcast(t, src), async_op);
}
WorkPtr all_gather(const std::vector<Tensor>& outputs, const Tensor& input, bool async_op) {
  return finish(default_group("all_gather")->all_gather(outputs, input), async_op);
}
WorkPtr all_gather_into_tensor(const Tensor& output, const Tensor& input, bool async_op) {
  return finish(default_group("all_gather_into_tensor")->all_gather_into_tensor(output, input),
                async_op);
}
WorkPtr reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op,
                       bool async_op) {
  return finish(default_group("reduce_scatter")->reduce_scatter(output, inputs, op), async_op);
}
WorkPtr reduce_scatter_tensor(const Tensor& output, const Tensor& input, ReduceOp op,
                              bool async_op) {
  return finish(default_group("reduce_scatter_tensor")->reduce_scatter_tensor(output, input, op),
                async_op);
}
WorkPtr barrier(bool async_op) { return finish(default_group("barrier")->barrier(), async_op); }

}  // namespace ember::distributed
