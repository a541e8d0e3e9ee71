// The zip container of PyTorch's format (src/io/zip.h). Field layouts: PKWARE's APPNOTE.TXT
// (local header 4.3.7, central directory header 4.3.12, end of central directory 4.3.16,
// zip64 end of central directory and its locator 4.3.14-15, zip64 extra field 4.5.3).
#include "io/zip.h"

#include <zlib.h>

#include <cstring>
#include <limits>

#include "ember/error.h"

namespace ember::io {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50, kZip64LocatorSig = 0x07064b50;
constexpr uint16_t kDosDate1980 = (0 << 9) | (1 << 5) | 1;  // 1980-01-01, as torch and ember.save

void le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}

uint64_t crc32_of(const void* data, size_t n) {
  uLong crc = ::crc32(0L, Z_NULL, 0);
  const auto* p = static_cast<const Bytef*>(data);
  while (n > 0) {  // zlib takes uInt lengths
    const uInt k = uInt(std::min<size_t>(n, size_t(1) << 30));
    crc = ::crc32(crc, p, k);
    p += k;
    n -= k;
  }
  return crc;
}

}  // namespace

// ---- writing ------------------------------------------------------------------------------

void ZipWriter::put(const void* p, size_t n) {
  sink_(p, n);
  pos_ += n;
}

void ZipWriter::add(const std::string& name, const void* data, size_t size) {
  // Local header (30 bytes) + name + extra, then the data at a multiple of 64.
  const size_t fixed = 30 + name.size() + 4;  // + the extra field's id and length
  const size_t pad = (kZipAlignment - (pos_ + fixed) % kZipAlignment) % kZipAlignment;
  EMBER_CHECK(pos_ + fixed + pad + size < (uint64_t(1) << 32) - 1, NotImplementedError,
              "save: the PyTorch-format file would pass 4 GiB at record '", name,
              "' (zip64), which ember's C++ writer does not write; save to a .safetensors path");
  const auto crc = uint32_t(crc32_of(data, size));
  std::string h;
  le(h, kLocalSig, 4);
  le(h, 20, 2);  // version needed: 2.0
  le(h, 0, 2);   // flags
  le(h, 0, 2);   // stored
  le(h, 0, 2);   // time
  le(h, kDosDate1980, 2);
  le(h, crc, 4);
  le(h, size, 4);
  le(h, size, 4);
  le(h, name.size(), 2);
  le(h, 4 + pad, 2);
  h += name;
  h += "FB";
  le(h, pad, 2);
  h.append(pad, 'Z');
  records_.push_back({name, crc, uint32_t(size), uint32_t(pos_)});
  put(h.data(), h.size());
  if (size) put(data, size);
}

void ZipWriter::finish() {
  const uint64_t cd_start = pos_;
  std::string cd;
  for (const Record& r : records_) {
    le(cd, kCentralSig, 4);
    le(cd, 20, 2);  // made by
    le(cd, 20, 2);  // needed
    le(cd, 0, 2);
    le(cd, 0, 2);
    le(cd, 0, 2);
    le(cd, kDosDate1980, 2);
    le(cd, r.crc, 4);
    le(cd, r.size, 4);
    le(cd, r.size, 4);
    le(cd, r.name.size(), 2);
    le(cd, 0, 2);  // extra (the padding lives in the local header only)
    le(cd, 0, 2);  // comment
    le(cd, 0, 2);  // disk
    le(cd, 0, 2);  // internal attributes
    le(cd, 0, 4);  // external attributes
    le(cd, r.offset, 4);
    cd += r.name;
  }
  EMBER_CHECK(
      cd_start + cd.size() < (uint64_t(1) << 32) - 1 && records_.size() < 0xffff,
      NotImplementedError,
      "save: the PyTorch-format file's directory would need zip64, which ember's C++ writer does "
      "not write; save to a .safetensors path");
  const uint64_t cd_size = cd.size();
  le(cd, kEndSig, 4);
  le(cd, 0, 2);  // this disk
  le(cd, 0, 2);  // the directory's disk
  le(cd, records_.size(), 2);
  le(cd, records_.size(), 2);
  le(cd, cd_size, 4);
  le(cd, cd_start, 4);
  le(cd, 0, 2);  // comment
  put(cd.data(), cd.size());
}

// ---- reading ------------------------------------------------------------------------------

namespace {
struct Cursor {
  std::string_view b;
  uint64_t at;
  const ZipReader* z;
  uint64_t u(int n) {
    if (at + uint64_t(n) > b.size()) z->fail("a header runs past the end of the file (truncated?)");
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(uint8_t(b[at + uint64_t(i)])) << (8 * i);
    at += uint64_t(n);
    return v;
  }
};
}  // namespace

void ZipReader::fail(const std::string& msg) const {
  throw ValueError(detail::cat("load: ", where_, ": ", msg));
}

