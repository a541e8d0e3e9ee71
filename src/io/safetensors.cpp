// The safetensors format: parsing and checking a header that may be hostile, and laying
// out and writing one. The checks mirror the reference implementation (huggingface/
// safetensors, Metadata::validate): entries sorted by offset must tile the data section
// from 0 to its end exactly, each entry's byte count must equal shape x dtype size
// (overflow-checked), and the file must end where the last tensor ends.
#include "io/safetensors.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <unordered_set>

#include "ember/autograd.h"
#include "ember/ops.h"
#include "io/json.h"

namespace ember::io {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; a big-endian port must swap bytes");

namespace {

constexpr int64_t kMaxDims = 64;

struct DTypeName {
  const char* name;
  DType dtype;
  int rank;  // the safetensors package's dtype order: larger alignment is written first
};
constexpr DTypeName kDTypes[] = {
    {"BOOL", DType::Bool, 0},     {"U8", DType::UInt8, 1},       {"I8", DType::Int8, 2},
    {"I16", DType::Int16, 3},     {"U16", DType::UInt16, 4},     {"F16", DType::Float16, 5},
    {"BF16", DType::BFloat16, 6}, {"I32", DType::Int32, 7},      {"U32", DType::UInt32, 8},
    {"F32", DType::Float32, 9},   {"C64", DType::Complex64, 10}, {"F64", DType::Float64, 11},
    {"I64", DType::Int64, 12},    {"U64", DType::UInt64, 13},
};
// Valid safetensors dtypes that ember has no tensor type for.
constexpr const char* kForeignDTypes[] = {"F8_E5M2", "F8_E4M3", "F8_E8M0",
                                          "F4",      "F6_E2M3", "F6_E3M2"};

const DTypeName& info_of(DType d) {
  for (const auto& t : kDTypes)
    if (t.dtype == d) return t;
  return kDTypes[0];
}

std::string quoted(std::string_view s) {
  // Names in error messages: JSON-escaped so control bytes and quotes stay readable.
  std::string out;
  append_json_string(out, s.substr(0, 200));
  if (s.size() > 200) out.insert(out.size() - 1, "...");
  return out;
}

DType parse_dtype(JsonReader& r, const std::string& tensor) {
  std::string s = r.read_string();
  for (const auto& t : kDTypes)
    if (s == t.name) return t.dtype;
  for (const char* f : kForeignDTypes) {
    if (s != f) continue;
    std::string has;
    for (const auto& t : kDTypes) has += detail::cat(has.empty() ? "" : ", ", t.name);
    r.fail(detail::cat("tensor ", tensor, ": dtype ", s, " is not supported by ember (it has ", has,
                       ")"));
  }
  r.fail(detail::cat("tensor ", tensor, ": unknown dtype ", quoted(s)));
}

Dims parse_shape(JsonReader& r, const std::string& tensor) {
  Dims shape;
  r.begin_array();
  while (r.next_item()) {
    if (int64_t(shape.size()) == kMaxDims)
      r.fail(detail::cat("tensor ", tensor, ": shape has more than ", kMaxDims, " dimensions"));
    shape.push_back(r.read_uint(detail::cat("tensor ", tensor, ": shape entry")));
  }
  return shape;
}

void parse_offsets(JsonReader& r, const std::string& tensor, Entry& e) {
  int64_t v[2];
  int n = 0;
  r.begin_array();
  while (r.next_item()) {
    if (n == 2) r.fail(detail::cat("tensor ", tensor, ": data_offsets must be [begin, end]"));
    v[n++] = r.read_uint(detail::cat("tensor ", tensor, ": data_offsets entry"));
  }
  if (n != 2) r.fail(detail::cat("tensor ", tensor, ": data_offsets must be [begin, end]"));
  e.begin = uint64_t(v[0]);
  e.end = uint64_t(v[1]);
}

// Bytes of shape x dtype; fails when the element count, or the strides a contiguous
// tensor of this shape would get, overflow int64 (a zero dim does not excuse the others).
uint64_t checked_nbytes(JsonReader& r, const Entry& e, const std::string& tensor) {
  constexpr int64_t kLimit = std::numeric_limits<int64_t>::max() / 16;
  int64_t span = 1;
  bool empty = false;
  for (int64_t d : e.shape) {
    empty |= d == 0;
    if (d > 1 && span > kLimit / d)
      r.fail(detail::cat("tensor ", tensor, ": shape ", e.shape, " is too large (overflows)"));
    if (d > 1) span *= d;
  }
  return empty ? 0 : uint64_t(span) * itemsize(e.dtype);
}

Entry parse_entry(JsonReader& r, std::string name) {
  Entry e{std::move(name), DType::Float32, {}, 0, 0};
  std::string tensor = quoted(e.name);
  if (r.peek() != '{')
    r.fail(
        detail::cat("tensor ", tensor, ": expected an object with dtype, shape and data_offsets"));
  r.begin_object();
  bool seen[3] = {false, false, false};
  static const char* kFields[3] = {"dtype", "shape", "data_offsets"};
  std::string key;
  while (r.next_key(key)) {
    int f = key == "dtype" ? 0 : key == "shape" ? 1 : key == "data_offsets" ? 2 : -1;
    if (f < 0) {  // unknown fields are ignored, as the reference reader does
      r.skip_value();
      continue;
    }
    if (seen[f]) r.fail(detail::cat("tensor ", tensor, ": duplicate field ", kFields[f]));
    seen[f] = true;
    if (f == 0) e.dtype = parse_dtype(r, tensor);
    else if (f == 1) e.shape = parse_shape(r, tensor);
    else parse_offsets(r, tensor, e);
  }
  for (int f = 0; f < 3; ++f)
    if (!seen[f]) r.fail(detail::cat("tensor ", tensor, " has no ", kFields[f]));
  if (e.end < e.begin)
    r.fail(detail::cat("tensor ", tensor, ": data_offsets [", e.begin, ", ", e.end,
                       "] end before they begin"));
  uint64_t nbytes = checked_nbytes(r, e, tensor);
  if (e.end - e.begin != nbytes)
    r.fail(detail::cat("tensor ", tensor, ": shape ", e.shape, " of ", info_of(e.dtype).name,
                       " needs ", nbytes, " bytes but data_offsets [", e.begin, ", ", e.end,
                       "] hold ", e.end - e.begin));
  return e;
}

void parse_metadata(JsonReader& r, std::map<std::string, std::string>& out) {
  if (r.peek() != '{') r.fail("__metadata__ must be an object of strings");
  r.begin_object();
  std::string key;
  while (r.next_key(key)) {
    if (r.peek() != '"')
      r.fail(detail::cat("__metadata__ value of ", quoted(key), " is not a string"));
    std::string value = r.read_string();
    if (!out.emplace(key, std::move(value)).second)
      r.fail(detail::cat("__metadata__: duplicate key ", quoted(key)));
  }
}

// Sorted by offset, the entries must tile [0, data_size) exactly: no overlap, no gap.
uint64_t check_tiling(std::vector<Entry>& entries, const std::string& context) {
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t at = 0;
  const Entry* prev = nullptr;
  for (const Entry& e : entries) {
    if (e.begin < at)
      throw ValueError(detail::cat(context, "tensor ", quoted(e.name), " data_offsets [", e.begin,
                                   ", ", e.end, "] overlap tensor ", quoted(prev->name), " [",
                                   prev->begin, ", ", prev->end, "]"));
    if (e.begin > at)
      throw ValueError(detail::cat(context, "bytes [", at, ", ", e.begin,
                                   ") of the data belong to no tensor (data_offsets leave a gap "
                                   "before tensor ",
                                   quoted(e.name), ")"));
    at = e.end;
    prev = &e;
  }
  return at;
}

}  // namespace

uint64_t check_header_length(const unsigned char* prefix8, uint64_t file_size,
                             const std::string& context) {
  EMBER_CHECK(
      file_size >= 8, ValueError, context, "the file is ", file_size,
      " bytes, too short to be a safetensors file (it starts with an 8-byte header length)");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | prefix8[i];
  EMBER_CHECK(n <= kMaxSafetensorsHeader, ValueError, context, "header length ", n,
              " is over the limit of ", kMaxSafetensorsHeader, " bytes (not a safetensors file?)");
  EMBER_CHECK(n <= file_size - 8, ValueError, context, "header length ", n,
              " runs past the end of the file (", file_size, " bytes): the file is truncated");
  EMBER_CHECK(n >= 2, ValueError, context, "header length ", n, " is too short for a JSON object");
  return n;
}

Header parse_header(std::string_view text, const std::string& context) {
  size_t bad = 0;
  if (!valid_utf8(text, &bad))
    throw ValueError(
        detail::cat(context, "the header is not valid UTF-8 (at byte ", bad, " of the header)"));
  JsonReader r(text, context);
  if (r.peek() != '{') r.fail("the header is not a JSON object");
  Header h;
  std::unordered_set<std::string> names;
  bool has_metadata = false;
  std::string key;
  r.begin_object();
  while (r.next_key(key)) {
    if (key == "__metadata__") {
      if (has_metadata) r.fail("duplicate __metadata__");
      has_metadata = true;
      parse_metadata(r, h.metadata);
      continue;
    }
    if (!names.insert(key).second) r.fail(detail::cat("duplicate tensor name ", quoted(key)));
    h.entries.push_back(parse_entry(r, key));
  }
  r.expect_end();
  h.data_size = check_tiling(h.entries, context);
  return h;
}

void check_data_size(const Header& header, uint64_t data_bytes, const std::string& context) {
  EMBER_CHECK(data_bytes >= header.data_size, ValueError, context, "the header describes ",
              header.data_size, " bytes of tensor data but the file holds only ", data_bytes,
              ": the file is truncated");
  EMBER_CHECK(data_bytes == header.data_size, ValueError, context, data_bytes - header.data_size,
              " bytes of trailing data after the last tensor (", header.data_size,
              " bytes of tensor data expected)");
}

void check_bool_data(const Entry& e, const unsigned char* data, const std::string& context) {
  if (e.dtype != DType::Bool) return;
  for (uint64_t i = 0; i < e.end - e.begin; ++i)
    EMBER_CHECK(data[i] <= 1, ValueError, context, "BOOL tensor ", quoted(e.name), " holds byte ",
                int(data[i]), " at element ", i, " (only 0 and 1 are booleans)");
}

Tensor copy_tensor(const Entry& e, const unsigned char* data) {
  Tensor t = Tensor::empty(e.shape, e.dtype);
  if (e.end > e.begin) std::memcpy(t.data_ptr(), data, e.end - e.begin);
  return t;
}

Plan plan_file(const std::map<std::string, Tensor>& tensors,
               const std::map<std::string, std::string>& metadata, const char* op) {
  auto check_text = [&](const std::string& s, const char* what) {
    EMBER_CHECK(valid_utf8(s), ValueError, op, ": ", what, " ", quoted(s), " is not valid UTF-8");
  };
  std::vector<std::pair<const std::string*, const Tensor*>> order;
  for (const auto& [name, t] : tensors) {
    check_text(name, "tensor name");
    EMBER_CHECK(name != "__metadata__", ValueError, op,
                ": '__metadata__' is reserved by the format and cannot name a tensor");
    EMBER_CHECK(t.defined(), ValueError, op, ": tensor ", quoted(name), " is undefined");
    EMBER_CHECK(t.dtype() != DType::Complex128, ValueError, op, ": tensor ", quoted(name),
                " is complex128, which the safetensors format has no dtype for (C64 is complex64)");
    order.emplace_back(&name, &t);
  }
  for (const auto& [k, v] : metadata) {
    check_text(k, "metadata key");
    check_text(v, "metadata value");
  }
  // The safetensors package's order: dtype by descending alignment, then name (bytewise).
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    int ra = info_of(a.second->dtype()).rank, rb = info_of(b.second->dtype()).rank;
    return ra != rb ? ra > rb : *a.first < *b.first;
  });
  std::string json = "{";
  if (!metadata.empty()) {
    json += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : metadata) {
      if (!first) json += ',';
      first = false;
      append_json_string(json, k);
      json += ':';
      append_json_string(json, v);
    }
    json += '}';
  }
  Plan plan;
  uint64_t offset = 0;
  for (const auto& [name, t] : order) {
    if (json.size() > 1) json += ',';
    append_json_string(json, *name);
    uint64_t nbytes = uint64_t(t->numel()) * t->itemsize();
    json += detail::cat(":{\"dtype\":\"", info_of(t->dtype()).name, "\",\"shape\":[");
    for (size_t d = 0; d < t->sizes().size(); ++d) json += detail::cat(d ? "," : "", t->sizes()[d]);
    json += detail::cat("],\"data_offsets\":[", offset, ",", offset + nbytes, "]}");
    offset += nbytes;
    plan.order.push_back(*t);
  }
  json += '}';
  json.append((8 - json.size() % 8) % 8, ' ');  // so the data starts 8-byte aligned
  EMBER_CHECK(json.size() <= kMaxSafetensorsHeader, ValueError, op, ": the header would be ",
              json.size(), " bytes, over the format's limit of ", kMaxSafetensorsHeader);
  plan.head.resize(8);
  uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) plan.head[i] = char((n >> (8 * i)) & 0xFF);
  plan.head += json;
  plan.total_size = plan.head.size() + offset;
  return plan;
}

