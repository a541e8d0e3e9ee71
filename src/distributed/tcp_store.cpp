// TCPStore (include/ember/tcp_store.h): the server thread and the client.
//
// Wire format, both directions: one message = a tag byte, a count n (u32), then n strings,
// each a length (u32) and its bytes; integers little-endian. A request's tag is its command;
// a reply's tag is 0 (ok) with the results. The server keeps the keys in memory and answers
// a get/wait/multi_get whose keys are missing when a later request sets the last of them.
#include "ember/tcp_store.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

#include "ember/error.h"

namespace ember::distributed {
namespace {

enum Cmd : uint8_t {
  kSet = 1,
  kGet,
  kAdd,
  kCompareSet,
  kAppend,
  kCheck,
  kWait,
  kDelete,
  kNumKeys,
  kMultiGet,
  kMultiSet
};

using Strings = std::vector<std::string>;

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}

uint32_t get_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(uint8_t(p[i])) << (8 * i);
  return v;
}

std::string encode(uint8_t tag, const Strings& parts) {
  std::string out(1, char(tag));
  put_u32(out, uint32_t(parts.size()));
  for (const auto& s : parts) {
    put_u32(out, uint32_t(s.size()));
    out += s;
  }
  return out;
}

// One whole message from the front of buf (then erased), or false when it is incomplete.
bool decode(std::string& buf, uint8_t& tag, Strings& parts) {
  if (buf.size() < 5) return false;
  uint32_t n = get_u32(buf.data() + 1);
  size_t at = 5;
  Strings out;
  for (uint32_t i = 0; i < n; ++i) {
    if (buf.size() < at + 4) return false;
    uint32_t len = get_u32(buf.data() + at);
    if (buf.size() < at + 4 + len) return false;
    out.emplace_back(buf.data() + at + 4, len);
    at += 4 + len;
  }
  tag = uint8_t(buf[0]);
  parts = std::move(out);
  buf.erase(0, at);
  return true;
}

bool send_all(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t w = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    sent += size_t(w);
  }
  return true;
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

// ---- the server -------------------------------------------------------------------------------

struct TCPStore::Server {
  int listen_fd = -1;
  int wake[2] = {-1, -1};  // a byte on wake[1] stops the thread
  int port = 0;
  std::thread thread;
  // Touched by the server thread only.
  std::map<std::string, std::string> kv;
  struct Conn {
    int fd;
    std::string in;
  };
  std::vector<Conn> conns;
  struct Waiter {
    int fd;
    uint8_t cmd;
    Strings keys;
  };
  std::vector<Waiter> waiters;

  Server(int want_port) {
    listen_fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool v6 = listen_fd >= 0;
    if (!v6) listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EMBER_CHECK(listen_fd >= 0, Error, "TCPStore: cannot create a socket: ", errno_text());
    int one = 1, zero = 0;
    ::setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    int rc;
    if (v6) {  // every interface, IPv4 included (as torch's server)
      ::setsockopt(listen_fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
      sockaddr_in6 a{};
      a.sin6_family = AF_INET6;
      a.sin6_addr = in6addr_any;
      a.sin6_port = htons(uint16_t(want_port));
      rc = ::bind(listen_fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    } else {
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_ANY);
      a.sin_port = htons(uint16_t(want_port));
      rc = ::bind(listen_fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    }
    if (rc != 0 || ::listen(listen_fd, 128) != 0) {
      std::string why = errno_text();
      ::close(listen_fd);
      throw Error(
          detail::cat("TCPStore: the server socket cannot listen on port ", want_port, ": ", why));
    }
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    ::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&ss), &len);
    port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                          : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    EMBER_CHECK(::pipe2(wake, O_CLOEXEC) == 0, Error, "TCPStore: pipe: ", errno_text());
    thread = std::thread([this] { loop(); });
  }

