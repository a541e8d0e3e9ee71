// ProcessGroup: the Gloo context of one group and its communication thread.
//
// Why one thread with a FIFO: Gloo matches the messages of a collective by tag and
// peer, so every rank must run its collectives in the same order; a single thread that
// takes them in issue order guarantees that, and lets the caller (DDP's backward) keep
// computing while a bucket's all_reduce runs. A thread that waits for the item at the
// head of the queue while nothing runs executes it itself (run_inline): same order,
// two thread switches fewer per synchronous call. After the first failure the group is
// broken (peers may be in the middle of another collective): later collectives fail
// at once with the first error instead of hanging.
#include <gloo/common/error.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>

#include "distributed/process_group_impl.h"

namespace ember::distributed {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "SUM";
    case ReduceOp::Avg: return "AVG";
    case ReduceOp::Max: return "MAX";
    case ReduceOp::Min: return "MIN";
    case ReduceOp::Product: return "PRODUCT";
    case ReduceOp::Band: return "BAND";
    case ReduceOp::Bor: return "BOR";
    case ReduceOp::Bxor: break;
  }
  return "BXOR";
}

// --- Work ---

bool Work::is_completed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

bool Work::is_success() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_ && error_.empty();
}

void Work::wait() {
  if (help_) help_();
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return done_; });
  if (!error_.empty()) throw Error(error_);
}

void Work::wait(std::chrono::milliseconds timeout) {
  if (timed_help_) timed_help_(timeout);
  std::unique_lock<std::mutex> lock(mu_);
  bool done = cv_.wait_for(lock, timeout, [&] { return done_; });
  EMBER_CHECK(done, Error, name_, ": Work.wait timed out after ", timeout.count(),
              " ms (the collective is still queued or running)");
  if (!error_.empty()) throw Error(error_);
}

void Work::finish(std::string error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    error_ = std::move(error);
    done_ = true;
  }
  cv_.notify_all();
}

// --- the queue and the thread ---

WorkPtr ProcessGroup::Impl::enqueue(std::string name, std::function<void(uint32_t)> run) {
  auto work = std::make_shared<Work>(std::move(name));
  work->set_helper([self = weak_from_this(), w = work.get()] {
    if (auto s = self.lock()) s->run_inline(w);
  });
  {
    std::lock_guard<std::mutex> lock(mu);
    EMBER_CHECK(!stop, Error, work->name(), ": the process group was destroyed");
    queue.push_back(Item{work, std::move(run)});
  }
  cv.notify_one();
  return work;
}

// The communication thread: runs the items in issue order, one at a time.
void ProcessGroup::Impl::loop() {
  for (;;) {
    Item item;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return (stop && queue.empty()) || (!queue.empty() && !running); });
      if (queue.empty()) return;  // stop requested and everything done
      item = std::move(queue.front());
      queue.pop_front();
      running = true;
    }
    execute(item);
  }
}

// A thread about to wait for `work` runs it itself when it is next in line and no item
// is running: the order is the same, and a synchronous collective then costs no thread
// switch (a thread switch is a scheduler slice on a busy machine).
void ProcessGroup::Impl::run_inline(const Work* work) {
  Item item;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (running || queue.empty() || queue.front().work.get() != work) return;
    item = std::move(queue.front());
    queue.pop_front();
    running = true;
  }
  execute(item);
}

void ProcessGroup::Impl::execute(Item& item) {
  const std::string& name = item.work->name();
  std::string error;
  if (!failure.empty()) {
    error = detail::cat(name, ": not run, the process group failed earlier: ", failure);
  } else {
    try {
      item.run(next_tag++);
    } catch (const ReportedError& e) {  // the item's own diagnosis
      error = e.what();
      failure = error;
    } catch (const std::exception& e) {  // gloo::Exception, ember::Error, bad_alloc
      error = describe_failure(name, e.what());
      failure = error;
    }
  }
  item.run = nullptr;  // drop the tensors before waking the caller
  {
    std::lock_guard<std::mutex> lock(mu);
    running = false;
  }
  cv.notify_all();  // the communication thread may have items waiting for `running`
  item.work->finish(std::move(error));
}

// Naming the rank at the other end of a failed connection. Gloo's messages name a peer
// by a socket address. Each pair listens on its own port, published by its rank after
// connecting: when the peer accepted our connection, the message shows that port. When
// we accepted, it shows the peer's ephemeral port, which nobody knows; then the pairs
// are probed: a send on a pair whose connection closed throws at once.
void ProcessGroup::Impl::learn_peer_addresses(gloo::rendezvous::Store& store) {
  std::string mine;
  for (int r = 0; r < size; ++r)
    mine += (r == rank ? std::string() : context->getPair(r)->address().str()) + "\n";
  store.set(detail::cat("ember-conn-", rank), std::vector<char>(mine.begin(), mine.end()));
  for (int r = 0; r < size; ++r) {
    if (r == rank) continue;
    std::string key = detail::cat("ember-conn-", r);
    store.wait({key}, timeout);
    std::vector<char> v = store.get(key);
    std::string theirs(v.begin(), v.end());
    size_t pos = 0;  // line `rank` is r's end of the connection to this rank
    for (int k = 0; k < rank && pos != std::string::npos; ++k) pos = theirs.find('\n', pos) + 1;
    size_t end = theirs.find('\n', pos);
    if (pos != std::string::npos && end != std::string::npos)
      rank_of_address[theirs.substr(pos, end - pos)] = r;
  }
}