void write_data(const Plan& plan, const std::function<void(const void*, size_t)>& sink) {
  NoGradGuard no_grad;  // copies of non-contiguous tensors need no history
  constexpr int64_t kChunk = int64_t(64) << 20;
  for (const Tensor& t : plan.order) {
    int64_t nbytes = t.numel() * int64_t(t.itemsize());
    if (nbytes == 0) continue;
    if (t.is_contiguous()) {
      sink(t.data_ptr(), size_t(nbytes));
      continue;
    }
    // Non-contiguous: the values in C order, copied a block of leading rows at a time.
    int64_t rows = t.size(0), row_bytes = nbytes / rows;
    int64_t step = std::max<int64_t>(1, kChunk / std::max<int64_t>(row_bytes, 1));
    for (int64_t r = 0; r < rows; r += step) {
      Tensor block = contiguous(narrow(t, 0, r, std::min(step, rows - r)));
      sink(block.data_ptr(), size_t(block.numel() * int64_t(block.itemsize())));
    }
  }
}

}  // namespace ember::io

namespace ember {
using namespace io;

std::string save_bytes(const std::map<std::string, Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  Plan plan = plan_file(tensors, metadata, "save_bytes");
  std::string out = plan.head;
  out.reserve(plan.total_size);
  write_data(plan, [&](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); });
  return out;
}

SafetensorsFile load_bytes(const void* data, size_t size) {
  const std::string context = "load_bytes: ";
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t n = check_header_length(p, size, context);
  Header h = parse_header(std::string_view(reinterpret_cast<const char*>(p) + 8, n), context);
  check_data_size(h, size - 8 - n, context);
  const unsigned char* base = p + 8 + n;
  SafetensorsFile out;
  out.metadata = std::move(h.metadata);
  out.tensors.reserve(h.entries.size());
  for (Entry& e : h.entries) {
    check_bool_data(e, base + e.begin, context);
    out.tensors.emplace_back(std::move(e.name), copy_tensor(e, base + e.begin));
  }
  return out;
}

}  // namespace ember