  ~Server() {
    char b = 1;
    (void)!::write(wake[1], &b, 1);
    if (thread.joinable()) thread.join();
    for (auto& c : conns) ::close(c.fd);
    ::close(listen_fd);
    ::close(wake[0]);
    ::close(wake[1]);
  }

  void loop() {
    std::vector<pollfd> fds;
    for (;;) {
      fds.clear();
      fds.push_back({wake[0], POLLIN, 0});
      fds.push_back({listen_fd, POLLIN, 0});
      for (auto& c : conns) fds.push_back({c.fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[0].revents) return;
      if (fds[1].revents & POLLIN) {
        int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) {
          int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          conns.push_back({fd, {}});
        }
      }
      std::vector<int> closed;
      for (size_t i = 2; i < fds.size(); ++i) {
        if (!fds[i].revents) continue;
        if (!read_from(fds[i].fd)) closed.push_back(fds[i].fd);
      }
      for (int fd : closed) drop(fd);
    }
  }

  Conn* conn(int fd) {
    for (auto& c : conns)
      if (c.fd == fd) return &c;
    return nullptr;
  }

  void drop(int fd) {  // once per connection: the fd is closed only while it is listed
    if (!conn(fd)) return;
    ::close(fd);
    conns.erase(std::remove_if(conns.begin(), conns.end(), [&](auto& c) { return c.fd == fd; }),
                conns.end());
    waiters.erase(std::remove_if(waiters.begin(), waiters.end(),
                                 [&](auto& w) { return w.fd == fd; }),
                  waiters.end());
  }

  // Reads what arrived and serves every whole request; false when the peer is gone or
  // sent garbage.
  bool read_from(int fd) {
    char buf[65536];
    ssize_t r = ::recv(fd, buf, sizeof(buf), 0);
    if (r <= 0) return r < 0 && errno == EINTR;
    conn(fd)->in.append(buf, size_t(r));
    uint8_t tag;
    Strings parts;
    // Looked up again each time: serving may drop other connections (conns moves).
    for (Conn* c = conn(fd); c && decode(c->in, tag, parts); c = conn(fd))
      if (!serve(fd, tag, parts)) return false;
    return true;
  }

  bool all_set(const Strings& keys) const {
    return std::all_of(keys.begin(), keys.end(), [&](auto& k) { return kv.count(k) != 0; });
  }

  bool reply(int fd, const Strings& parts) { return send_all(fd, encode(0, parts)); }

  // Answers a waiting get/wait/multi_get (its keys all set).
  bool answer_waiting(int fd, uint8_t cmd, const Strings& keys) {
    if (cmd == kWait) return reply(fd, {});
    Strings values;
    for (const auto& k : keys) values.push_back(kv[k]);
    return reply(fd, values);
  }

  // After a write: the waiters whose keys are now all set get their answer.
  void wake_waiters() {
    std::vector<Waiter> still;
    std::vector<int> failed;
    for (auto& w : waiters) {
      if (!all_set(w.keys)) still.push_back(std::move(w));
      else if (!answer_waiting(w.fd, w.cmd, w.keys)) failed.push_back(w.fd);
    }
    waiters = std::move(still);
    for (int fd : failed) drop(fd);
  }

