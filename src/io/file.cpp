// Files on disk: atomic saves (of safetensors and PyTorch-format files), and safetensors loads
// that read or memory-map.
//
// Note [Atomic save]: a crash, a kill or a full disk in the middle of writing must not
// destroy the file a user already had. So the bytes go to a temporary file in the same
// folder (same file system, so rename is atomic), which is fsynced before it is renamed
// over the target, and the folder is fsynced after, so the rename itself is durable.
// Any failure before the rename removes the temporary file and leaves the target alone.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "io/file.h"
#include "io/safetensors.h"

namespace ember {
namespace {

[[noreturn]] void throw_os(const char* op, const char* what, const std::string& path, int err) {
  throw OSError(detail::cat(op, ": cannot ", what, " (", std::strerror(err), ")"), err, path);
}

std::string dir_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

void write_all(int fd, const void* data, size_t n, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t k = ::write(fd, p, std::min<size_t>(n, size_t(1) << 30));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) throw_os("save", "write", path, k < 0 ? errno : ENOSPC);
    p += k;
    n -= size_t(k);
  }
}

// The mode a new file gets from open(): 0666 minus the umask, read without changing it.
mode_t default_mode() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) != 0) continue;
    char* end = nullptr;
    unsigned long mask = std::strtoul(line.c_str() + 6, &end, 8);
    if (end != line.c_str() + 6) return 0666 & ~mode_t(mask & 0777);
  }
  return 0644;
}

// A temporary file next to the target; removed unless commit() renamed it into place.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path) : path_(path) {
    size_t slash = path.find_last_of('/');
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    tmp_ = (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + "." + base +
           ".tmp.XXXXXX";
    fd_ = mkostemp(tmp_.data(), O_CLOEXEC);
    if (fd_ < 0) throw_os("save", "create a temporary file beside", path, errno);
  }
  ~AtomicFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(tmp_.c_str());
  }

  void write(const void* data, size_t n) { write_all(fd_, data, n, path_); }

  void commit() {
    // An existing target keeps its permissions; a new one gets what open() would give it.
    struct stat st;
    mode_t mode = ::stat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? (st.st_mode & 07777)
                                                                         : default_mode();
    if (::fchmod(fd_, mode) != 0) throw_os("save", "set the permissions of", path_, errno);
    if (::fsync(fd_) != 0) throw_os("save", "fsync", path_, errno);
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw_os("save", "close", path_, errno);
    if (::rename(tmp_.c_str(), path_.c_str()) != 0) throw_os("save", "replace", path_, errno);
    committed_ = true;
    // Make the rename durable. (Some file systems cannot fsync a folder; the data is safe.)
    int dir = ::open(dir_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }

 private:
  std::string path_, tmp_;
  int fd_ = -1;
  bool committed_ = false;
};

// Where save writes: through a symlink to the file it names, so the link survives the
// rename. (A dangling link is replaced by the file.)
std::string resolve_target(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    if (char* real = ::realpath(path.c_str(), nullptr)) {
      std::string out(real);
      std::free(real);
      return out;
    }
  }
  return path;
}

// True for an existing device, FIFO or socket (/dev/null, /dev/stdout): it cannot be
// replaced by a rename (and must not be: that would swap /dev/null for a plain file),
// so save streams into it instead.
bool is_special_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// Reads exactly n bytes at `offset`; a short read means the file shrank under us.
void read_at(int fd, void* dst, uint64_t n, uint64_t offset, const std::string& path,
             const std::string& context) {
  char* p = static_cast<char*>(dst);
  while (n > 0) {
    ssize_t k = ::pread(fd, p, std::min<uint64_t>(n, uint64_t(1) << 30), off_t(offset));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) throw_os("load", "read", path, errno);
    if (k == 0)
      throw ValueError(detail::cat(context, "the file ended early (it is being changed?)"));
    p += k;
    n -= uint64_t(k);
    offset += uint64_t(k);
  }
}

// One read-only-file, copy-on-write mapping shared by the tensors that view it; unmapped
// when the last of them dies.
struct Mapping {
  void* base;
  size_t size;
  std::atomic<int64_t> refs{1};
  static void release(void* ctx) {
    auto* m = static_cast<Mapping*>(ctx);
    if (m->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      ::munmap(m->base, m->size);
      delete m;
    }
  }
};

}  // namespace

