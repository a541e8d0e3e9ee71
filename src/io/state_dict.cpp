// ember::save / ember::load of state dicts (include/ember/serialize.h): the format by the
// path's suffix on the way out and by the file's first bytes on the way in, as ember.save /
// ember.load do in Python.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "ember/error.h"
#include "ember/serialize.h"
#include "io/file.h"

namespace ember {
namespace io {
void save_torch_file(const StateDict& state, const std::string& path);  // torch_format.cpp
}

namespace {
bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}
}  // namespace

void save(const StateDict& state, const std::string& path, SaveFormat format) {
  if (format == SaveFormat::Auto)
    format = ends_with(path, ".safetensors") ? SaveFormat::Safetensors : SaveFormat::Torch;
  if (format == SaveFormat::Torch) return io::save_torch_file(state, path);
  std::map<std::string, Tensor> tensors;
  for (const auto& [name, t] : state) {
    EMBER_CHECK(t.defined(), ValueError, "save: the tensor '", name, "' is undefined");
    EMBER_CHECK(tensors.emplace(name, t).second, ValueError, "save: the name '", name,
                "' appears twice");
  }
  save_file(tensors, path);
}

StateDict load(const std::string& path) {
  EMBER_CHECK(path.find('\0') == std::string::npos, ValueError, "load: embedded null byte in path");
  char head[8] = {};
  size_t got = 0;
  // O_NONBLOCK: a FIFO must not block here (the loaders refuse it); errors are reported by them.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd >= 0) {
    const ssize_t n = ::read(fd, head, sizeof head);
    got = n > 0 ? size_t(n) : 0;
    ::close(fd);
  }
  const std::string_view h(head, got);
  // PROTO 2, LONG1 10 and torch's magic number: the pre-1.6 format.
  EMBER_CHECK(
      h != std::string_view("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46", 8), ValueError, "load: '", path,
      "': this is torch's legacy (pre-1.6, non-zip) format, which ember does not read; re-save it "
      "with torch.save in the default format");
  if (!h.starts_with("PK\x03\x04") && !h.starts_with("PK\x05\x06")) return load_file(path).tensors;
  const std::string bytes = io::read_file(path, "load");
  return load_torch_bytes(bytes.data(), bytes.size(), "'" + path + "'");
}

}  // namespace ember