  bool serve(int fd, uint8_t cmd, Strings& a) {
    auto need = [&](size_t n) { return a.size() == n; };
    switch (cmd) {
      case kSet:
        if (!need(2)) return false;
        kv[a[0]] = std::move(a[1]);
        wake_waiters();
        return reply(fd, {});
      case kMultiSet:
        if (a.size() % 2) return false;
        for (size_t i = 0; i < a.size(); i += 2) kv[a[i]] = std::move(a[i + 1]);
        wake_waiters();
        return reply(fd, {});
      case kAppend:
        if (!need(2)) return false;
        kv[a[0]] += a[1];
        wake_waiters();
        return reply(fd, {});
      case kAdd: {
        if (!need(2)) return false;
        auto it = kv.find(a[0]);
        int64_t old = it == kv.end() ? 0 : std::strtoll(it->second.c_str(), nullptr, 10);
        std::string now = std::to_string(old + std::strtoll(a[1].c_str(), nullptr, 10));
        kv[a[0]] = now;
        wake_waiters();
        return reply(fd, {now});
      }
      case kCompareSet: {
        if (!need(3)) return false;
        auto it = kv.find(a[0]);
        if (it == kv.end()) {
          if (!a[1].empty()) return reply(fd, {a[1]});
          kv[a[0]] = a[2];
          wake_waiters();
          return reply(fd, {a[2]});
        }
        if (it->second == a[1]) {
          it->second = a[2];
          wake_waiters();
        }
        return reply(fd, {it->second});
      }
      case kCheck: return reply(fd, {all_set(a) ? "1" : "0"});
      case kDelete: return reply(fd, {kv.erase(a.empty() ? std::string() : a[0]) ? "1" : "0"});
      case kNumKeys: return reply(fd, {std::to_string(kv.size())});
      case kGet:
      case kWait:
      case kMultiGet:
        if (cmd == kGet && !need(1)) return false;
        if (all_set(a)) return answer_waiting(fd, cmd, a);
        waiters.push_back({fd, cmd, std::move(a)});
        return true;
      default: return false;
    }
  }
};

// ---- the client -------------------------------------------------------------------------------

struct TCPStore::Client {
  std::string host;
  int port;
  std::chrono::milliseconds timeout;
  int fd = -1;
  std::string in;

  using Clock = std::chrono::steady_clock;

  ~Client() { disconnect(); }

  void disconnect() {
    if (fd >= 0) ::close(fd);
    fd = -1;
    in.clear();
  }

  int try_connect() {
    addrinfo hints{}, *res = nullptr;
    hints.ai_socktype = SOCK_STREAM;
    std::string service = std::to_string(port);
    if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &res) != 0 || !res) return -1;
    int out = -1;
    for (addrinfo* p = res; p && out < 0; p = p->ai_next) {
      int s = ::socket(p->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (s < 0) continue;
      if (::connect(s, p->ai_addr, p->ai_addrlen) == 0) {
        int one = 1;
        ::setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        out = s;
      } else {
        ::close(s);
      }
    }
    ::freeaddrinfo(res);
    return out;
  }

  // Connects, retrying until the timeout: the master may not listen yet.
  void connect() {
    if (fd >= 0) return;
    auto deadline = Clock::now() + timeout;
    for (;;) {
      fd = try_connect();
      if (fd >= 0) return;
      EMBER_CHECK(Clock::now() < deadline, Error, "TCPStore: cannot connect to ", host, ":", port,
                  " within the timeout of ", timeout.count(), " ms (is the master up?)");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // One request and its reply. `wait_for`: how long a reply may take (a get of a key not
  // set yet waits for it); on a timeout the connection is closed, so the late reply is lost.
  Strings call(uint8_t cmd, const Strings& args, std::chrono::milliseconds wait_for, const char* op,
               const Strings& keys_for_message = {}) {
    connect();
    if (!send_all(fd, encode(cmd, args))) {
      disconnect();  // the master may have restarted: one more try on a new connection
      connect();
      if (!send_all(fd, encode(cmd, args))) {
        disconnect();
        throw Error(
            detail::cat("TCPStore.", op, ": the connection to ", host, ":", port, " was closed"));
      }
    }
    auto deadline = Clock::now() + wait_for;
    uint8_t tag;
    Strings out;
    while (!decode(in, tag, out)) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      pollfd p{fd, POLLIN, 0};
      int rc = left.count() > 0 ? ::poll(&p, 1, int(std::min<int64_t>(left.count(), 1 << 30))) : 0;
      if (rc < 0 && errno == EINTR) continue;
      if (rc == 0) {
        disconnect();
        std::string names;
        for (const auto& k : keys_for_message) names += (names.empty() ? "" : ", ") + k;
        throw Error(detail::cat("TCPStore.", op, ": wait timeout after ", wait_for.count(),
                                "ms, keys: ", names));
      }
      char buf[65536];
      ssize_t r = ::recv(fd, buf, sizeof(buf), 0);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        disconnect();
        throw Error(detail::cat("TCPStore.", op, ": the connection to the master ", host, ":", port,
                                " was closed"));
      }
      in.append(buf, size_t(r));
    }
    return out;
  }
};

