// Saving and loading tensors in the safetensors format (docs/serialization.md).
//
//   save_file({{"w", w}, {"b", b}}, "model.safetensors", {{"epoch", "3"}});
//   SafetensorsFile f = load_file("model.safetensors", /*mmap=*/true);
//   Tensor w2 = f.tensors[0].second;   // tensors in file order; f.metadata["epoch"] == "3"
//
// The file: an 8-byte little-endian header length N, N bytes of UTF-8 JSON
//   {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...,
//    "__metadata__": {"key": "value"}}
// padded with spaces to a multiple of 8, then each tensor's raw little-endian C-order bytes
// at [begin, end) of the data section. Loading never runs code: the loader parses that
// header with its own strict JSON reader and checks every number against the file before
// using it; a file that fails a check raises ValueError naming the file and the problem.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "ember/tensor.h"

namespace ember {

// A failed system call (open, read, write, fsync, rename): Python gets OSError with
// this errno (FileNotFoundError, PermissionError, ...) and the file name.
struct OSError : Error {
  // what() is "<reason>: '<path>'"; reason is e.g. "load: cannot open (No such file ...)".
  OSError(std::string reason, int errno_value, std::string path)
      : Error(reason + ": '" + path + "'"),
        reason(std::move(reason)), errno_value(errno_value), path(std::move(path)) {}
  std::string reason;
  int errno_value;
  std::string path;
};

struct SafetensorsFile {
  std::vector<std::pair<std::string, Tensor>> tensors;  // in the order of their data in the file
  std::map<std::string, std::string> metadata;          // the header's "__metadata__"
};

// The largest header accepted, as in the reference implementation (100 MB).
inline constexpr size_t kMaxSafetensorsHeader = 100'000'000;

// Writes `tensors` (any layout: non-contiguous ones are saved as their values) to `path`
// atomically: the bytes go to a temporary file in the same folder, which is fsynced and
// then renamed over `path`; the folder is fsynced too. If anything fails, the temporary
// file is removed and a previous file at `path` is left as it was. Tensors are laid out
// as the safetensors package lays them out (by dtype alignment, then name).
void save_file(const std::map<std::string, Tensor>& tensors, const std::string& path,
               const std::map<std::string, std::string>& metadata = {});
// The same file as bytes in memory.
std::string save_bytes(const std::map<std::string, Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

// Reads a file written by save_file or by any safetensors writer. mmap=false copies the
// data into memory ember owns; mmap=true maps the file (private, copy-on-write) and the
// tensors view the mapping without a copy: in-place writes to them change this process's
// pages only, never the file. (A tensor whose data is not aligned to its element size in
// the file is copied instead.) As with any memory map, truncating the file while it is
// mapped is undefined; replacing it with save_file is safe (rename keeps the old inode).
SafetensorsFile load_file(const std::string& path, bool mmap = false);
// The same from bytes in memory (copied into owned tensors).
SafetensorsFile load_bytes(const void* data, size_t size);

}  // namespace ember
