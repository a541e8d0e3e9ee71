// The default process group: init_process_group (file://, redis://, tcp://, env://) and the
// module-level collectives of torch.distributed.
#include <pthread.h>

#include <cstdlib>
#include <mutex>

#include "distributed/process_group_impl.h"
#include "ember/tcp_store.h"

namespace ember::distributed {
namespace {

std::mutex g_mu;
std::shared_ptr<ProcessGroup> g_default;  // guarded by g_mu
// tcp:// and env://: the TCPStore rank 0 serves, until destroy_process_group (guarded by g_mu).
std::unique_ptr<TCPStore> g_master_store;
int g_groups_created = 0;  // guarded by g_mu; part of the store prefix

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

// env:// rendezvous: the launcher's $EMBER_RENDEZVOUS, else the TCPStore of rank 0 on
// $MASTER_ADDR:$MASTER_PORT (PyTorch's env://).
std::string env_store_url() {
  if (const char* r = env("EMBER_RENDEZVOUS")) return r;
  const char* addr = env("MASTER_ADDR");
  const char* port = env("MASTER_PORT");
  EMBER_CHECK(addr && port, ValueError,
              "init_process_group: env:// needs MASTER_ADDR and MASTER_PORT (rank 0 serves the "
              "store there) or EMBER_RENDEZVOUS (a file://, redis:// or tcp:// URL) in the "
              "environment");
  return detail::cat("tcp://", addr, ":", port);
}

// Rank 0 of a tcp:// rendezvous serves the store (on every interface, at the URL's port).
void serve_store(const std::string& url, std::chrono::milliseconds timeout) {
  auto [host, port] = parse_host_port(url, "init_process_group");
  auto store = std::make_unique<TCPStore>(host, port, true, timeout);
  std::lock_guard<std::mutex> lock(g_mu);
  g_master_store = std::move(store);
}

// A child forked after init_process_group (a DataLoader worker) has none of the
// group's threads: it forgets the group, deliberately leaking it, since destroying it
// would join threads that do not exist in the child.
void forget_group_in_child() {
  if (g_default) new std::shared_ptr<ProcessGroup>(std::move(g_default));  // leaked on purpose
  (void)g_master_store.release();  // its server thread is the parent's: leaked likewise
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
    prefix = detail::cat(o.store_prefix.empty() ? "" : o.store_prefix + "/", "ember-",
                         run ? run : "default", "-", g_groups_created);
  }
  register_fork_handler();
  if (url.rfind("tcp://", 0) == 0 && rank == 0 && o.serve_tcp_store) {
    try {
      serve_store(url, o.timeout);
    } catch (const ValueError&) {
      throw;
    } catch (const std::exception& e) {
      throw Error(detail::cat("init_process_group: rank 0 cannot serve the store of ", url, ": ",
                              e.what()));
    }
  }
  // Connecting blocks until every rank joined: not under the lock.
  std::shared_ptr<ProcessGroup> group;
  try {
    group = std::make_shared<ProcessGroup>(url, prefix, rank, world, o.timeout);
  } catch (...) {
    std::lock_guard<std::mutex> lock(g_mu);
    g_master_store.reset();
    throw;
  }
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
  std::unique_ptr<TCPStore> served;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    served = std::move(g_master_store);
  }
  destroy_all_groups();
  if (g) {
    g->shutdown();
    // The store this rank serves goes away with it: first let every rank finish joining
    // (a rank may still be setting its "ready" key after rank 0's connections were all
    // up), within the group's timeout, at most 30 s.
    if (served) {
      std::vector<std::string> ready;
      for (int r = 0; r < g->size(); ++r)
        ready.push_back(detail::cat(g->prefix(), "/ember-ready-", r));
      try {
        served->wait(ready,
                     std::min<std::chrono::milliseconds>(g->timeout(), std::chrono::seconds(30)));
      } catch (const std::exception&) {  // a rank that never joined: nothing to wait for
      }
    }
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
