// ember::distributed::TCPStore: torch.distributed.TCPStore, a key-value store one process
// serves over TCP and every process of a job reaches by host and port. It is what env://
// rendezvous through when no $EMBER_RENDEZVOUS names another store: rank 0 serves it on
// $MASTER_ADDR:$MASTER_PORT, as in PyTorch, so a program that sets those two variables and
// starts its processes by hand (or by mp.spawn) needs no server of its own.
//
//   namespace dist = ember::distributed;
//   dist::TCPStore master("127.0.0.1", 0, /*is_master=*/true, std::chrono::seconds(30));
//   dist::TCPStore client("127.0.0.1", master.port(), false, std::chrono::seconds(30));
//   master.set("key", "value");
//   client.get("key");          // "value"; waits up to the timeout for a key not set yet
//   client.add("count", 2);     // 2, stored as the decimal string "2" (as torch)
//
// The server is one thread polling its sockets; a get or wait on a missing key is answered
// when another client sets it. A client that gives up (its timeout) closes its connection,
// so a late answer never reaches the next request; the next call connects again.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ember::distributed {

class TCPStore {
 public:
  // port 0 with is_master: any free port (port() tells which). A client retries connecting
  // until `timeout` (the master may start later). Throws ember::Error when the master cannot
  // listen on the port (in use) or a client cannot connect within the timeout.
  TCPStore(const std::string& host, int port, bool is_master, std::chrono::milliseconds timeout);
  ~TCPStore();
  TCPStore(const TCPStore&) = delete;
  TCPStore& operator=(const TCPStore&) = delete;

  const std::string& host() const;
  int port() const;
  bool is_master() const;
  std::chrono::milliseconds timeout() const;
  void set_timeout(std::chrono::milliseconds timeout);

  void set(const std::string& key, const std::string& value);
  std::string get(const std::string& key);  // waits up to the timeout for the key
  int64_t add(const std::string& key, int64_t amount);
  // Sets key to desired when it holds expected (or is unset and expected is empty);
  // returns what key holds afterwards (expected when unset and not set).
  std::string compare_set(const std::string& key, const std::string& expected,
                          const std::string& desired);
  void append(const std::string& key, const std::string& value);
  bool check(const std::vector<std::string>& keys);  // all set, no waiting
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout);
  bool delete_key(const std::string& key);
  int64_t num_keys();
  std::vector<std::string> multi_get(const std::vector<std::string>& keys);
  void multi_set(const std::vector<std::string>& keys, const std::vector<std::string>& values);

 private:
  struct Server;
  struct Client;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Client> client_;
};

}  // namespace ember::distributed
