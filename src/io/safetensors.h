// The safetensors format, shared by the byte loader/saver (safetensors.cpp) and the file
// loader/saver (file.cpp): header parsing and checking on the way in, layout and header
// writing on the way out. Every check names `context` ("load: 'path': ") in its error.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ember/serialize.h"

namespace ember::io {

struct Entry {
  std::string name;
  DType dtype;
  Dims shape;
  uint64_t begin, end;  // byte range in the data section
};

struct Header {
  std::vector<Entry> entries;  // sorted by data offset
  std::map<std::string, std::string> metadata;
  uint64_t data_size = 0;  // bytes of tensor data the entries cover, from 0, without gaps
};

// The header length N from the first 8 bytes of a file of `file_size` bytes; throws
// ValueError when the file is too short, N is over kMaxSafetensorsHeader, or N + 8 is past
// the end of the file.
uint64_t check_header_length(const unsigned char* prefix8, uint64_t file_size,
                             const std::string& context);

// Parses the N header bytes and checks every entry: dtype, shape, data_offsets against
// shape x dtype, no overlaps, no gaps. Throws ValueError naming the problem.
Header parse_header(std::string_view text, const std::string& context);

// Checks that the data section holds exactly header.data_size bytes (truncated file /
// trailing bytes otherwise).
void check_data_size(const Header& header, uint64_t data_bytes, const std::string& context);

// A BOOL tensor's bytes must be 0 or 1 (any other byte is not a valid C++ bool).
void check_bool_data(const Entry& e, const unsigned char* data, const std::string& context);

// A new tensor holding a copy of `data` (the entry's bytes).
Tensor copy_tensor(const Entry& e, const unsigned char* data);

// What save writes: the 8-byte length and the padded header, then the tensors' bytes in
// `order`.
struct Plan {
  std::string head;
  std::vector<Tensor> order;
  uint64_t total_size = 0;  // of the whole file
};
Plan plan_file(const std::map<std::string, Tensor>& tensors,
               const std::map<std::string, std::string>& metadata, const char* op);
// Hands the tensors' bytes to `sink` in order (non-contiguous tensors in chunks of their
// values, so saving never needs a full second copy of a big tensor).
void write_data(const Plan& plan, const std::function<void(const void*, size_t)>& sink);

}  // namespace ember::io
