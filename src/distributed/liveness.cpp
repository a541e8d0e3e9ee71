// Liveness of the peers of a process group (see liveness.h and docs/distributed.md,
// "When a rank fails").
//
// Why TCP_INFO and not a heartbeat through the rendezvous store: a store reachable from
// both sides of a broken link (a shared file system, a redis server on a third host)
// would report every rank alive; only the connections between the ranks show the link.
// Why not only the kernel's verdict (TCP_USER_TIMEOUT): it fails the collectives waiting
// on that one connection, while a rank waiting on a live neighbour would then learn of
// the failure from the neighbour's closed connection and blame the neighbour.
#include "distributed/liveness.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

#include <gloo/context.h>
#include <gloo/transport/tcp/address.h>
#include <gloo/transport/unbound_buffer.h>

#include "ember/error.h"

namespace ember::distributed {
namespace {

using std::chrono::milliseconds;

// Our end ("[ip]:port", Gloo's spelling) of a connected TCP socket; "" for anything else
// (the number may have been reused since Gloo closed the socket).
std::string local_name(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "";
  if (ss.ss_family != AF_INET && ss.ss_family != AF_INET6) return "";
  return gloo::transport::tcp::Address::fromSockName(fd).str();
}

std::string peer_host(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "?";
  char buf[INET6_ADDRSTRLEN] = {0};
  const void* a = ss.ss_family == AF_INET6
                      ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&ss)->sin6_addr)
                      : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&ss)->sin_addr);
  return inet_ntop(ss.ss_family, a, buf, sizeof(buf)) ? buf : "?";
}

// The sockets of this process by their local address: Gloo keeps its pairs' descriptors
// to itself, so they are found by the address each pair reports.
std::vector<std::pair<int, std::string>> tcp_sockets() {
  std::vector<std::pair<int, std::string>> out;
  DIR* d = opendir("/proc/self/fd");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long fd = std::strtol(e->d_name, &end, 10);
    struct stat st {};
    if (*end != '\0' || fd == dirfd(d) || fstat(int(fd), &st) != 0 || !S_ISSOCK(st.st_mode))
      continue;
    std::string name = local_name(int(fd));
    if (!name.empty()) out.emplace_back(int(fd), name);
  }
  closedir(d);
  return out;
}

void set_int(int fd, int level, int opt, int value) {
  setsockopt(fd, level, opt, &value, sizeof(value));  // best effort: the watcher decides
}

int seconds_up(milliseconds t) { return int(std::max<int64_t>(1, (t.count() + 999) / 1000)); }

}  // namespace

milliseconds peer_timeout_for(milliseconds op_timeout) {
  if (const char* v = std::getenv("EMBER_DIST_PEER_TIMEOUT"); v && *v) {
    char* end = nullptr;
    double s = std::strtod(v, &end);
    EMBER_CHECK(*end == '\0' && s >= 0 && s < 1e7, ValueError,
                "init_process_group: EMBER_DIST_PEER_TIMEOUT must be a number of seconds >= 0 "
                "(0 turns the peer watch off), got '",
                v, "'");
    return milliseconds(int64_t(s * 1000.0 + 0.5));
  }
  return std::min(kDefaultPeerTimeout, op_timeout);
}

Liveness::Liveness(std::shared_ptr<gloo::Context> context, milliseconds peer_timeout)
    : context_(std::move(context)), timeout_(peer_timeout),
      // A probe after a fifth of the timeout without traffic, then one every tenth: a
      // healthy idle connection is acknowledged at least every idle_ + round trip.
      idle_(std::max(milliseconds(1000), peer_timeout / 5)),
      interval_(std::max(milliseconds(1000), peer_timeout / 10)) {
  std::vector<std::pair<int, std::string>> sockets = tcp_sockets();
  for (int r = 0; r < context_->size; ++r) {
    if (r == context_->rank) continue;
    Peer p;
    p.rank = r;
    p.local = context_->getPair(r)->address().str();
    for (const auto& [fd, name] : sockets)
      if (name == p.local) p.fd = fd;
    if (p.fd < 0) continue;  // not found: this peer is not watched (the op timeout still holds)
    p.host = peer_host(p.fd);
    set_int(p.fd, SOL_SOCKET, SO_KEEPALIVE, 1);
    set_int(p.fd, IPPROTO_TCP, TCP_KEEPIDLE, seconds_up(idle_));
    set_int(p.fd, IPPROTO_TCP, TCP_KEEPINTVL, seconds_up(interval_));
    // Probes until the kernel gives up: TCP_USER_TIMEOUT decides when set, this when not.
    set_int(p.fd, IPPROTO_TCP, TCP_KEEPCNT, 12);
    // The kernel's own verdict comes two intervals after the watcher's.
    set_int(p.fd, IPPROTO_TCP, TCP_USER_TIMEOUT, int((timeout_ + 2 * interval_).count()));
    peers_.push_back(p);
  }
  if (!peers_.empty()) thread_ = std::thread([this] { watch(); });
}

Liveness::~Liveness() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string Liveness::silent(milliseconds threshold) const {
  const Peer* worst = nullptr;
  uint32_t worst_ms = 0;
  for (const Peer& p : peers_) {
    tcp_info info{};
    socklen_t len = sizeof(info);
    if (local_name(p.fd) != p.local) continue;  // Gloo closed it: not silent, gone
    if (getsockopt(p.fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) continue;
    if (info.tcpi_state != TCP_ESTABLISHED) continue;
    // Unanswered: keepalive probes or data out, and no acknowledgement for `threshold`.
    bool waiting = info.tcpi_probes > 0 || info.tcpi_retransmits > 0 || info.tcpi_backoff > 0 ||
                   info.tcpi_unacked > 0;
    if (waiting && info.tcpi_last_ack_recv >= uint32_t(threshold.count()) &&
        info.tcpi_last_ack_recv >= worst_ms) {
      worst = &p;
      worst_ms = info.tcpi_last_ack_recv;
    }
  }
  if (!worst) return "";
  return detail::cat("rank ", worst->rank, " (host ", worst->host,
                     ") is unreachable: its host has acknowledged nothing for ",
                     (worst_ms + 500) / 1000, " s (peer timeout ", (timeout_.count() + 500) / 1000,
                     " s; EMBER_DIST_PEER_TIMEOUT sets it)");
}

std::string Liveness::explain() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!verdict_.empty()) return verdict_;
  }
  return silent(idle_ + interval_);
}

// Every `period`: a peer silent for the timeout (less one period, so that the verdict comes
// within the timeout) fails the group. The abort is Gloo's own: a receive
// that times out signals the error to every pair, which wakes every pending operation.
void Liveness::watch() {
  milliseconds period = std::clamp(interval_ / 2, milliseconds(100), milliseconds(1000));
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, period, [&] { return stop_; })) {
    lock.unlock();
    std::string why = silent(std::max(timeout_ - period, idle_ + interval_));
    lock.lock();
    if (why.empty()) continue;
    verdict_ = why;
    lock.unlock();
    char byte = 0;
    auto buf = context_->createUnboundBuffer(&byte, 1);
    for (const Peer& p : peers_) {
      try {
        buf->recv(p.rank, uint64_t(0xE4) << 56);  // a slot no collective uses
      } catch (const std::exception&) {
        continue;  // this pair failed already: try the next
      }
      try {
        buf->waitRecv(nullptr, milliseconds(1));  // nobody sends there: times out
      } catch (const std::exception&) {
      }
      break;  // every pair is now failed
    }
    return;
  }
}

}  // namespace ember::distributed
