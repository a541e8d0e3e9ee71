#include "io/json.h"

#include <cstdio>
#include <limits>

#include "ember/error.h"

namespace ember::io {

bool valid_utf8(std::string_view s, size_t* bad) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  auto cont = [&](size_t k) { return i + k < n && (p[i + k] & 0xC0) == 0x80; };
  while (i < n) {
    unsigned char c = p[i];
    size_t len = 0;
    if (c < 0x80) {
      len = 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
      len = cont(1) ? 2 : 0;
    } else if (c >= 0xE0 && c <= 0xEF) {
      // E0 needs A0..BF next (no overlongs); ED needs 80..9F (no surrogates).
      bool ok =
          cont(1) && cont(2) && !(c == 0xE0 && p[i + 1] < 0xA0) && !(c == 0xED && p[i + 1] > 0x9F);
      len = ok ? 3 : 0;
    } else if (c >= 0xF0 && c <= 0xF4) {
      // F0 needs 90..BF next (no overlongs); F4 needs 80..8F (at most U+10FFFF).
      bool ok = cont(1) && cont(2) && cont(3) && !(c == 0xF0 && p[i + 1] < 0x90) &&
                !(c == 0xF4 && p[i + 1] > 0x8F);
      len = ok ? 4 : 0;
    }
    if (len == 0) {
      if (bad) *bad = i;
      return false;
    }
    i += len;
  }
  return true;
}

void append_json_string(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  out += '"';
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

JsonReader::JsonReader(std::string_view text, std::string context)
    : s_(text), context_(std::move(context)) {}

void JsonReader::fail_at(size_t pos, const std::string& msg) const {
  throw ValueError(detail::cat(context_, msg, " (at byte ", pos, " of the header)"));
}

void JsonReader::fail(const std::string& msg) const { fail_at(pos_, msg); }

void JsonReader::skip_space() {
  while (pos_ < s_.size() &&
         (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t'))
    ++pos_;
}

char JsonReader::peek() {
  skip_space();
  return pos_ < s_.size() ? s_[pos_] : '\0';
}

void JsonReader::expect(char c, const char* what) {
  if (peek() != c) {
    if (pos_ >= s_.size())
      fail(detail::cat("malformed JSON: the text ends where ", what, " was expected"));
    fail(detail::cat("malformed JSON: expected ", what));
  }
  ++pos_;
}

void JsonReader::push(bool is_object) {
  // The depth is a counter, not recursion: a file of a million '[' cannot overflow the stack.
  if (open_.size() >= size_t(kMaxDepth))
    fail(detail::cat("JSON nested deeper than ", kMaxDepth, " levels"));
  open_.push_back({is_object, true});
}

void JsonReader::begin_object() {
  expect('{', "'{' (an object)");
  push(true);
}

void JsonReader::begin_array() {
  expect('[', "'[' (an array)");
  push(false);
}

bool JsonReader::next_key(std::string& key) {
  Open& o = open_.back();
  char c = peek();
  if (c == '}') {  // (a '}' right after a comma fails below: no trailing commas)
    ++pos_;
    open_.pop_back();
    return false;
  }
  if (!o.first) expect(',', "',' or '}'");
  else if (c != '"') fail("malformed JSON: expected a key (a string) or '}'");
  o.first = false;
  if (peek() != '"') fail("malformed JSON: expected a key (a string)");
  key = read_string();
  expect(':', "':'");
  return true;
}

bool JsonReader::next_item() {
  Open& o = open_.back();
  if (peek() == ']') {
    ++pos_;
    open_.pop_back();
    return false;
  }
  if (!o.first) expect(',', "',' or ']'");
  o.first = false;
  char c = peek();
  if (c == ']' || c == '\0') fail("malformed JSON: expected a value");
  return true;
}

uint32_t JsonReader::read_hex4() {
  if (s_.size() - pos_ < 4) fail("malformed JSON: truncated \\u escape");
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    char h = s_[pos_++];
    v <<= 4;
    if (h >= '0' && h <= '9') v |= uint32_t(h - '0');
    else if (h >= 'a' && h <= 'f') v |= uint32_t(h - 'a' + 10);
    else if (h >= 'A' && h <= 'F') v |= uint32_t(h - 'A' + 10);
    else fail_at(pos_ - 1, "malformed JSON: bad hex digit in a \\u escape");
  }
  return v;
}

namespace {
void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}
}  // namespace

std::string JsonReader::read_string() {
  expect('"', "'\"' (a string)");
  std::string out;
  size_t start = pos_ - 1;
  while (true) {
    if (pos_ >= s_.size()) fail_at(start, "malformed JSON: unterminated string");
    auto c = static_cast<unsigned char>(s_[pos_]);
    if (c == '"') {
      ++pos_;
      return out;
    }
    if (c < 0x20) fail("malformed JSON: control character in a string");
    if (c != '\\') {
      out += char(c);
      ++pos_;
      continue;
    }
    if (++pos_ >= s_.size()) fail_at(start, "malformed JSON: unterminated string");
    char e = s_[pos_++];
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        uint32_t cp = read_hex4();
        if (cp >= 0xDC00 && cp <= 0xDFFF) fail("malformed JSON: lone low surrogate in \\u escape");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (s_.substr(pos_, 2) != "\\u")
            fail("malformed JSON: lone high surrogate in \\u escape");
          pos_ += 2;
          uint32_t lo = read_hex4();
          if (lo < 0xDC00 || lo > 0xDFFF)
            fail("malformed JSON: high surrogate not followed by a low one");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        append_utf8(out, cp);
        break;
      }
      default: fail_at(pos_ - 1, "malformed JSON: unknown escape in a string");
    }
  }
}

