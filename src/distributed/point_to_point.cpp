// send/recv between two ranks of a group, and monitored_barrier.
//
// send and recv do not go through the collective queue: like torch's Gloo backend they
// post the transfer on a Gloo unbound buffer at once (so isend/irecv pairs in any order,
// and collectives issued meanwhile, cannot deadlock behind them) and the Work waits for
// the transfer when waited (Work.wait or Work.wait(timeout)). The slot is built from the
// user's tag, so messages with different tags between the same ranks never match.
//
// monitored_barrier is a queued collective: every rank reports to rank 0, which waits up
// to the timeout, names the ranks that did not arrive, else answers everyone.
#include <gloo/types.h>

#include <algorithm>
#include <mutex>

#include "distributed/process_group_impl.h"
#include "distributed/tensor_args.h"
#include "ember/ops.h"

namespace ember::distributed {
namespace {

constexpr uint8_t kSendRecvSlotPrefix = 0x80;          // as torch's ProcessGroupGloo
constexpr uint8_t kMonitoredBarrierSlotPrefix = 0x81;  // unused by Gloo's collectives

uint64_t p2p_slot(int tag) { return gloo::Slot::build(kSendRecvSlotPrefix, uint32_t(tag)); }

// The state a posted send/recv shares with its Work: waited for once, by whoever comes first.
struct Transfer {
  std::unique_ptr<gloo::transport::UnboundBuffer> buf;
  std::shared_ptr<Target> target;  // recv: where the bytes go; send: what is read
  std::shared_ptr<int> source;     // recv: the sender's group rank
  bool is_send = false;
  std::string name;
  int peer = -1, rank = 0, size = 1;
  std::chrono::milliseconds group_timeout{0};
  std::once_flag once;
  // Keeps the transfer (its buffer and bytes) alive until it was waited for, even when the
  // Work is dropped: Gloo drops a pending transfer whose buffer is destroyed, and the peer
  // would then wait for nothing. An isend/irecv whose Work is never waited keeps its
  // bytes until the process ends (torch requires waiting on each).
  std::shared_ptr<Transfer> self;
};

// Waits for the transfer (at most `timeout`) and completes the Work.
void complete(Work& work, Transfer& tr, std::chrono::milliseconds timeout) {
  std::call_once(tr.once, [&] {
    std::string error;
    try {
      int who = -1;
      bool ok = tr.is_send ? tr.buf->waitSend(&who, timeout) : tr.buf->waitRecv(&who, timeout);
      if (!ok) {
        error = detail::cat(tr.name, ": the transfer was aborted");
      } else if (!tr.is_send) {
        tr.target->copy_back();
        if (tr.source) *tr.source = who;
      }
    } catch (const std::exception& e) {
      error = detail::cat(tr.name, " failed on rank ", tr.rank, " of ", tr.size, " (",
                          tr.is_send ? "to" : "from",
                          tr.peer < 0 ? std::string(" any rank") : detail::cat(" rank ", tr.peer),
                          ") within ", timeout.count(), " ms: the peer did not post the matching ",
                          tr.is_send ? "recv" : "send",
                          ", died, or the tags differ [gloo: ", e.what(), "]");
    }
    tr.buf.reset();
    tr.target.reset();
    auto keep = std::move(tr.self);  // released after finish (this function runs inside it)
    work.finish(std::move(error));
  });
}

std::shared_ptr<Transfer> make_transfer(ProcessGroup::Impl& s, const char* name, Target target,
                                        int peer, std::chrono::milliseconds timeout) {
  auto tr = std::make_shared<Transfer>();
  tr->target = std::make_shared<Target>(std::move(target));
  tr->name = name;
  tr->peer = peer;
  tr->rank = s.rank;
  tr->size = s.size;
  tr->group_timeout = timeout;
  size_t nbytes = size_t(tr->target->buf.numel()) * tr->target->buf.itemsize();
  tr->buf = s.context->createUnboundBuffer(tr->target->data(), nbytes);
  return tr;
}

WorkPtr post(std::shared_ptr<Transfer> tr) {
  tr->self = tr;
  auto work = std::make_shared<Work>(tr->name);
  Work* w = work.get();  // the helpers are owned by the Work: a raw pointer cannot dangle
  work->set_helper([w, tr] { complete(*w, *tr, tr->group_timeout); });
  work->set_timed_helper([w, tr](std::chrono::milliseconds t) { complete(*w, *tr, t); });
  return work;
}

}  // namespace

WorkPtr ProcessGroup::send(const Tensor& t, int dst, int tag) {
  const char* name = "send";
  check_tensor(t, name);
  check_rank(dst, size_, name, "dst");
  EMBER_CHECK(dst != rank_, ValueError, name, ": rank ", rank_, " cannot send to itself");
  EMBER_CHECK(tag >= 0, ValueError, name, ": tag must be non-negative, got ", tag);
  EMBER_CHECK(!impl_->stopped(), Error, name, ": the process group was destroyed");
  // Read in place when contiguous (isend: the caller leaves t alone until wait(), as torch
  // asks), else from a contiguous copy.
  auto tr = make_transfer(*impl_, name, Target(t), dst, timeout_);
  tr->is_send = true;
  tr->buf->send(dst, p2p_slot(tag));
  return post(tr);
}

WorkPtr ProcessGroup::recv(const Tensor& t, int src, int tag, std::shared_ptr<int> source) {
  const char* name = "recv";
  check_tensor(t, name);
  if (src != -1) {
    check_rank(src, size_, name, "src");
    EMBER_CHECK(src != rank_, ValueError, name, ": rank ", rank_, " cannot receive from itself");
  }
  EMBER_CHECK(tag >= 0, ValueError, name, ": tag must be non-negative, got ", tag);
  check_writable(t, name);
  EMBER_CHECK(!impl_->stopped(), Error, name, ": the process group was destroyed");
  auto tr = make_transfer(*impl_, name, Target(t), src, timeout_);
  t.bump_version();
  tr->source = std::move(source);
  if (src >= 0) {
    tr->buf->recv(src, p2p_slot(tag));
  } else {
    std::vector<int> others;
    for (int r = 0; r < size_; ++r)
      if (r != rank_) others.push_back(r);
    tr->buf->recv(others, p2p_slot(tag));
  }
  return post(tr);
}

WorkPtr ProcessGroup::monitored_barrier(std::chrono::milliseconds timeout, bool wait_all_ranks) {
  const char* name = "monitored_barrier";
  EMBER_CHECK(timeout.count() > 0, ValueError, name, ": timeout must be positive");
  auto ctx = impl_->context;
  return impl_->enqueue(name, [=](uint32_t tag) {
    int n = ctx->size, me = ctx->rank;
    if (n == 1) return;
    uint64_t slot = gloo::Slot::build(kMonitoredBarrierSlotPrefix, tag);
    char byte = 0;
    auto buf = ctx->createUnboundBuffer(&byte, 1);
    if (me != 0) {
      buf->send(0, slot);
      buf->waitSend(timeout);
      buf->recv(0, slot);
      try {
        buf->waitRecv(timeout);
      } catch (const std::exception& e) {
        throw ReportedError(detail::cat(name, ": rank ", me, " got no answer from rank 0 within ",
                                        timeout.count(),
                                        " ms (rank 0 found a missing rank, or is stuck itself) "
                                        "[gloo: ",
                                        e.what(), "]"));
      }
      return;
    }
    // Rank 0: one receive per other rank, each from any of them, so the arrivals are
    // counted in whatever order they come.
    std::vector<int> others;
    for (int r = 1; r < n; ++r) others.push_back(r);
    std::vector<char> arrived(size_t(n), 0);
    arrived[0] = 1;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (int k = 1; k < n; ++k) buf->recv(others, slot);
    try {
      for (int k = 1; k < n; ++k) {
        int who = -1;
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        buf->waitRecv(&who, std::max(left, std::chrono::milliseconds(1)));
        if (who >= 0 && who < n) arrived[size_t(who)] = 1;
      }
    } catch (const std::exception&) {
      std::string missing;
      int count = 0;
      for (int r = 1; r < n; ++r) {
        if (arrived[size_t(r)] || (count > 0 && !wait_all_ranks)) continue;
        missing += detail::cat(count++ ? ", " : "", r);
      }
      throw ReportedError(detail::cat(name, ": ", count == 1 ? "rank " : "ranks ", missing,
                                      " failed to pass monitored_barrier in ", timeout.count(),
                                      " ms (rank 0 of ", n, ")"));
    }
    for (int r = 1; r < n; ++r) buf->send(r, slot);
    for (int r = 1; r < n; ++r) buf->waitSend(timeout);
  });
}

}  // namespace ember::distributed
