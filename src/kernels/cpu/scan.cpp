#include "kernels/cpu/scan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

namespace ember::kernels {

namespace {

// Rows per thread chunk: about kGrain elements of work, at least one row.
int64_t row_grain(int64_t len) { return std::max<int64_t>(1, kGrain / std::max<int64_t>(len, 1)); }

// Calls f(ptrs) with operand k's pointer at the start of each row.
template <class F>
void for_each_row(const Loop& rows, int64_t len, F&& f) {
  for_each(
      rows,
      [&](char** p, const int64_t* s, int64_t n) {
        char* q[Loop::kMaxArgs];
        for (int64_t i = 0; i < n; ++i) {
          for (int k = 0; k < rows.nargs; ++k) q[k] = p[k] + i * s[k];
          f(q);
        }
      },
      row_grain(len));
}

template <class T>
using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;

template <class T>
T& at(char* base, int64_t i, int64_t step) {
  return *reinterpret_cast<T*>(base + i * step);
}

// Rows are scanned in blocks of up to kBlock side by side: for a scan along an outer dim
// (neighbouring rows are neighbours in memory) the inner loop then walks contiguous memory
// and vectorizes, instead of striding a whole row apart at every step.
constexpr int64_t kBlock = 64;

template <bool Prod>
void scan(DType dt, const Loop& rows, int64_t len, int64_t os, int64_t is) {
  visit_dtype(dt, [&]<class T>() {
    for_each(
        rows,
        [&](char** p, const int64_t* s, int64_t n) {
          Acc<T> acc[kBlock];
          for (int64_t r0 = 0; r0 < n; r0 += kBlock) {
            const int64_t nb = std::min(kBlock, n - r0);
            char* out = p[0] + r0 * s[0];
            const char* in = p[1] + r0 * s[1];
            for (int64_t r = 0; r < nb; ++r) acc[r] = Prod ? 1 : 0;
            for (int64_t i = 0; i < len; ++i) {
              for (int64_t r = 0; r < nb; ++r) {
                const T x = *reinterpret_cast<const T*>(in + i * is + r * s[1]);
                if constexpr (Prod) acc[r] *= Acc<T>(x);
                else acc[r] += Acc<T>(x);
                *reinterpret_cast<T*>(out + i * os + r * s[0]) = T(acc[r]);
              }
            }
          }
        },
        row_grain(len));
  });
}

// NaN is the largest value; ties are broken by position so the order is total.
template <class T>
bool sorts_before(T a, T b, bool descending) {
  if constexpr (std::is_floating_point_v<T>) {
    bool an = std::isnan(a), bn = std::isnan(b);
    if (an || bn) return descending ? (an && !bn) : (!an && bn);
  }
  return descending ? a > b : a < b;
}

template <class T>
struct Entry {
  T v;
  int64_t i;
};

}  // namespace

void cumsum(DType dt, const Loop& rows, int64_t len, int64_t out_step, int64_t in_step) {
  scan<false>(dt, rows, len, out_step, in_step);
}

void cumprod(DType dt, const Loop& rows, int64_t len, int64_t out_step, int64_t in_step) {
  scan<true>(dt, rows, len, out_step, in_step);
}

void cumprod_backward(DType dt, const Loop& rows, int64_t len, int64_t gs, int64_t xs,
                      int64_t ggs) {
  visit_floating(dt, [&]<class T>() {
    for_each_row(rows, len, [&](char** q) {
      // z: the first zero of x. Before it, out[j] = prod x[..j] is nonzero and
      // gx[k] = (sum_{k <= j < z} g[j] out[j]) / x[k]; every out[j >= z] is 0.
      int64_t z = 0;
      while (z < len && at<T>(q[1], z, xs) != T(0)) ++z;
      double p = 1, s = 0;
      for (int64_t j = 0; j < z; ++j) {
        p *= double(at<T>(q[1], j, xs));
        at<T>(q[0], j, gs) = T(double(at<T>(q[2], j, ggs)) * p);  // g[j] out[j], for now
      }
      for (int64_t k = z - 1; k >= 0; --k) {
        s += double(at<T>(q[0], k, gs));
        at<T>(q[0], k, gs) = T(s / double(at<T>(q[1], k, xs)));
      }
      if (z == len) return;
      // At the first zero: prod x[..z) * sum_{j >= z} g[j] prod_{z < i <= j} x[i];
      // past it every product holds two factors that include x[z] = 0 or more zeros.
      double acc = 0, r = 1;
      for (int64_t j = z; j < len; ++j) {
        if (j > z) r *= double(at<T>(q[1], j, xs));
        acc += double(at<T>(q[2], j, ggs)) * r;
      }
      at<T>(q[0], z, gs) = T(p * acc);
      for (int64_t k = z + 1; k < len; ++k) at<T>(q[0], k, gs) = T(0);
    });
  });
}

// A stable counting sort of one row of 1- or 2-byte integers (bool, uint8, int8, int16): one
// pass to count each value, one to place them, against std::sort's n log n comparisons (int8
// rows of 1M sorted 20x slower than torch's). `count` holds 2^(8 * sizeof(T)) slots.
template <class T>
void counting_sort_row(const char* in, int64_t is, int64_t len, bool descending, char* vals,
                       int64_t vs, char* idx, int64_t ids, std::vector<int64_t>& count) {
  constexpr int64_t kLowest = int64_t(std::numeric_limits<T>::lowest());
  const int64_t top = int64_t(count.size()) - 1;
  auto key = [&](T v) { return descending ? top - (int64_t(v) - kLowest) : int64_t(v) - kLowest; };
  std::fill(count.begin(), count.end(), 0);
  for (int64_t i = 0; i < len; ++i) ++count[size_t(key(*reinterpret_cast<const T*>(in + i * is)))];
  int64_t start = 0;
  for (int64_t& c : count) start += std::exchange(c, start);  // counts -> first positions
  for (int64_t i = 0; i < len; ++i) {
    const T v = *reinterpret_cast<const T*>(in + i * is);
    const int64_t at = count[size_t(key(v))]++;
    *reinterpret_cast<T*>(vals + at * vs) = v;
    *reinterpret_cast<int64_t*>(idx + at * ids) = i;
  }
}

void sort(DType dt, const Loop& rows, int64_t len, int64_t k, bool descending, int64_t vs,
          int64_t ids, int64_t is) {
  auto body = [&]<class T>() {
    // counting pays once a row is long against the 2^bits slots it clears
    constexpr bool kCountable = std::is_integral_v<T> && sizeof(T) <= 2;
    constexpr int64_t kSlots = kCountable ? int64_t(1) << (8 * sizeof(T)) : 0;
    const bool counting = kCountable && k == len && len >= kSlots / 4;
    parallel_for(0, rows.numel, row_grain(len), [&](int64_t b, int64_t e) {
      std::vector<Entry<T>> buf(counting ? 0 : static_cast<size_t>(len));
      std::vector<int64_t> count(counting ? size_t(kSlots) : 0);
      loop_range(rows, b, e, [&](char** p, const int64_t* s, int64_t n) {
        for (int64_t r = 0; r < n; ++r) {
          char* vals = p[0] + r * s[0];
          char* idx = p[1] + r * s[1];
          const char* in = p[2] + r * s[2];
          if constexpr (kCountable) {
            if (counting) {
              counting_sort_row<T>(in, is, len, descending, vals, vs, idx, ids, count);
              continue;
            }
          }
          for (int64_t i = 0; i < len; ++i)
            buf[size_t(i)] = {*reinterpret_cast<const T*>(in + i * is), i};
          auto before = [descending](const Entry<T>& x, const Entry<T>& y) {
            if (sorts_before(x.v, y.v, descending)) return true;
            if (sorts_before(y.v, x.v, descending)) return false;
            return x.i < y.i;  // equal: keep the original order
          };
          if (k < len) std::partial_sort(buf.begin(), buf.begin() + k, buf.end(), before);
          else std::sort(buf.begin(), buf.end(), before);  // total order: stable result
          for (int64_t i = 0; i < k; ++i) {
            *reinterpret_cast<T*>(vals + i * vs) = buf[size_t(i)].v;
            *reinterpret_cast<int64_t*>(idx + i * ids) = buf[size_t(i)].i;
          }
        }
      });
    });
  };
  // uint16/uint32/uint64 sort in unsigned order, as torch's sort (its topk refuses them: the
  // ops layer checks)
  if (is_wide_unsigned(dt)) return visit_wide_unsigned(dt, body);
  visit_dtype(dt, body);
}

}  // namespace ember::kernels
