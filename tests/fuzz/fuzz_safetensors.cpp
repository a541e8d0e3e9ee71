// libFuzzer target for the safetensors loader (`make fuzz FUZZ_SECONDS=60`).
//
// Each input is a would-be file. It is loaded from memory (load_bytes) and from a file
// (load_file, read and memory-mapped); the only acceptable failure is ember::ValueError.
// Anything else — a crash, a sanitizer report (the build has ASan and UBSan), another
// exception type, a hang or a big allocation (libFuzzer's -timeout and -rss_limit_mb) —
// is a finding. A file that loads must survive a round trip: saving its tensors and
// metadata and loading them again gives the same names, dtypes, shapes and bytes.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "ember/ember.h"

using namespace ember;

namespace {

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "fuzz_safetensors: %s\n", what);
  std::abort();
}

bool same(const SafetensorsFile& a, const SafetensorsFile& b) {
  if (a.metadata != b.metadata || a.tensors.size() != b.tensors.size()) return false;
  std::map<std::string, Tensor> bt(b.tensors.begin(), b.tensors.end());
  for (const auto& [name, t] : a.tensors) {
    auto it = bt.find(name);
    if (it == bt.end()) return false;
    const Tensor& u = it->second;
    if (t.dtype() != u.dtype() || !(t.sizes() == u.sizes())) return false;
    size_t n = size_t(t.numel()) * t.itemsize();
    if (n && std::memcmp(t.data_ptr(), u.data_ptr(), n) != 0) return false;
  }
  return true;
}

// Tensor data is read through the loaded tensors so ASan sees every byte they claim.
uint64_t touch(const SafetensorsFile& f) {
  uint64_t sum = 0;
  for (const auto& [name, t] : f.tensors) {
    const auto* p = reinterpret_cast<const unsigned char*>(t.data_ptr());
    for (size_t i = 0, n = size_t(t.numel()) * t.itemsize(); i < n; ++i) sum += p[i];
  }
  return sum;
}

// The same bytes as a file: a memfd, opened by path as a user would open a file.
void load_as_file(const uint8_t* data, size_t size, const SafetensorsFile* expected) {
  int fd = memfd_create("fuzz", MFD_CLOEXEC);
  if (fd < 0) return;
  if (size && ::write(fd, data, size) != ssize_t(size)) {
    ::close(fd);
    return;
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  for (bool mmap : {false, true}) {
    try {
      SafetensorsFile f = load_file(path, mmap);
      touch(f);
      if (!expected || !same(f, *expected))
        finding("load_file accepted what load_bytes did not, or differs");
    } catch (const ValueError&) {
      if (expected) finding("load_file rejected what load_bytes accepted");
    }
  }
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  SafetensorsFile f;
  bool ok = false;
  try {
    f = load_bytes(data, size);
    ok = true;
  } catch (const ValueError&) {
  }
  load_as_file(data, size, ok ? &f : nullptr);
  if (!ok) return 0;
  touch(f);
  std::map<std::string, Tensor> tensors(f.tensors.begin(), f.tensors.end());
  std::string again = save_bytes(tensors, f.metadata);
  SafetensorsFile g = load_bytes(again.data(), again.size());
  if (!same(f, g)) finding("round trip changed the tensors");
  return 0;
}
