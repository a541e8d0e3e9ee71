// torch.distributed.new_group: a subgroup of the default group's ranks with its own Gloo
// context (own connections, own store prefix, own communication thread), so its
// collectives never interleave with the default group's tags.
//
// Every rank of the default group calls new_group in the same order (as torch requires):
// the count of calls so far names the subgroup's store prefix, the same on every rank
// without any communication. Non-members only count.
#include <algorithm>
#include <atomic>
#include <mutex>

#include "distributed/process_group_impl.h"

namespace ember::distributed {
namespace {

std::mutex g_mu;
// The groups made by new_group (guarded by g_mu). Held, as torch's group map does, until
// destroy_process_group(group) or destroy_process_group(): a group dropped by Python
// still gets its store keys removed then.
std::vector<std::shared_ptr<ProcessGroup>> g_groups;
// new_group calls under the current default group (guarded by g_mu).
const ProcessGroup* g_counted_for = nullptr;
int g_calls = 0;

}  // namespace

// The group's local rank 0 removes the keys once every member set its "ready" key (then
// nobody reads them any more); a member still connecting, or dead, leaves them in place.
void remove_keys_when_all_ready(const ProcessGroup& g) {
  if (g.rank() != 0) return;
  try {
    auto store = make_store(g.store_url(), "destroy_process_group", std::chrono::seconds(1));
    std::vector<std::string> ready;
    for (int r = 0; r < g.size(); ++r) ready.push_back(detail::cat(g.prefix(), "/ember-ready-", r));
    store->wait(ready, std::chrono::milliseconds(1));  // throws when one is missing
    remove_store_keys(g.store_url(), g.prefix(), g.size());
  } catch (const std::exception&) {  // cleaning the store is a courtesy, never a failure
  }
}

std::shared_ptr<ProcessGroup> new_group(const std::vector<int>& ranks,
                                        std::chrono::milliseconds timeout) {
  auto world = default_group("new_group");
  int n = world->size();
  std::vector<int> members = ranks;
  if (members.empty())
    for (int r = 0; r < n; ++r) members.push_back(r);
  std::sort(members.begin(), members.end());
  for (size_t i = 0; i < members.size(); ++i) {
    EMBER_CHECK(members[i] >= 0 && members[i] < n, ValueError, "new_group: rank ", members[i],
                " is out of range for a world of size ", n);
    EMBER_CHECK(i == 0 || members[i] != members[i - 1], ValueError, "new_group: rank ", members[i],
                " appears twice in ranks");
  }
  int call;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_counted_for != world.get()) {
      g_counted_for = world.get();
      g_calls = 0;
    }
    call = g_calls++;
  }
  auto it = std::find(members.begin(), members.end(), world->rank());
  if (it == members.end()) return nullptr;
  int rank = int(it - members.begin());
  if (timeout.count() <= 0) timeout = world->timeout();
  auto g = std::make_shared<ProcessGroup>(world->store_url(),
                                          detail::cat(world->prefix(), "-group", call), rank,
                                          int(members.size()), timeout, "", members);
  std::lock_guard<std::mutex> lock(g_mu);
  g_groups.push_back(g);
  return g;
}

void destroy_group(const std::shared_ptr<ProcessGroup>& group) {
  if (!group) return;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    std::erase(g_groups, group);
  }
  group->shutdown();
  remove_keys_when_all_ready(*group);
}

void forget_groups_in_child() {
  // The child has none of the groups' threads: leak the groups (never join there).
  new std::vector<std::shared_ptr<ProcessGroup>>(std::move(g_groups));  // leaked on purpose
  g_groups.clear();
  g_counted_for = nullptr;
}

void destroy_all_groups() {
  std::vector<std::shared_ptr<ProcessGroup>> live;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    live.swap(g_groups);
    g_counted_for = nullptr;
  }
  for (auto& g : live) {
    g->shutdown();
    remove_keys_when_all_ready(*g);
  }
}

}  // namespace ember::distributed
