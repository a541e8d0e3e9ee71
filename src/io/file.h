// Writing and reading whole files for the savers and loaders of src/io.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

namespace ember::io {

using Sink = std::function<void(const void*, size_t)>;

// Calls write(sink) with a sink into a temporary file beside `path`, then renames it over
// `path` (Note [Atomic save] in file.cpp); an existing device or FIFO is written in place.
// If write throws, the temporary file is removed and `path` is left as it was. Errors name
// `op` ("save") and the path.
void write_file(const std::string& path, const char* op,
                const std::function<void(const Sink&)>& write);

// The bytes of a regular file (ValueError for a directory or FIFO, OSError when unreadable).
std::string read_file(const std::string& path, const char* op);

}  // namespace ember::io
