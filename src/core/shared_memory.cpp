// Note [Shared memory]: a shared storage is an anonymous memfd (memfd_create) mapped
// MAP_SHARED. Another process gets a dup of the fd (SCM_RIGHTS through a socket, or an
// inherited fd) and maps the same pages: no copy, and a write on either side is seen by the
// other. The memfd has no name anywhere (unlike shm_open's /dev/shm files), so a process
// killed at any moment leaks nothing: the kernel frees the pages when the last fd and the
// last mapping are gone. It is also not bounded by the size of /dev/shm (64 MB in a
// default container), whose overflow is what makes torch's DataLoader die with SIGBUS.
//
// Each process keeps a registry (dev, inode) -> Storage of the memfds it maps, so a
// storage that comes back (parent -> child -> parent), or arrives twice, is the same
// Storage object: views stay views and share one version counter.
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "ember/error.h"
#include "ember/storage.h"

namespace ember {
namespace {

// What a shared storage's release(ctx) frees.
struct Shm {
  int fd = -1;
  void* map = nullptr;
  size_t map_bytes = 0;
  uint64_t key = 0;
  // The buffer share_memory_() replaced, kept while a NumPy/DLPack export may point at it.
  void* old_data = nullptr;
  size_t old_nbytes = 0;
  bool old_owned = false;
  void (*old_release)(void*) = nullptr;
  void* old_ctx = nullptr;
};

struct Entry {
  Storage* storage;
  Shm* shm;
};

struct Registry {
  std::mutex mu;
  std::unordered_map<uint64_t, Entry> map;
};

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry;  // never destroyed: storages may die during exit
    // A fork while another thread holds the lock would leave it locked forever in the
    // child (DataLoader workers are forked): hold it across fork() instead.
    pthread_atfork([] { registry().mu.lock(); }, [] { registry().mu.unlock(); },
                   [] { registry().mu.unlock(); });
    return reg;
  }();
  return *r;
}

thread_local bool t_shared_allocation = false;

std::string os_error() { return std::strerror(errno); }

// memfds all live on the kernel's internal shmem mount: (dev, inode) names one.
uint64_t key_of(const struct stat& st) { return (uint64_t(st.st_dev) << 48) ^ uint64_t(st.st_ino); }

void release_shared(void* ctx) {
  auto* s = static_cast<Shm*>(ctx);
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.map.find(s->key);
    if (it != r.map.end() && it->second.shm == s) r.map.erase(it);
  }
  munmap(s->map, s->map_bytes);
  close(s->fd);
  if (s->old_owned) deallocate(s->old_data, s->old_nbytes);
  else if (s->old_release) s->old_release(s->old_ctx);
  delete s;
}

// Maps `fd` (size >= map_bytes) and fills in its Shm record; closes fd on failure.
Shm* map_fd(int fd, size_t map_bytes, const char* op) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    std::string err = os_error();
    close(fd);
    throw Error(detail::cat(op, ": fstat of the shared-memory fd failed: ", err));
  }
  if (!S_ISREG(st.st_mode) || size_t(st.st_size) < map_bytes) {
    close(fd);
    throw ValueError(detail::cat(op, ": the shared-memory fd holds ", int64_t(st.st_size),
                                 " bytes, fewer than the ", map_bytes, " the storage needs"));
  }
  void* p = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    std::string err = os_error();
    close(fd);
    throw Error(detail::cat(op, ": mmap of ", map_bytes, " bytes of shared memory failed: ", err));
  }
  auto* s = new Shm;
  s->fd = fd;
  s->map = p;
  s->map_bytes = map_bytes;
  s->key = key_of(st);
  return s;
}

// A new memfd of `nbytes` (at least one byte: mmap refuses length 0), mapped.
Shm* new_shared(size_t nbytes, const char* op) {
  int fd = memfd_create("ember-shared", MFD_CLOEXEC);
  EMBER_CHECK(fd >= 0, Error, op, ": memfd_create failed: ", os_error());
  size_t map_bytes = std::max<size_t>(nbytes, 1);
  if (ftruncate(fd, off_t(map_bytes)) != 0) {
    std::string err = os_error();
    close(fd);
    throw Error(detail::cat(op, ": cannot size shared memory to ", map_bytes, " bytes: ", err));
  }
  return map_fd(fd, map_bytes, op);
}

void register_storage(Storage* storage, Shm* s) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.map[s->key] = Entry{storage, s};
}

}  // namespace

void Storage::set_shared_allocation(bool on) { t_shared_allocation = on; }
bool Storage::shared_allocation() { return t_shared_allocation; }

bool Storage::is_shared() const { return release_ == &release_shared; }

int Storage::shared_fd() const { return is_shared() ? static_cast<Shm*>(ctx_)->fd : -1; }

void Storage::init_shared(size_t nbytes) {
  Shm* s = new_shared(nbytes, "empty");
  data_ = s->map;
  owned_ = false;
  release_ = &release_shared;
  ctx_ = s;
  register_storage(this, s);
}

void Storage::share_memory_() {
  if (is_shared()) return;
  Shm* s = new_shared(nbytes_, "share_memory_");
  if (nbytes_ > 0) std::memcpy(s->map, data_, nbytes_);
  if (exported_) {  // a NumPy array may still point at the old bytes: keep them
    s->old_data = data_;
    s->old_nbytes = nbytes_;
    s->old_owned = owned_;
    s->old_release = release_;
    s->old_ctx = ctx_;
  } else if (owned_) {
    deallocate(data_, nbytes_);
  } else if (release_) {
    release_(ctx_);  // borrowed memory (NumPy, a file map): its owner gets it back
  }
  data_ = s->map;
  owned_ = false;
  release_ = &release_shared;
  ctx_ = s;
  register_storage(this, s);
}

IntrusivePtr<Storage> Storage::from_shared_fd(int fd, size_t nbytes) {
  EMBER_CHECK(fd >= 0, ValueError, "from_shared_fd: invalid file descriptor ", fd);
  struct stat st;
  if (fstat(fd, &st) == 0) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.map.find(key_of(st));
    if (it != r.map.end() && it->second.storage->nbytes() == nbytes &&
        it->second.storage->try_incref()) {
      IntrusivePtr<Storage> same(it->second.storage);  // (takes its own reference)
      it->second.storage->decref();                    // (drops try_incref's; never the last)
      close(fd);
      return same;
    }
  }
  Shm* s = map_fd(fd, std::max<size_t>(nbytes, 1), "from_shared_fd");
  auto storage = make_intrusive<Storage>(s->map, nbytes, &release_shared, s);
  register_storage(storage.get(), s);
  return storage;
}

}  // namespace ember
