// The inside of a ProcessGroup: the Gloo context, the FIFO of work items and the one
// communication thread that runs them. Shared by process_group.cpp (queue, thread,
// errors) and collectives.cpp (argument checks and the Gloo calls).
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <gloo/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/device.h>

#include "distributed/liveness.h"
#include "ember/distributed.h"

namespace ember::distributed {

// Thrown by a queued item that names the failure itself (monitored_barrier): the Work's
// error is its message as is, not Gloo's text wrapped by describe_failure.
struct ReportedError : Error {
  using Error::Error;
};

// Removes the keys a group of `size` ranks wrote under `prefix` from the store at `url`
// (store.cpp); best effort.
void remove_store_keys(const std::string& url, const std::string& prefix, int size);
// After shutdown: the group's rank 0 removes its store keys once every member finished
// connecting (groups.cpp).
void remove_keys_when_all_ready(const ProcessGroup& g);
// destroy_process_group: shuts every group made by new_group down (groups.cpp).
void destroy_all_groups();
// In a child forked after new_group (a DataLoader worker): forgets the groups, whose
// threads do not exist there (groups.cpp; called by init.cpp's fork handler).
void forget_groups_in_child();

struct ProcessGroup::Impl : std::enable_shared_from_this<ProcessGroup::Impl> {
  // One queued collective: `run` gets the Gloo tag of this collective (the same on
  // every rank because all ranks issue collectives in the same order).
  struct Item {
    WorkPtr work;
    std::function<void(uint32_t tag)> run;
  };

  std::shared_ptr<gloo::transport::Device> device;
  std::shared_ptr<gloo::Context> context;
  std::map<std::string, int> rank_of_address;  // a peer's end of its connection to us -> rank
  int rank = 0, size = 1;
  std::chrono::milliseconds timeout{0};
  std::unique_ptr<Liveness> liveness;  // null when the peer watch is off

  std::mutex mu;
  std::condition_variable cv;
  std::deque<Item> queue;  // guarded by mu
  bool stop = false;       // guarded by mu
  bool running = false;    // guarded by mu: a thread is executing an item
  std::thread thread;

  // Touched only by the thread that set `running` (items run one at a time, in order).
  uint32_t next_tag = 0;
  std::string failure;  // the first collective's error; later ones fail fast with it

  bool stopped() {
    std::lock_guard<std::mutex> lock(mu);
    return stop;
  }
  WorkPtr enqueue(std::string name, std::function<void(uint32_t)> run);
  void loop();
  void execute(Item& item);
  void run_inline(const Work* work);
  std::string describe_failure(const std::string& name, const std::string& what) const;
  void learn_peer_addresses(gloo::rendezvous::Store& store);
  std::vector<int> closed_peers() const;
};

// "redis://host:port" / "tcp://host:port" -> host, port (store.cpp); ValueError naming `op`.
std::pair<std::string, int> parse_host_port(const std::string& url, const char* op);
// Builds the Gloo store for "file://...", "redis://host:port" or "tcp://host:port" (a
// TCPStore client, which waits up to `timeout` for the master) (store.cpp).
std::unique_ptr<gloo::rendezvous::Store> make_store(
    const std::string& url, const char* op,
    std::chrono::milliseconds timeout = std::chrono::seconds(300));
// The tcp device to listen on: $GLOO_SOCKET_IFNAME, or the address that routes to
// $MASTER_ADDR or the redis host, else loopback (store.cpp).
std::shared_ptr<gloo::transport::Device> make_device(const std::string& store_url,
                                                     const std::string& hostname);

}  // namespace ember::distributed