ZipReader::ZipReader(std::string_view bytes, std::string where)
    : bytes_(bytes), where_(std::move(where)) {
  const uint64_t n = bytes.size();
  if (n < 22) fail("not a zip archive (too short)");
  // The end record is the last 22 bytes plus a comment of up to 65535 bytes.
  uint64_t end = UINT64_MAX;
  for (uint64_t i = n - 22 + 1; i-- > 0 && n - i <= 22 + 0xffff;) {
    Cursor c{bytes, i, this};
    if (c.u(4) == kEndSig) {
      end = i;
      break;
    }
  }
  if (end == UINT64_MAX) fail("not a zip archive (no end of central directory record)");
  Cursor c{bytes, end + 10, this};
  uint64_t count = c.u(2), cd_size = c.u(4), cd_offset = c.u(4);
  if (count == 0xffff || cd_size == 0xffffffff || cd_offset == 0xffffffff) {  // zip64
    if (end < 20) fail("zip64 archive without its locator");
    Cursor l{bytes, end - 20, this};
    if (l.u(4) != kZip64LocatorSig) fail("zip64 archive without its locator");
    l.u(4);
    Cursor e{bytes, l.u(8), this};
    if (e.u(4) != kZip64EndSig) fail("bad zip64 end of central directory record");
    e.at += 20;
    count = e.u(8);
    cd_size = e.u(8);
    cd_offset = e.u(8);
  }
  if (cd_offset > n || cd_size > n - cd_offset) fail("the central directory lies outside the file");
  if (count > cd_size / 46)
    fail("the central directory cannot hold " + std::to_string(count) + " records");
  Cursor d{bytes.substr(0, cd_offset + cd_size), cd_offset, this};
  for (uint64_t k = 0; k < count; ++k) {
    if (d.u(4) != kCentralSig) fail("bad central directory record " + std::to_string(k));
    Entry e;
    d.at += 6;
    e.method = uint16_t(d.u(2));
    d.at += 4;
    e.crc = uint32_t(d.u(4));
    e.compressed_size = d.u(4);
    e.size = d.u(4);
    const uint64_t name_len = d.u(2), extra_len = d.u(2), comment_len = d.u(2);
    d.at += 8;
    e.header_offset = d.u(4);
    if (d.at + name_len + extra_len + comment_len > d.b.size())
      fail("a central directory record is truncated");
    e.name = std::string(bytes.substr(d.at, name_len));
    Cursor x{d.b.substr(0, d.at + name_len + extra_len), d.at + name_len, this};
    while (x.at + 4 <= x.b.size()) {  // the zip64 extra field replaces the saturated values
      const uint64_t id = x.u(2), len = x.u(2), next = x.at + len;
      if (id == 1) {
        if (e.size == 0xffffffff) e.size = x.u(8);
        if (e.compressed_size == 0xffffffff) e.compressed_size = x.u(8);
        if (e.header_offset == 0xffffffff) e.header_offset = x.u(8);
      }
      x.at = next;
    }
    d.at += name_len + extra_len + comment_len;
    entries_.push_back(std::move(e));
  }
}

const ZipReader::Entry* ZipReader::find(std::string_view name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

std::string_view ZipReader::read(const Entry& e, std::string& scratch, uint64_t limit) const {
  if (e.size > limit)
    fail(detail::cat("record '", e.name, "' declares ", e.size, " bytes (at most ", limit, ")"));
  Cursor c{bytes_, e.header_offset, this};
  if (c.u(4) != kLocalSig)
    fail(detail::cat("record '", e.name, "': no local header at offset ", e.header_offset));
  c.at = e.header_offset + 26;
  const uint64_t begin = e.header_offset + 30 + c.u(2) + c.u(2);
  if (begin > bytes_.size() || e.compressed_size > bytes_.size() - begin)
    fail(detail::cat("record '", e.name, "': ", e.compressed_size, " bytes at offset ", begin,
                     " run past the end of the file (", bytes_.size(), " bytes): truncated?"));
  std::string_view raw = bytes_.substr(begin, e.compressed_size), out;
  if (e.method == 0) {
    if (e.compressed_size != e.size)
      fail(detail::cat("stored record '", e.name, "' has two sizes"));
    out = raw;
  } else if (e.method == 8) {
    // deflate expands at most 1032:1; a record claiming more lies.
    if (e.size > 1100 * e.compressed_size + 1024)
      fail(detail::cat("record '", e.name, "' declares ", e.size, " bytes from ", e.compressed_size,
                       " compressed: not possible with deflate"));
    scratch.assign(e.size, '\0');
    z_stream zs{};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) fail("zlib could not start");
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
    zs.next_out = reinterpret_cast<Bytef*>(scratch.data());
    uint64_t in_left = raw.size(), out_left = e.size;
    int rc = Z_OK;
    while (rc == Z_OK) {
      const auto in_now = uInt(std::min<uint64_t>(in_left, 1u << 30)),
                 out_now = uInt(std::min<uint64_t>(out_left, 1u << 30));
      zs.avail_in = in_now;
      zs.avail_out = out_now;
      rc = inflate(&zs, Z_NO_FLUSH);
      in_left -= in_now - zs.avail_in;
      out_left -= out_now - zs.avail_out;
      if (rc == Z_OK && in_now == zs.avail_in && out_now == zs.avail_out)
        rc = Z_BUF_ERROR;  // no progress
    }
    inflateEnd(&zs);
    if (rc != Z_STREAM_END || out_left != 0)
      fail(detail::cat("record '", e.name, "' is corrupt (deflate stream ",
                       rc == Z_STREAM_END ? "too short" : "broken", ")"));
    out = scratch;
  } else {
    fail(detail::cat("record '", e.name, "' uses compression method ", e.method,
                     "; torch files are stored or deflated"));
  }
  if (crc32_of(out.data(), out.size()) != e.crc)
    fail(detail::cat("record '", e.name, "' fails its CRC check (corrupt)"));
  return out;
}

}  // namespace ember::io