// ---- TCPStore -----------------------------------------------------------------------------------

TCPStore::TCPStore(const std::string& host, int port, bool is_master,
                   std::chrono::milliseconds timeout) {
  EMBER_CHECK(port >= 0 && port < 65536, ValueError, "TCPStore: port must be in [0, 65535], got ",
              port);
  EMBER_CHECK(is_master || port != 0, ValueError,
              "TCPStore: a client needs the master's port, got 0");
  EMBER_CHECK(timeout.count() > 0, ValueError, "TCPStore: timeout must be positive");
  if (is_master) server_ = std::make_unique<Server>(port);
  client_ = std::make_unique<Client>();
  client_->host = host.empty() ? "127.0.0.1" : host;
  client_->port = is_master ? server_->port : port;
  client_->timeout = timeout;
  client_->connect();
}

TCPStore::~TCPStore() {
  client_.reset();  // before the server, whose thread then sees the connection close
  server_.reset();
}

const std::string& TCPStore::host() const { return client_->host; }
int TCPStore::port() const { return client_->port; }
bool TCPStore::is_master() const { return server_ != nullptr; }
std::chrono::milliseconds TCPStore::timeout() const { return client_->timeout; }
void TCPStore::set_timeout(std::chrono::milliseconds t) {
  EMBER_CHECK(t.count() > 0, ValueError, "TCPStore.set_timeout: timeout must be positive");
  client_->timeout = t;
}

void TCPStore::set(const std::string& key, const std::string& value) {
  client_->call(kSet, {key, value}, client_->timeout, "set");
}

std::string TCPStore::get(const std::string& key) {
  return client_->call(kGet, {key}, client_->timeout, "get", {key}).at(0);
}

int64_t TCPStore::add(const std::string& key, int64_t amount) {
  auto r = client_->call(kAdd, {key, std::to_string(amount)}, client_->timeout, "add");
  return std::strtoll(r.at(0).c_str(), nullptr, 10);
}

std::string TCPStore::compare_set(const std::string& key, const std::string& expected,
                                  const std::string& desired) {
  return client_->call(kCompareSet, {key, expected, desired}, client_->timeout, "compare_set")
      .at(0);
}

void TCPStore::append(const std::string& key, const std::string& value) {
  client_->call(kAppend, {key, value}, client_->timeout, "append");
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  return client_->call(kCheck, keys, client_->timeout, "check").at(0) == "1";
}

void TCPStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  client_->call(kWait, keys, timeout, "wait", keys);
}

bool TCPStore::delete_key(const std::string& key) {
  return client_->call(kDelete, {key}, client_->timeout, "delete_key").at(0) == "1";
}

int64_t TCPStore::num_keys() {
  return std::strtoll(client_->call(kNumKeys, {}, client_->timeout, "num_keys").at(0).c_str(),
                      nullptr, 10);
}

std::vector<std::string> TCPStore::multi_get(const std::vector<std::string>& keys) {
  return client_->call(kMultiGet, keys, client_->timeout, "multi_get", keys);
}

void TCPStore::multi_set(const std::vector<std::string>& keys,
                         const std::vector<std::string>& values) {
  EMBER_CHECK(keys.size() == values.size(), ValueError, "TCPStore.multi_set: ", keys.size(),
              " keys but ", values.size(), " values");
  Strings args;
  for (size_t i = 0; i < keys.size(); ++i) {
    args.push_back(keys[i]);
    args.push_back(values[i]);
  }
  client_->call(kMultiSet, args, client_->timeout, "multi_set");
}

}  // namespace ember::distributed
