// Saving and loading tensors: state dicts in the formats ember's Python side and PyTorch
// write (ember::save / ember::load), and the safetensors format itself (docs/serialization.md).
//
//   ember::save(model->state_dict(), "model.pt");           // torch.load / ember.load read it
//   model->load_state_dict(ember::load("model.pt"));         // and a torch.save file loads here
//   ember::save(model->state_dict(), "model.safetensors");   // safetensors, chosen by the suffix
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
      : Error(reason + ": '" + path + "'"), reason(std::move(reason)), errno_value(errno_value),
        path(std::move(path)) {}
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

// ---- state dicts (src/io/state_dict.cpp) -------------------------------------------------
// Named tensors in order, as torch's OrderedDict state_dict (nn::Module::state_dict()).
using StateDict = std::vector<std::pair<std::string, Tensor>>;

enum class SaveFormat : uint8_t { Auto, Torch, Safetensors };

// Writes `state` atomically (Note [Atomic save] in src/io/file.cpp). Auto: safetensors when
// the path ends in ".safetensors", else PyTorch's zip format (what torch.save writes: a
// pickled OrderedDict of tensors plus one raw record per storage; tensors that view one
// storage stay views of one storage). Both load in Python with ember.load and torch.load
// (weights_only=True). Names must be unique and tensors defined; values are saved, never
// the autograd state.
void save(const StateDict& state, const std::string& path, SaveFormat format = SaveFormat::Auto);
// Reads a state dict from a file written by save, by ember.save or torch.save (of a dict /
// OrderedDict of tensors, e.g. model.state_dict(), at any nesting depth: nested dicts give
// dotted names, as ember.save's safetensors flattening does), or by any safetensors writer.
// The format is recognised by the file's first bytes. PyTorch files are read by a
// restricted unpickler that builds only dicts, lists, tuples, numbers, strings and tensors
// and never runs code; anything else (a pickled module, say) throws ValueError naming the
// file and the global it refused. A malformed file throws ValueError naming the problem.
StateDict load(const std::string& path);

// The PyTorch-format bytes themselves (src/io/torch_format.cpp); `archive_name` is the zip's
// top-level folder (torch.save uses the file's stem).
std::string save_torch_bytes(const StateDict& state, const std::string& archive_name = "archive");
StateDict load_torch_bytes(const void* data, size_t size, const std::string& where = "<bytes>");

}  // namespace ember