void io::write_file(const std::string& path, const char* op,
                    const std::function<void(const Sink&)>& write) {
  EMBER_CHECK(path.find('\0') == std::string::npos, ValueError, op, ": embedded null byte in path");
  std::string target = resolve_target(path);
  if (is_special_file(target)) {
    Fd fd(::open(target.c_str(), O_WRONLY | O_CLOEXEC));
    if (fd.get() < 0) throw_os(op, "open", path, errno);
    write([&](const void* p, size_t n) { write_all(fd.get(), p, n, path); });
    return;
  }
  AtomicFile file(target);
  write([&](const void* p, size_t n) { file.write(p, n); });
  file.commit();
}

std::string io::read_file(const std::string& path, const char* op) {
  EMBER_CHECK(path.find('\0') == std::string::npos, ValueError, op, ": embedded null byte in path");
  const std::string context = detail::cat(op, ": '", path, "': ");
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) throw_os(op, "open", path, errno);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) throw_os(op, "stat", path, errno);
  EMBER_CHECK(S_ISREG(st.st_mode), ValueError, context, "not a regular file");
  std::string bytes(size_t(st.st_size), '\0');
  read_at(fd.get(), bytes.data(), bytes.size(), 0, path, context);
  return bytes;
}

void save_file(const std::map<std::string, Tensor>& tensors, const std::string& path,
               const std::map<std::string, std::string>& metadata) {
  EMBER_CHECK(path.find('\0') == std::string::npos, ValueError, "save: embedded null byte in path");
  io::Plan plan = io::plan_file(tensors, metadata, "save");  // all checks before any disk work
  io::write_file(path, "save", [&](const io::Sink& put) {
    put(plan.head.data(), plan.head.size());
    io::write_data(plan, put);
  });
}

SafetensorsFile load_file(const std::string& path, bool mmap) {
  EMBER_CHECK(path.find('\0') == std::string::npos, ValueError, "load: embedded null byte in path");
  const std::string context = detail::cat("load: '", path, "': ");
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is then rejected below.
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) throw_os("load", "open", path, errno);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) throw_os("load", "stat", path, errno);
  EMBER_CHECK(S_ISREG(st.st_mode), ValueError, context, "not a regular file");
  auto size = uint64_t(st.st_size);
  unsigned char prefix[8] = {};
  if (size >= 8) read_at(fd.get(), prefix, 8, 0, path, context);
  uint64_t n = io::check_header_length(prefix, size, context);
  std::string text(n, '\0');
  read_at(fd.get(), text.data(), n, 8, path, context);
  io::Header h = io::parse_header(text, context);
  io::check_data_size(h, size - 8 - n, context);
  const uint64_t data_start = 8 + n;

  SafetensorsFile out;
  out.metadata = std::move(h.metadata);
  out.tensors.reserve(h.entries.size());
  if (!mmap) {
    for (io::Entry& e : h.entries) {
      Tensor t = Tensor::empty(e.shape, e.dtype);
      read_at(fd.get(), t.data_ptr(), e.end - e.begin, data_start + e.begin, path, context);
      io::check_bool_data(e, reinterpret_cast<const unsigned char*>(t.data_ptr()), context);
      out.tensors.emplace_back(std::move(e.name), std::move(t));
    }
    return out;
  }
  // MAP_PRIVATE + PROT_WRITE: the tensors are writable like any others, and a write
  // copies the page for this process instead of reaching the file.
  void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd.get(), 0);
  if (base == MAP_FAILED) throw_os("load", "memory-map", path, errno);
  auto* map = new Mapping{base, size};
  struct Drop {  // our own reference; the tensors hold theirs
    Mapping* m;
    ~Drop() { Mapping::release(m); }
  } drop{map};
  auto* bytes = static_cast<unsigned char*>(base) + data_start;
  for (io::Entry& e : h.entries) {
    unsigned char* p = bytes + e.begin;
    io::check_bool_data(e, p, context);
    Tensor t;
    if (reinterpret_cast<uintptr_t>(p) % itemsize(e.dtype) != 0) {
      t = io::copy_tensor(e, p);  // misaligned in the file (not written by save_file): copy
    } else {
      map->refs.fetch_add(1, std::memory_order_relaxed);
      t = Tensor::from_blob(p, e.shape, contiguous_strides(e.shape), e.dtype, &Mapping::release,
                            map, e.end - e.begin);
    }
    out.tensors.emplace_back(std::move(e.name), std::move(t));
  }
  return out;
}

}  // namespace ember
