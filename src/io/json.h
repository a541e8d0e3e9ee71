// A small strict JSON reader for file headers that may be hostile (safetensors.cpp).
//
// It is a pull parser: the caller says what it expects next (an object, a key, a string,
// an integer) and gets a ValueError naming the byte offset when the text is anything
// else. So it builds no document tree (memory stays proportional to what the caller
// keeps), never recurses (nesting is a counter checked against kMaxDepth), and takes
// only what RFC 8259 allows: no comments, no trailing commas, no NaN, no leading zeros,
// no control characters or lone surrogates in strings. Integers are non-negative and
// checked for overflow as they are read. The caller checks duplicate keys (it knows
// which keys it keeps); the text is UTF-8-validated up front (valid_utf8).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ember::io {

// True when s is well-formed UTF-8 (no overlong forms, no surrogates, at most U+10FFFF);
// otherwise false and *bad is the offset of the first bad byte.
bool valid_utf8(std::string_view s, size_t* bad = nullptr);

// Appends s as a JSON string literal (quotes and escapes added; UTF-8 kept as is).
void append_json_string(std::string& out, std::string_view s);

class JsonReader {
 public:
  static constexpr int kMaxDepth = 64;

  // `context` starts every error message, e.g. "load: 'model.safetensors': ".
  JsonReader(std::string_view text, std::string context);

  char peek();                      // the next non-space character, '\0' at the end
  void begin_object();              // consumes '{'
  bool next_key(std::string& key);  // the next member's key and ':', or false at '}'
  void begin_array();               // consumes '['
  bool next_item();                 // true if another item follows, false at ']'
  std::string read_string();
  // A non-negative integer no larger than 2^63 - 1; `what` names it in errors.
  int64_t read_uint(const std::string& what);
  void skip_value();  // any value (nested at most kMaxDepth deep)
  void expect_end();  // nothing but spaces may follow

  // Throws ValueError: context + msg + " (at byte N of the header)".
  [[noreturn]] void fail(const std::string& msg) const;
  [[noreturn]] void fail_at(size_t pos, const std::string& msg) const;

 private:
  void skip_space();
  void expect(char c, const char* what);
  void push(bool is_object);
  void skip_number();
  void skip_literal();
  uint32_t read_hex4();

  std::string_view s_;
  size_t pos_ = 0;
  std::string context_;
  // One entry per open object/array: whether it is an object, and whether its first
  // member is still to come (so the next one needs no comma).
  struct Open {
    bool is_object;
    bool first;
  };
  std::vector<Open> open_;
};

}  // namespace ember::io
