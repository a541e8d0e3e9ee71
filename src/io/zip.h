// The zip container of PyTorch's file format (what torch.save writes and ember.save mirrors):
// records stored uncompressed, each one's data aligned to 64 bytes from the start of the
// file by padding in its local header's extra field (id "FB", as torch's writer does).
// The reader takes stored and deflated records, zip64 archives, and checks every offset,
// size and CRC against the file before it hands out a byte.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/file.h"

namespace ember::io {

inline constexpr size_t kZipAlignment = 64;

// Streams records into `sink`: add() writes a local header and the data, finish() the
// central directory. The whole archive must stay under 4 GiB (no zip64 on the way out:
// NotImplementedError naming the record; safetensors has no such limit).
class ZipWriter {
 public:
  explicit ZipWriter(Sink sink) : sink_(std::move(sink)) {}
  void add(const std::string& name, const void* data, size_t size);
  void finish();

 private:
  struct Record {
    std::string name;
    uint32_t crc, size;
    uint32_t offset;
  };
  void put(const void* p, size_t n);
  Sink sink_;
  std::vector<Record> records_;
  uint64_t pos_ = 0;
};

// A read-only view of an archive in memory (`bytes` must outlive it).
class ZipReader {
 public:
  // Parses the central directory; ValueError (naming `where`) when it is not a readable zip.
  ZipReader(std::string_view bytes, std::string where);
  struct Entry {
    std::string name;
    uint16_t method;  // 0 stored, 8 deflated
    uint32_t crc;
    uint64_t compressed_size, size, header_offset;
  };
  const std::vector<Entry>& entries() const { return entries_; }
  const Entry* find(std::string_view name) const;
  // The record's bytes (stored: a view of the archive; deflated: inflated into `scratch`),
  // CRC checked; at most `limit` bytes.
  std::string_view read(const Entry& e, std::string& scratch, uint64_t limit = UINT64_MAX) const;
  [[noreturn]] void fail(const std::string& msg) const;

 private:
  std::string_view bytes_;
  std::string where_;
  std::vector<Entry> entries_;
};

}  // namespace ember::io