int64_t JsonReader::read_uint(const std::string& what) {
  char c = peek();
  size_t start = pos_;
  if (c == '-') {
    skip_number();
    fail_at(start,
            detail::cat(what, " must be non-negative, got ", s_.substr(start, pos_ - start)));
  }
  if (c < '0' || c > '9') fail(detail::cat(what, ": expected a non-negative integer"));
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t v = 0;
  bool overflow = false;
  while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
    int d = s_[pos_] - '0';
    if (v > (kMax - d) / 10) overflow = true;
    else v = v * 10 + d;
    ++pos_;
  }
  if (s_[start] == '0' && pos_ - start > 1)
    fail_at(start, "malformed JSON: a number with a leading zero");
  if (pos_ < s_.size() && (s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E')) {
    pos_ = start;
    skip_number();
    fail_at(start, detail::cat(what, " must be an integer, got ", s_.substr(start, pos_ - start)));
  }
  if (overflow)
    fail_at(start, detail::cat(what, " ", s_.substr(start, std::min<size_t>(pos_ - start, 40)),
                               " is too large (over 2^63 - 1)"));
  return v;
}

void JsonReader::skip_number() {
  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  size_t start = pos_;
  auto digits = [&] {
    size_t from = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    return pos_ - from;
  };
  if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
  size_t int_start = pos_;
  size_t n = digits();
  if (n == 0) fail_at(start, "malformed JSON: expected a value");
  if (n > 1 && s_[int_start] == '0') fail_at(start, "malformed JSON: a number with a leading zero");
  if (pos_ < s_.size() && s_[pos_] == '.') {
    ++pos_;
    if (digits() == 0) fail_at(start, "malformed JSON: bad number");
  }
  if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
    if (digits() == 0) fail_at(start, "malformed JSON: bad number");
  }
}

void JsonReader::skip_literal() {
  for (std::string_view lit : {"true", "false", "null"}) {
    if (s_.substr(pos_, lit.size()) == lit) {
      pos_ += lit.size();
      return;
    }
  }
  fail("malformed JSON: expected a value");
}

void JsonReader::skip_value() {
  // Iterative: open containers live in open_, so depth costs memory, never stack.
  const size_t base = open_.size();
  std::string key;
  do {
    char c = peek();
    if (c == '{') begin_object();
    else if (c == '[') begin_array();
    else if (c == '"') read_string();
    else if (c == '-' || (c >= '0' && c <= '9')) skip_number();
    else skip_literal();
    // Close finished containers until one wants another value (or we are back at base).
    while (open_.size() > base) {
      bool more = open_.back().is_object ? next_key(key) : next_item();
      if (more) break;
    }
  } while (open_.size() > base);
}

void JsonReader::expect_end() {
  if (peek() != '\0') fail("malformed JSON: unexpected text after the header object");
}

}  // namespace ember::io
