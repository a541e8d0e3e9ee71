// Liveness of a process group's peers: how a rank learns within a bounded time that a
// peer's host became unreachable (a cable pulled, a host frozen, a partition: no FIN, no
// RST), instead of waiting in a collective until the collective timeout (30 minutes).
//
// Gloo's TCP sockets get keepalive probes; a watcher thread reads each socket's TCP_INFO
// and calls a peer silent when its keepalive probes or data went unacknowledged for the
// peer timeout. It then records which rank and host went silent and fails every pending
// and later collective of the group at once (through Gloo's own abort path), so the
// error names the silent rank instead of a neighbour that merely failed first. The kernel
// itself drops the connection (TCP_USER_TIMEOUT) a little later, as a backstop.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ember/distributed.h"

namespace gloo {
class Context;
}

namespace ember::distributed {

class Liveness {
 public:
  // Finds the sockets of `context`'s pairs, sets their keepalive and starts the watcher.
  Liveness(std::shared_ptr<gloo::Context> context, std::chrono::milliseconds peer_timeout);
  ~Liveness();  // stops the watcher
  Liveness(const Liveness&) = delete;
  Liveness& operator=(const Liveness&) = delete;

  // Why the group failed, when a peer is silent: "rank 3 (host h, 10.0.0.2) is
  // unreachable: ..."; "" when every peer answers. After a failure shown as a closed
  // connection, a peer counts as silent after one unanswered keepalive interval (the
  // rank that closed may have given up on it first).
  std::string explain() const;
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  struct Peer {
    int rank = -1;
    int fd = -1;
    std::string local;  // our end of the connection, to recognise the socket
    std::string host;   // the peer's address
  };
  // The silent peer whose last acknowledgement is oldest, at least `threshold` ago.
  std::string silent(std::chrono::milliseconds threshold) const;
  void watch();

  std::shared_ptr<gloo::Context> context_;
  std::chrono::milliseconds timeout_, idle_, interval_;
  std::vector<Peer> peers_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;    // guarded by mu_
  std::string verdict_;  // guarded by mu_: set once, by the watcher
  std::thread thread_;
};

}  // namespace ember::distributed