// A zero-byte send on a slot no collective uses. On a live pair it leaves an unmatched
// send notice behind (the group is broken by now anyway; the pair keeps only a weak
// reference to the buffer).
std::vector<int> ProcessGroup::Impl::closed_peers() const {
  constexpr uint64_t kProbeSlot = 0xE3ull << 56;
  char byte = 0;
  std::vector<int> out;
  auto buf = context->createUnboundBuffer(&byte, 1);
  for (int r = 0; r < size; ++r) {
    if (r == rank) continue;
    try {
      buf->send(r, kProbeSlot, 0, 0);
    } catch (const std::exception&) {
      out.push_back(r);
    }
  }
  return out;
}

std::string ProcessGroup::Impl::describe_failure(const std::string& name,
                                                 const std::string& what) const {
  // A silent peer is the cause (Gloo's text then is the abort's or a closed neighbour's).
  if (std::string why = liveness ? liveness->explain() : ""; !why.empty())
    return detail::cat(name, " failed on rank ", rank, " of ", size, ": ", why);
  bool timed_out =
      what.find("imed out") != std::string::npos || what.find("imeout") != std::string::npos;
  bool closed =
      what.find("losed") != std::string::npos || what.find("reset by peer") != std::string::npos;
  std::vector<int> peers;
  for (const auto& [addr, r] : rank_of_address)
    if (!addr.empty() && what.find(addr) != std::string::npos) peers.push_back(r);
  // After a timeout Gloo closes every pair itself: probing would name everyone.
  if (peers.empty() && !timed_out) {
    try {
      peers = closed_peers();
    } catch (const std::exception&) {  // naming the ranks is a courtesy, never a second failure
    }
  }
  std::string who;
  for (int r : peers) who += detail::cat(who.empty() ? "" : ", ", r);
  who = peers.empty() ? "another rank" : detail::cat(peers.size() == 1 ? "rank " : "ranks ", who);
  std::string cause;
  if (timed_out)
    cause =
        "no answer within the timeout (a rank is stuck, slow, dead, or did not call " + name + ")";
  else if (closed) cause = who + " closed the connection (exited, died, or failed itself)";
  else cause = "the connection to " + who + " failed";
  return detail::cat(name, " failed on rank ", rank, " of ", size, ": ", cause, " [timeout ",
                     timeout.count(), " ms; gloo: ", what, "]");
}

// --- ProcessGroup ---

ProcessGroup::ProcessGroup(const std::string& store_url, const std::string& prefix, int rank,
                           int size, std::chrono::milliseconds timeout, const std::string& hostname,
                           std::vector<int> global_ranks)
    : rank_(rank), size_(size), timeout_(timeout), store_url_(store_url), prefix_(prefix),
      global_ranks_(std::move(global_ranks)), impl_(std::make_shared<Impl>()) {
  if (global_ranks_.empty())
    for (int r = 0; r < size; ++r) global_ranks_.push_back(r);
  EMBER_CHECK(size >= 1, ValueError, "init_process_group: world_size must be >= 1, got ", size);
  EMBER_CHECK(rank >= 0 && rank < size, ValueError, "init_process_group: rank ", rank,
              " is out of range for world_size ", size);
  EMBER_CHECK(timeout.count() > 0, ValueError, "init_process_group: timeout must be positive");
  Impl& s = *impl_;
  s.rank = rank;
  s.size = size;
  s.timeout = timeout;
  std::unique_ptr<gloo::rendezvous::Store> store =
      make_store(store_url, "init_process_group", timeout);
  s.device = make_device(store_url, hostname);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
  context->setTimeout(timeout);
  try {
    gloo::rendezvous::PrefixStore prefixed(prefix, *store);
    context->connectFullMesh(prefixed, s.device);
    s.context = context;
    s.learn_peer_addresses(prefixed);
    // Nobody reads this group's keys after every member set this one (groups.cpp).
    prefixed.set(detail::cat("ember-ready-", rank), std::vector<char>{'1'});
  } catch (const std::exception& e) {
    throw Error(detail::cat("init_process_group: rank ", rank, " of ", size,
                            " could not connect to the other ranks through ", store_url,
                            " within the timeout of ", timeout.count(), " ms: ", e.what()));
  }
  if (auto t = peer_timeout_for(timeout); t.count() > 0 && size > 1)
    s.liveness = std::make_unique<Liveness>(s.context, t);
  s.thread = std::thread([&s] { s.loop(); });
}

ProcessGroup::~ProcessGroup() { shutdown(); }

void ProcessGroup::shutdown() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stop = true;
  }
  impl_->cv.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->liveness.reset();
}

}  // namespace ember::distributed
