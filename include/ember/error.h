// Errors. Every misuse throws one of these; the message names the op and the
// shapes, dims or dtypes involved. The Python bindings map each class to the
// matching built-in exception type.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

#include "ember/int_list.h"

namespace ember {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ValueError : Error {
  using Error::Error;
};  // -> ValueError
struct IndexError : Error {
  using Error::Error;
};  // -> IndexError
struct TypeError : Error {
  using Error::Error;
};  // -> TypeError
struct NotImplementedError : Error {
  using Error::Error;
};  // -> NotImplementedError
// Plain Error maps to RuntimeError (PyTorch raises RuntimeError for most misuse).

namespace detail {
template <class... Args>
std::string cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

}  // namespace ember

// EMBER_CHECK(cond, Kind, "op: message ", value, ...) throws ember::Kind when cond is false.
#define EMBER_CHECK(cond, Kind, ...)                          \
  do {                                                        \
    if (!(cond)) [[unlikely]]                                 \
      throw ::ember::Kind(::ember::detail::cat(__VA_ARGS__)); \
  } while (0)
