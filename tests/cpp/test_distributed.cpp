// ember::distributed from C++: two processes (fork) meet through a file store and
// all-reduce / broadcast; argument checks need no peer. tests/python/test_distributed.py
// covers every collective, dtype and failure.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "ember/distributed.h"
#include "ember/ember.h"
#include "ember/tcp_store.h"

using namespace ember;
namespace dist = ember::distributed;

namespace {

// Small tensors filled through pointers: the forked child must not start an OpenMP
// team (libgomp does not survive fork once the parent used it).
Tensor filled(int64_t n, float v) {
  Tensor t = Tensor::empty({n}, DType::Float32);
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = v + float(i);
  return t;
}

// One rank's work; returns 0 when every check passed.
int run_rank(const std::string& dir, int rank) {
  dist::ProcessGroup pg("file://" + dir, "cpp-test", rank, 2, std::chrono::seconds(20));
  Tensor x = filled(1000, float(rank));  // x[i] = rank + i
  pg.all_reduce(x)->wait();
  for (int64_t i = 0; i < 1000; ++i)
    if (x.data<float>()[i] != 1.0f + 2.0f * float(i)) return 1;
  Tensor y = filled(10, float(10 * rank));
  auto w = pg.broadcast(y, 1);
  pg.barrier()->wait();
  w->wait();
  if (!w->is_completed() || y.data<float>()[3] != 13.0f) return 2;
  return 0;
}

// The rooted collectives, all_to_all_single, send/recv and a subgroup, on the default
// group of 2 ranks; returns 0 when every check passed.
int run_rank_more(const std::string& dir, int rank) {
  dist::InitOptions o;
  o.init_method = "file://" + dir;
  o.rank = rank;
  o.world_size = 2;
  o.timeout = std::chrono::seconds(20);
  dist::init_process_group(o);
  auto pg = dist::default_group("test");
  Tensor x = filled(4, float(rank));  // x[i] = rank + i
  pg->reduce(x, 1)->wait();
  if (x.data<float>()[2] != (rank == 1 ? 1.0f + 4.0f : 2.0f)) return 1;  // dst gets the sum
  Tensor g0 = filled(4, 0), g1 = filled(4, 0);
  pg->gather(filled(4, float(10 * rank)),
             rank == 0 ? std::vector<Tensor>{g0, g1} : std::vector<Tensor>{}, 0)
      ->wait();
  if (rank == 0 && (g0.data<float>()[1] != 1.0f || g1.data<float>()[1] != 11.0f)) return 2;
  Tensor s = filled(4, 0);
  pg->scatter(s,
              rank == 1 ? std::vector<Tensor>{filled(4, 5), filled(4, 7)} : std::vector<Tensor>{},
              1)
      ->wait();
  if (s.data<float>()[0] != (rank == 0 ? 5.0f : 7.0f)) return 3;
  Tensor a = filled(4, float(100 * rank)), b = filled(4, 0);  // rows 0-1 to rank 0, 2-3 to 1
  pg->all_to_all_single(b, a, {}, {})->wait();
  if (b.data<float>()[1] != float(2 * rank + 1) || b.data<float>()[2] != float(100 + 2 * rank))
    return 4;
  Tensor r = filled(3, 0);
  auto recv = pg->recv(r, 1 - rank, 7);
  auto send = pg->send(filled(3, float(rank + 40)), 1 - rank, 7);
  send->wait();
  recv->wait();
  if (r.data<float>()[0] != float(1 - rank + 40)) return 5;
  auto sub = dist::new_group({1});
  if ((rank == 1) != bool(sub)) return 6;
  if (sub && (sub->size() != 1 || sub->global_ranks() != std::vector<int>{1})) return 7;
  pg->monitored_barrier(std::chrono::seconds(10), true)->wait();
  dist::destroy_process_group();
  return 0;
}

// Waits for a child at most `seconds`, then kills it: a bug fails the test, never hangs it.
int wait_child(pid_t pid, int seconds) {
  for (int i = 0; i < seconds * 100; ++i) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return 101;
}

// A fresh rendezvous folder per test, removed afterwards. A name built from the pid
// is not enough: ctest runs each test in its own process and a CI container reuses
// pids across runs, so a folder left by an earlier run made Gloo's store refuse to
// start ("File already exists").
struct StoreDir {
  std::string path;
  explicit StoreDir(const char* tag) {
    std::string tmpl = ::testing::TempDir() + "ember_test_distributed_" + tag + "_XXXXXX";
    if (::mkdtemp(tmpl.data())) path = tmpl;
  }
  ~StoreDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

TEST(Distributed, TwoProcessesAllReduceAndBroadcast) {
  StoreDir store("pair");
  ASSERT_FALSE(store.path.empty());
  const std::string& dir = store.path;
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = 3;
    try {
      code = run_rank(dir, 1);
    } catch (...) {
    }
    _exit(code);
  }
  int mine = -1;
  try {
    mine = run_rank(dir, 0);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
  EXPECT_EQ(mine, 0);
  EXPECT_EQ(wait_child(pid, 60), 0);
}

TEST(Distributed, ChecksBeforeAnyPeer) {
  EXPECT_FALSE(dist::is_initialized());
  EXPECT_THROW(dist::all_reduce(ones({3})), ValueError);
  EXPECT_THROW(dist::get_rank(), ValueError);
  dist::InitOptions o;
  StoreDir store("one");
  ASSERT_FALSE(store.path.empty());
  o.init_method = "file://" + store.path;
  o.rank = 0;
  o.world_size = 1;
  o.timeout = std::chrono::seconds(10);
  dist::init_process_group(o);
  EXPECT_EQ(dist::get_world_size(), 1);
  EXPECT_THROW(dist::all_reduce(ones({3}, DType::Int16)), TypeError);
  EXPECT_THROW(dist::all_reduce(ones({3}), dist::ReduceOp::Bxor), TypeError);  // floats: no
  Tensor mask = ones({3}, DType::Bool);
  dist::all_reduce(mask, dist::ReduceOp::Band);  // bool and uint8 reduce too
  EXPECT_EQ(all(mask).item().to_int(), 1);
  EXPECT_THROW(dist::broadcast(ones({3}), 1), Error);
  EXPECT_THROW(dist::all_reduce(ones({3}, DType::Int64), dist::ReduceOp::Avg), TypeError);
  Tensor t = ones({2, 3});
  Tensor v = transpose(t, 0, 1);  // non-contiguous: copied in and out
  dist::all_reduce(v, dist::ReduceOp::Max);
  EXPECT_EQ(sum(t).item().to_double(), 6.0);
  dist::destroy_process_group();
  EXPECT_FALSE(dist::is_initialized());
}

// hash://NAME: a group of one process through a store in its memory (torch's HashStore), twice
// with one name (destroy removes the first group's keys), the second with a store prefix.
TEST(Distributed, InProcessHashStoreAndPrefix) {
  for (const char* prefix : {"", "job7"}) {
    dist::InitOptions o;
    o.init_method = "hash://cpp-test";
    o.store_prefix = prefix;
    o.rank = 0;
    o.world_size = 1;
    o.timeout = std::chrono::seconds(10);
    dist::init_process_group(o);
    Tensor t = ones({4});
    dist::all_reduce(t);
    EXPECT_EQ(sum(t).item().to_double(), 4.0);
    dist::destroy_process_group();
  }
  dist::InitOptions bad;
  bad.init_method = "nope://x";
  bad.rank = 0;
  bad.world_size = 1;
  EXPECT_THROW(dist::init_process_group(bad), ValueError);
  EXPECT_FALSE(dist::is_initialized());
}

TEST(Distributed, TwoProcessesRootedPointToPointAndGroups) {
  StoreDir store("more");
  ASSERT_FALSE(store.path.empty());
  const std::string& dir = store.path;
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = 30;
    try {
      code = run_rank_more(dir, 1);
    } catch (...) {
    }
    _exit(code);
  }
  int mine = -1;
  try {
    mine = run_rank_more(dir, 0);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
  EXPECT_EQ(mine, 0);
  EXPECT_EQ(wait_child(pid, 60), 0);
}

// TCPStore: a master and a client in one process (the server is a thread of the master).
TEST(TCPStore, SetGetAddCompareSetAcrossClients) {
  dist::TCPStore master("127.0.0.1", 0, /*is_master=*/true, std::chrono::seconds(10));
  ASSERT_GT(master.port(), 0);
  dist::TCPStore client("127.0.0.1", master.port(), false, std::chrono::seconds(10));
  master.set("k", std::string("a\0b", 3));  // values are bytes, NUL included
  EXPECT_EQ(client.get("k"), std::string("a\0b", 3));
  EXPECT_EQ(client.add("n", 5), 5);
  EXPECT_EQ(master.add("n", -2), 3);
  EXPECT_EQ(client.get("n"), "3");  // stored as its decimal string, as torch
  EXPECT_EQ(client.compare_set("k", "wrong", "x"), std::string("a\0b", 3));
  EXPECT_EQ(client.compare_set("k", std::string("a\0b", 3), "x"), "x");
  EXPECT_EQ(client.compare_set("unset", "e", "d"), "e");
  EXPECT_EQ(client.compare_set("unset", "", "d"), "d");
  client.append("k", "yz");
  EXPECT_EQ(master.get("k"), "xyz");
  EXPECT_TRUE(master.check({"k", "n"}));
  EXPECT_FALSE(master.check({"k", "missing"}));
  EXPECT_EQ(master.num_keys(), 3);
  EXPECT_TRUE(client.delete_key("unset"));
  EXPECT_FALSE(client.delete_key("unset"));
  client.multi_set({"a", "b"}, {"1", "2"});
  EXPECT_EQ(master.multi_get({"b", "a"}), (std::vector<std::string>{"2", "1"}));
  EXPECT_THROW(client.multi_set({"a"}, {}), ValueError);
}

TEST(TCPStore, GetWaitsForAnotherClientAndTimesOut) {
  dist::TCPStore master("127.0.0.1", 0, true, std::chrono::seconds(10));
  dist::TCPStore client("127.0.0.1", master.port(), false, std::chrono::seconds(10));
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    master.set("late", "v");
  });
  EXPECT_EQ(client.get("late"), "v");
  later.join();
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(client.wait({"never"}, std::chrono::milliseconds(100)), Error);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  // The timed-out connection is replaced: the next call works.
  EXPECT_EQ(client.get("late"), "v");
  // A second master on the same port cannot listen; a client of a closed port gives up.
  EXPECT_THROW(dist::TCPStore("127.0.0.1", master.port(), true, std::chrono::seconds(1)), Error);
  EXPECT_THROW(dist::TCPStore("127.0.0.1", 0, false, std::chrono::seconds(1)), ValueError);
}
