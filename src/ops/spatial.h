// What the 2-d and 3-d convolutions and pools (conv.cpp, pool.cpp) share: spatial arguments
// as (depth, height, width) triples, and their errors.
//
// Errors: bad shapes and arguments raise PyTorch's RuntimeError (ember::Error) for the 2-d and
// 3-d ops alike (the 2-d ops raised ValueError before 29 Nov); dtypes: TypeError in 2-d, as
// before, RuntimeError in 3-d.
#pragma once
#include <array>
#include <climits>
#include <cstdint>
#include <string>

#include "ember/error.h"
#include "ember/int_list.h"

namespace ember::ops {

using Dim3 = std::array<int64_t, 3>;  // (depth, height, width); a 2-d op has depth 1 (pad 0)

[[noreturn]] inline void spatial_fail(int nd, bool dtype, const std::string& msg) {
  if (nd == 3 || !dtype) throw Error(msg);
  throw TypeError(msg);
}

}  // namespace ember::ops

// EMBER_CHECK with the error type of an nd-d op (see above).
#define SPATIAL_CHECK(nd, cond, ...)                                            \
  do {                                                                          \
    if (!(cond)) [[unlikely]]                                                   \
      ::ember::ops::spatial_fail(nd, false, ::ember::detail::cat(__VA_ARGS__)); \
  } while (0)

namespace ember::ops {

// "(a, b)" or "(a, b, c)": the spatial dims an nd-d op has.
inline std::string spatial_str(int nd, const Dim3& v, const char* sep = ", ") {
  std::string s = "(";
  for (int i = 3 - nd; i < 3; ++i) s += std::to_string(v[size_t(i)]) + (i < 2 ? sep : "");
  return s + ")";
}

// One value for every spatial dim, or one per dim (torch's _pair / _triple); a 2-d op's
// depth entry is `fill`.
inline Dim3 spatial_arg(int nd, const char* op, const char* name, IntList v, int64_t fill) {
  SPATIAL_CHECK(nd, v.size() == 1 || v.size() == size_t(nd), op, ": expected ", name,
                " to be a single int or a tuple of ", nd, " ints, but got ", name, "=", v);
  for (int64_t x : v) SPATIAL_CHECK(nd, x <= INT_MAX, op, ": ", name, "=", v, " is too large");
  if (nd == 2) return {fill, v[0], v.back()};
  return {v[0], v[v.size() / 2], v.back()};
}

}  // namespace ember::ops
