// Rendezvous: the Gloo store named by a URL, and the TCP device each rank listens on.
#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>

#include <gloo/rendezvous/file_store.h>
// Debian installs hiredis.h under hiredis/ (libhiredis-dev).
#define HIREDIS_NESTED_INCLUDE
#include <gloo/rendezvous/redis_store.h>
#include <gloo/transport/tcp/device.h>

#include "distributed/process_group_impl.h"
#include "ember/tcp_store.h"

namespace ember::distributed {
namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// The folder of a file:// store. Gloo's FileStore keeps one file per key in a folder;
// torch's file:// names a file, which may already exist (an empty temporary file), so
// an existing regular file gets a folder beside it.
std::string file_store_dir(const std::string& url, const char* op) {
  std::string path = url.substr(7);
  EMBER_CHECK(!path.empty(), ValueError, op,
              ": file:// needs a path, as in file:///tmp/rendezvous");
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(path, ec) && !fs::is_directory(path, ec)) path += ".ember-store";
  fs::create_directories(path, ec);  // several ranks race here: only the result matters
  EMBER_CHECK(fs::is_directory(path, ec), Error, op, ": cannot create the store folder ", path,
              (ec ? ": " + ec.message() : std::string()));
  return path;
}

// Gloo's Store interface on a TCPStore client (tcp://host:port, served by rank 0 or by the
// program's own TCPStore).
class GlooTcpStore : public gloo::rendezvous::Store {
 public:
  GlooTcpStore(const std::string& host, int port, std::chrono::milliseconds timeout)
      : store_(host, port, /*is_master=*/false, timeout) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_.set(key, std::string(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    std::string v = store_.get(key);
    return {v.begin(), v.end()};
  }
  void wait(const std::vector<std::string>& keys) override { store_.wait(keys, store_.timeout()); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& t) override {
    store_.wait(keys, t);
  }
  void remove(const std::vector<std::string>& keys) {
    for (const auto& k : keys) store_.delete_key(k);
  }

 private:
  TCPStore store_;
};

// hash://NAME: keys in this process's memory, shared by every group that names NAME (torch's
// HashStore, whose Python object names its own; a group of one process, or of threads).
class HashStore : public gloo::rendezvous::Store {
 public:
  struct Data {
    std::mutex mu;
    std::condition_variable changed;
    std::map<std::string, std::vector<char>> kv;
  };
  explicit HashStore(std::shared_ptr<Data> d, std::chrono::milliseconds timeout)
      : d_(std::move(d)), timeout_(timeout) {}
  // The keys of NAME, for the life of the process (destroy_process_group removes a group's).
  static std::shared_ptr<Data> named(const std::string& name) {
    static std::mutex mu;
    static auto* all = new std::map<std::string, std::shared_ptr<Data>>;  // never destroyed
    std::lock_guard<std::mutex> lock(mu);
    std::shared_ptr<Data>& d = (*all)[name];
    if (!d) d = std::make_shared<Data>();
    return d;
  }
  void set(const std::string& key, const std::vector<char>& data) override {
    {
      std::lock_guard<std::mutex> lock(d_->mu);
      d_->kv[key] = data;
    }
    d_->changed.notify_all();
  }
  std::vector<char> get(const std::string& key) override {
    wait({key});
    std::lock_guard<std::mutex> lock(d_->mu);
    return d_->kv.at(key);
  }
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& t) override {
    std::unique_lock<std::mutex> lock(d_->mu);
    auto all_set = [&] {
      for (const auto& k : keys)
        if (!d_->kv.count(k)) return false;
      return true;
    };
    EMBER_CHECK(d_->changed.wait_for(lock, t, all_set), Error, "HashStore: wait timeout after ",
                t.count(), " ms for ",
                keys.size() == 1 ? keys[0] : detail::cat(keys.size(), " keys"));
  }
  void remove(const std::vector<std::string>& keys) {
    std::lock_guard<std::mutex> lock(d_->mu);
    for (const auto& k : keys) d_->kv.erase(k);
  }

 private:
  std::shared_ptr<Data> d_;
  std::chrono::milliseconds timeout_;
};

// The local address whose route leads to `host`: connecting a UDP socket sends nothing
// but makes the kernel pick the interface, which getsockname then reports.
std::string local_address_toward(const std::string& host) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  if (getaddrinfo(host.c_str(), "9", &hints, &res) != 0 || !res) return "";
  std::string out;
  int fd = socket(res->ai_family, SOCK_DGRAM, 0);
  if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    char buf[INET6_ADDRSTRLEN] = {0};
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0) {
      const void* a =
          ss.ss_family == AF_INET6
              ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&ss)->sin6_addr)
              : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&ss)->sin_addr);
      if (inet_ntop(ss.ss_family, a, buf, sizeof(buf))) out = buf;
    }
  }
  if (fd >= 0) close(fd);
  freeaddrinfo(res);
  return out;
}

}  // namespace

// "redis://host:port" or "tcp://host:port" -> host, port. redis:// may leave the port out
// (6379, redis's); tcp:// names it (ValueError "tcp:// needs host:port" otherwise).
std::pair<std::string, int> parse_host_port(const std::string& url, const char* op) {
  std::string rest = url.substr(url.find("://") + 3);
  size_t slash = rest.find('/');
  if (slash != std::string::npos) rest = rest.substr(0, slash);
  size_t colon = rest.rfind(':');
  EMBER_CHECK(colon != std::string::npos || !starts_with(url, "tcp://"), ValueError, op,
              ": tcp:// needs host:port, got '", url, "'");
  std::string host = colon == std::string::npos ? rest : rest.substr(0, colon);
  int port = 6379;
  if (colon != std::string::npos) {
    char* end = nullptr;
    long p = std::strtol(rest.c_str() + colon + 1, &end, 10);
    EMBER_CHECK(*end == '\0' && p > 0 && p < 65536, ValueError, op, ": bad port in ", url);
    port = int(p);
  }
  EMBER_CHECK(!host.empty(), ValueError, op, ": no host in ", url);
  return {host, port};
}

std::unique_ptr<gloo::rendezvous::Store> make_store(const std::string& url, const char* op,
                                                    std::chrono::milliseconds timeout) {
  if (starts_with(url, "file://"))
    return std::make_unique<gloo::rendezvous::FileStore>(file_store_dir(url, op));
  if (starts_with(url, "redis://")) {
    auto [host, port] = parse_host_port(url, op);
    try {
      return std::make_unique<gloo::rendezvous::RedisStore>(host, port);
    } catch (const std::exception& e) {
      throw Error(
          detail::cat(op, ": cannot reach the redis server at ", host, ":", port, ": ", e.what()));
    }
  }
  if (starts_with(url, "tcp://")) {
    auto [host, port] = parse_host_port(url, op);
    try {
      return std::make_unique<GlooTcpStore>(host, port, timeout);
    } catch (const std::exception& e) {
      throw Error(detail::cat(op, ": ", e.what()));
    }
  }
  if (starts_with(url, "hash://"))
    return std::make_unique<HashStore>(HashStore::named(url.substr(7)), timeout);
  throw ValueError(detail::cat(op, ": unsupported rendezvous URL '", url,
                               "' (expected file:///path, redis://host:port, tcp://host:port, "
                               "hash://name or env://)"));
}

// The keys a group of `size` ranks writes under its prefix: Gloo's connectFullMesh
// ("rank_<r>" and "<r>") and ProcessGroup's ("ember-conn-<r>", "ember-ready-<r>").
static std::vector<std::string> group_keys(const std::string& prefix, int size) {
  std::vector<std::string> keys;
  for (int r = 0; r < size; ++r)
    for (const char* k : {"rank_", "", "ember-conn-", "ember-ready-"})
      keys.push_back(detail::cat(prefix, "/", k, r));
  return keys;
}

// Redis: one DEL over a plain connection (Gloo's RedisStore has no delete).
static void redis_delete(const std::string& url, const std::vector<std::string>& keys) {
  auto [host, port] = parse_host_port(url, "destroy_process_group");
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0 || !res) return;
  int fd = socket(res->ai_family, SOCK_STREAM, 0);
  if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
    std::string cmd = detail::cat("*", keys.size() + 1, "\r\n$3\r\nDEL\r\n");
    for (const auto& k : keys) cmd += detail::cat("$", k.size(), "\r\n", k, "\r\n");
    size_t sent = 0;
    while (sent < cmd.size()) {
      ssize_t w = ::send(fd, cmd.data() + sent, cmd.size() - sent, MSG_NOSIGNAL);
      if (w <= 0) break;
      sent += size_t(w);
    }
    char reply[64];
    if (sent == cmd.size()) (void)::recv(fd, reply, sizeof(reply), 0);  // ":<count>\r\n"
  }
  if (fd >= 0) close(fd);
  freeaddrinfo(res);
}

void remove_store_keys(const std::string& url, const std::string& prefix, int size) {
  std::vector<std::string> keys = group_keys(prefix, size);
  if (starts_with(url, "file://")) {
    // Gloo's FileStore names a key's file by std::hash of the key.
    std::string dir = file_store_dir(url, "destroy_process_group");
    std::error_code ec;
    for (const auto& k : keys)
      std::filesystem::remove(dir + "/" + std::to_string(std::hash<std::string>{}(k)), ec);
  } else if (starts_with(url, "redis://")) {
    redis_delete(url, keys);
  } else if (starts_with(url, "tcp://")) {  // the master may be gone: give up within a second
    auto [host, port] = parse_host_port(url, "destroy_process_group");
    GlooTcpStore(host, port, std::chrono::seconds(1)).remove(keys);
  } else if (starts_with(url, "hash://")) {
    HashStore(HashStore::named(url.substr(7)), std::chrono::seconds(1)).remove(keys);
  }
}

// Which address to listen on: an explicit hostname; else $GLOO_SOCKET_IFNAME (an
// interface, as for PyTorch); else the address that routes to $MASTER_ADDR or to the
// redis server (the interface the other machines reach us on); else loopback.
std::shared_ptr<gloo::transport::Device> make_device(const std::string& store_url,
                                                     const std::string& hostname) {
  gloo::transport::tcp::attr attr;
  const char* ifname = std::getenv("GLOO_SOCKET_IFNAME");
  if (!hostname.empty()) {
    attr.hostname = hostname;
  } else if (ifname && *ifname) {
    attr.iface = ifname;
  } else {
    std::string target;
    if (const char* m = std::getenv("MASTER_ADDR"); m && *m) target = m;
    else if (starts_with(store_url, "redis://") || starts_with(store_url, "tcp://"))
      target = parse_host_port(store_url, "init_process_group").first;
    std::string local = target.empty() ? "" : local_address_toward(target);
    attr.hostname = local.empty() ? "127.0.0.1" : local;
  }
  try {
    return gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    throw Error(detail::cat("init_process_group: cannot listen on ",
                            attr.iface.empty() ? attr.hostname : "interface " + attr.iface, ": ",
                            e.what()));
  }
}

}  // namespace ember::distributed
