// The value reductions, compiled once per instruction set: reduce.cpp includes this file
// (and arg_softmax_impl.h) for the baseline ISA as namespace `generic`, reduce_avx2.cpp again
// under `#pragma GCC target("avx2,fma")` as namespace `avx2`; reduce.cpp picks one at run
// time. Everything here has internal linkage or lives in the ISA-named namespace, so the two
// copies never merge at link time. Include it only from those two files.
//
// Every value reduction is an "op" (init, step, combine, finalize) run by one of two
// drivers, chosen by where the smallest input stride lies:
//   inner: the reduced elements of one output are a (contiguous) row: a lane loop the
//          compiler vectorizes, one output after another, long rows cut into fixed blocks,
//          many short rows (up to 128) blocked across rows (reduce_short_rows.h);
//   outer: the smallest stride is a kept dim: whole rows of the input are accumulated
//          into a tile of output-sized accumulators, vectorized along the kept dim.
// Both take strides, so any layout works; contiguous runs get the vectorized loops.
// See Note [Deterministic reductions] and Note [Reduction accumulators] in reduce.h.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/reduce.h"

#ifndef EMBER_REDUCE_ISA
#error "define EMBER_REDUCE_ISA (the namespace of this copy) before including reduce_impl.h"
#endif

namespace ember::kernels::EMBER_REDUCE_ISA {
namespace {

// Stride 0 (a broadcast dim) counts as the largest, as in ReduceShape.
int64_t stride_key(int64_t s) {
  return s == 0 ? std::numeric_limits<int64_t>::max() : s < 0 ? -s : s;
}

// Walks a multi-dim index space in order, tracking the offsets under two stride sets.
struct Walker {
  const int64_t *size, *s0, *s1;
  int nd;
  int64_t idx[64];
  int64_t off0 = 0, off1 = 0;
  Walker(const int64_t* sizes, const int64_t* st0, const int64_t* st1, int ndim, int64_t start)
      : size(sizes), s0(st0), s1(st1), nd(ndim) {
    for (int d = nd - 1; d >= 0; --d) {
      idx[d] = start % size[d];
      start /= size[d];
      off0 += idx[d] * s0[d];
      off1 += idx[d] * s1[d];
    }
  }
  void next() {
    for (int d = nd - 1; d >= 0; --d) {
      off0 += s0[d];
      off1 += s1[d];
      if (++idx[d] < size[d]) return;
      off0 -= s0[d] * size[d];
      off1 -= s1[d] * size[d];
      idx[d] = 0;
    }
  }
};

// Calls f(offset, n) for each run along the innermost dim of the linear range [begin, end)
// of an index space (sizes, strides).
template <class F>
void for_runs(const Dims& sizes, const Dims& strides, int64_t begin, int64_t end, F&& f) {
  if (begin >= end) return;
  const int nd = int(sizes.size());
  const int64_t inner = sizes[nd - 1], istride = strides[nd - 1];
  int64_t idx[64], off = 0, rem = begin;
  for (int d = nd - 1; d >= 0; --d) {
    idx[d] = rem % sizes[d];
    rem /= sizes[d];
    off += idx[d] * strides[d];
  }
  for (int64_t pos = begin;;) {
    int64_t n = std::min(inner - idx[nd - 1], end - pos);
    f(off, n);
    pos += n;
    if (pos >= end) return;
    off -= idx[nd - 1] * istride;
    idx[nd - 1] = 0;
    for (int d = nd - 2; d >= 0; --d) {
      off += strides[d];
      if (++idx[d] < sizes[d]) break;
      off -= strides[d] * sizes[d];
      idx[d] = 0;
    }
  }
}

// ---- ops ------------------------------------------------------------------------------------
// An op has In, Acc and Out types; Fast, the accumulator of short chunks (float for float32
// sums: see reduce_run); kCenter (step/finalize take a per-output value c: the mean for var,
// the max for logsumexp); kSelect when step is a select (max/min, see reduce_run); init(),
// step(acc, x, c) for an accumulator of type Acc or Fast, combine(acc, acc), finalize(acc, c).

template <class T>
constexpr bool is_float_v = std::is_floating_point_v<T>;
template <class T>
using wide_t = std::conditional_t<is_float_v<T>, double, uint64_t>;  // integers wrap
template <class T>
using sum_out_t = std::conditional_t<is_float_v<T>, T, int64_t>;

#include "kernels/cpu/branchless.h"  // pick, exp_f, exp_of: this ISA's own copies

template <class T, class O = sum_out_t<T>>
struct SumOp {
  using In = T;
  using Acc = wide_t<T>;
  using Out = O;
  using Fast = std::conditional_t<std::is_same_v<T, float>, float, Acc>;
  static constexpr bool kCenter = false;
  double divisor = 1;  // mean: the number of reduced elements
  Acc init() const { return Acc(0); }
  template <class A>
  A step(A a, T x, A) const {
    return a + A(x);
  }
  Acc combine(Acc a, Acc b) const { return a + b; }
  O finalize(Acc a, double) const {
    if constexpr (is_float_v<T>) return O(a / divisor);
    else return O(int64_t(a));
  }
};

template <class T>
struct ProdOp {
  using In = T;
  using Acc = wide_t<T>;
  using Fast = Acc;
  using Out = sum_out_t<T>;
  static constexpr bool kCenter = false;
  Acc init() const { return Acc(1); }
  template <class A>
  A step(A a, T x, A) const {
    return a * A(x);
  }
  Acc combine(Acc a, Acc b) const { return a * b; }
  Out finalize(Acc a, double) const {
    if constexpr (is_float_v<T>) return Out(a);
    else return Out(int64_t(a));
  }
};

// x beats the best so far a (NaN beats everything, as in PyTorch). Bitwise | keeps it
// branch-free, so the lane loops vectorize.
template <class T, bool IsMax>
bool beats(T x, T a) {
  if constexpr (is_float_v<T>) return (IsMax ? x > a : x < a) | (x != x);
  else return IsMax ? x > a : x < a;
}

template <class T, bool IsMax, class O = T>
struct ExtremeOp {
  using In = T;
  using Acc = T;
  using Fast = T;
  using Out = O;
  static constexpr bool kCenter = false;
  T init() const {
    if constexpr (is_float_v<T>) return IsMax ? -INFINITY : INFINITY;
    else return IsMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  static constexpr bool kSelect = true;
  T step(T a, T x, T) const { return pick(beats<T, IsMax>(x, a), x, a); }
  // The step for inputs known not to be NaN: a plain compare that compiles to maxps/minps.
  T plain(T a, T x) const {
    if constexpr (IsMax) return x > a ? x : a;
    else return x < a ? x : a;
  }
  T combine(T a, T b) const { return step(a, b, a); }
  O finalize(T a, double) const { return O(a); }
};

// logsumexp's first pass: the max, as a shift that is 0 when the max is infinite (so an
// all -inf row gives log(0) = -inf and a row with +inf gives +inf, not inf - inf).
template <class T>
struct ShiftOp : ExtremeOp<T, true, double> {
  double finalize(T a, double) const { return std::isinf(a) ? 0.0 : double(a); }
};

template <class T, bool IsAll>
struct LogicalOp {
  using In = T;
  using Acc = bool;
  using Fast = bool;
  using Out = std::conditional_t<std::is_same_v<T, uint8_t>, uint8_t, bool>;
  static constexpr bool kCenter = false;
  bool init() const { return IsAll; }
  bool step(bool a, T x, bool) const { return IsAll ? a & (x != T(0)) : a | (x != T(0)); }
  bool combine(bool a, bool b) const { return IsAll ? a & b : a | b; }
  Out finalize(bool a, double) const { return Out(a); }
};

enum class NormKind { Two, One, Zero, Pow };

template <class T, NormKind K>
struct NormOp {
  using In = T;
  using Acc = double;
  using Out = T;
  using Fast = std::conditional_t<K == NormKind::Pow, double, T>;
  static constexpr bool kCenter = false;
  double p = 2;
  double init() const { return 0; }
  template <class A>
  A step(A a, T x, A) const {
    const A v = A(x);
    if constexpr (K == NormKind::Two) return a + v * v;
    else if constexpr (K == NormKind::One) return a + std::fabs(v);
    else if constexpr (K == NormKind::Zero) return a + A(x != T(0));
    else return a + std::pow(std::fabs(v), A(p));
  }
  double combine(double a, double b) const { return a + b; }
  T finalize(double a, double) const {
    if constexpr (K == NormKind::Two) return T(std::sqrt(a));
    else if constexpr (K == NormKind::Pow) return T(std::pow(a, 1.0 / p));
    else return T(a);
  }
};

// The inf / -inf norms: the largest / smallest |x|.
template <class T, bool IsMax>
struct AbsExtremeOp : ExtremeOp<T, IsMax> {
  T init() const { return IsMax ? T(0) : T(INFINITY); }
  T step(T a, T x, T) const { return ExtremeOp<T, IsMax>::step(a, std::fabs(x), a); }
  T plain(T a, T x) const { return ExtremeOp<T, IsMax>::plain(a, std::fabs(x)); }
  T combine(T a, T b) const { return ExtremeOp<T, IsMax>::step(a, b, a); }
};

// var's second pass: sum of squared deviations from the mean c.
template <class T>
struct SqDevOp {
  using In = T;
  using Acc = double;
  using Fast = T;
  using Out = T;
  static constexpr bool kCenter = true;
  double divisor = 1;
  bool take_sqrt = false;
  double init() const { return 0; }
  template <class A>
  A step(A a, T x, A c) const {
    const A d = A(x) - c;
    return a + d * d;
  }
  double combine(double a, double b) const { return a + b; }
  T finalize(double a, double) const {
    double v = a / divisor;
    return T(take_sqrt ? std::sqrt(v) : v);
  }
};

// logsumexp's second pass: log(sum exp(x - c)) + c, exp in the input's precision.
template <class T>
struct SumExpOp {
  using In = T;
  using Acc = double;
  using Fast = T;
  using Out = T;
  static constexpr bool kCenter = true;
  double init() const { return 0; }
  template <class A>
  A step(A a, T x, A c) const {
    return a + A(exp_of(T(A(x) - c)));
  }
  double combine(double a, double b) const { return a + b; }
  T finalize(double a, double c) const { return T(std::log(a) + c); }
};

// ---- the inner driver: one row (or several) per output --------------------------------------

constexpr int kLanes = 16;
constexpr int64_t kChunk = 256;  // elements per Fast chunk: 16 per lane

// Reduces n elements x[0], x[stride], ... Long runs use kLanes independent accumulators
// (vectorized, and more accurate than one running sum), combined pairwise at the end.
// When the op's Fast type is narrower than Acc (float32 sums), each chunk of kChunk
// elements first sums in Fast lanes (16 elements per lane, at full float SIMD width), then
// flushes into the Acc (double) lanes: the error stays that of ~16 float additions per
// element however long the run, at the speed of a float sum.
template <class Op>
constexpr bool is_select_v = requires {
  Op::kSelect;
};

// max/min over the leading multiple of kLanes elements of x, into lane[] (which holds the
// lanes so far); returns how many elements it took. GCC vectorizes a select reduction only
// as a loop over the lanes with the rows of kLanes elements inside, and only a plain compare
// fast (maxps): NaNs are flagged on the side and restored at the end, so NaN still wins.
// Kept out of line: inlined into reduce_run, GCC scalarizes the lanes and gives up.
template <class Op>
[[gnu::noinline]] int64_t select_lanes(const Op& op, const typename Op::In* x, int64_t n,
                                       typename Op::Acc* lane) {
  using Acc = typename Op::Acc;
  // NaN flags as wide as the values: mixed widths in one loop stop the vectorizer
  using Flag = std::conditional_t<sizeof(Acc) == 8, uint64_t,
                                  std::conditional_t<sizeof(Acc) == 4, uint32_t, uint8_t>>;
  constexpr int64_t kRows = 4;
  Acc a[kLanes];
  Flag nan[kLanes] = {};
  for (int k = 0; k < kLanes; ++k) a[k] = lane[k];
  int64_t i = 0;
  for (; i + kLanes * kRows <= n; i += kLanes * kRows)
    for (int k = 0; k < kLanes; ++k) {
      Acc v = a[k];
      Flag q = nan[k];
      for (int64_t j = 0; j < kRows; ++j) {
        const typename Op::In e = x[i + j * kLanes + k];
        v = op.plain(v, e);
        q |= Flag(e != e);
      }
      a[k] = v;
      nan[k] = q;
    }
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) {
      const typename Op::In e = x[i + k];
      a[k] = op.plain(a[k], e);
      nan[k] |= Flag(e != e);
    }
  for (int k = 0; k < kLanes; ++k) lane[k] = nan[k] ? Acc(NAN) : a[k];
  return i;
}

template <class Op>
typename Op::Acc reduce_run(const Op& op, const typename Op::In* x, int64_t n, int64_t stride,
                            double c) {
  using Acc = typename Op::Acc;
  using Fast = typename Op::Fast;
  const Acc ca = Acc(c);
  if (n < kLanes) {
    Acc a = op.init();
    for (int64_t i = 0; i < n; ++i) a = op.step(a, x[i * stride], ca);
    return a;
  }
  Acc lane[kLanes];
  for (int k = 0; k < kLanes; ++k) lane[k] = op.init();
  int64_t i = 0;
  if constexpr (!std::is_same_v<Fast, Acc>) {
    const Fast cf = Fast(c);
    while (i + kLanes <= n) {
      const int64_t len = std::min(kChunk, (n - i) / kLanes * kLanes);
      Fast f[kLanes];
      for (int k = 0; k < kLanes; ++k) f[k] = Fast(op.init());
      const typename Op::In* xc = x + i * stride;
      if (stride == 1) {
        for (int64_t j = 0; j < len; j += kLanes)
          for (int k = 0; k < kLanes; ++k) f[k] = op.step(f[k], xc[j + k], cf);
      } else {
        for (int64_t j = 0; j < len; j += kLanes)
          for (int k = 0; k < kLanes; ++k) f[k] = op.step(f[k], xc[(j + k) * stride], cf);
      }
      for (int k = 0; k < kLanes; ++k) lane[k] = op.combine(lane[k], Acc(f[k]));
      i += len;
    }
  } else if constexpr (is_select_v<Op>) {
    if (stride == 1) i = select_lanes(op, x, n, lane);
  }
  if (stride == 1) {
    for (; i + kLanes <= n; i += kLanes)
      for (int k = 0; k < kLanes; ++k) lane[k] = op.step(lane[k], x[i + k], ca);
  } else {
    for (; i + kLanes <= n; i += kLanes)
      for (int k = 0; k < kLanes; ++k) lane[k] = op.step(lane[k], x[(i + k) * stride], ca);
  }
  for (int k = 0; i < n; ++i, ++k) lane[k] = op.step(lane[k], x[i * stride], ca);
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int k = 0; k < w; ++k) lane[k] = op.combine(lane[k], lane[k + w]);
  return lane[0];
}

// Reduces the linear range [b, e) of one output's reduced index space.
template <class Op>
typename Op::Acc reduce_range(const Op& op, const ReduceShape& g, const typename Op::In* x,
                              int64_t b, int64_t e, double c) {
  const int64_t rs = g.red_in.back();
  if (g.red.size() == 1) return reduce_run(op, x + b * rs, e - b, rs, c);  // one run: no index math
  typename Op::Acc a = op.init();
  for_runs(g.red, g.red_in, b, e,
           [&](int64_t off, int64_t n) { a = op.combine(a, reduce_run(op, x + off, n, rs, c)); });
  return a;
}

Walker kept_walker(const ReduceShape& g, int64_t start) {
  return Walker(g.kept.data(), g.kept_in.data(), g.kept_out.data(), int(g.kept.size()), start);
}

#include "kernels/cpu/reduce_short_rows.h"  // short_rows, reduce_short_rows

template <class Op>
void reduce_inner(const Op& op, const ReduceShape& g, const typename Op::In* x, typename Op::Out* y,
                  const double* center) {
  using Acc = typename Op::Acc;
  if (short_rows(g)) return reduce_short_rows(op, g, x, y, center);
  const int64_t nr = g.num_red, no = g.num_out;
  const int64_t nb = std::max<int64_t>(1, (nr + kReduceBlock - 1) / kReduceBlock);
  auto center_at = [center](int64_t off) { return Op::kCenter ? center[off] : 0.0; };
  if (nb == 1) {
    int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(nr, 1));
    parallel_for(0, no, grain, [&](int64_t o0, int64_t o1) {
      Walker w = kept_walker(g, o0);
      for (int64_t o = o0; o < o1; ++o, w.next()) {
        double c = center_at(w.off1);
        y[w.off1] = op.finalize(reduce_range(op, g, x + w.off0, 0, nr, c), c);
      }
    });
    return;
  }
  // Long rows: fixed blocks, reduced in parallel, combined per output in block order.
  std::unique_ptr<Acc[]> part(new Acc[size_t(no * nb)]);
  parallel_for(0, no * nb, 2, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      int64_t o = i / nb, blk = i % nb;
      Walker w = kept_walker(g, o);
      part[i] = reduce_range(op, g, x + w.off0, blk * kReduceBlock,
                             std::min(nr, (blk + 1) * kReduceBlock), center_at(w.off1));
    }
  });
  Walker w = kept_walker(g, 0);
  for (int64_t o = 0; o < no; ++o, w.next()) {
    Acc a = op.init();
    for (int64_t blk = 0; blk < nb; ++blk) a = op.combine(a, part[o * nb + blk]);
    y[w.off1] = op.finalize(a, center_at(w.off1));
  }
}

// ---- the outer driver: rows accumulated into a tile of outputs --------------------------------

constexpr int64_t kTile = 1024;        // outputs accumulated together (a few KB: stays in L1)
constexpr int64_t kFewOutputs = 1024;  // below this, split the reduced dims instead
constexpr int64_t kMaxRowBlocks = 64;

// The kept dims split as (outer..., inner): the innermost kept dim is the vectorized one.
struct OuterPlan {
  int64_t D, ks, kos, Ko, tiles, nrb, rb;
};

OuterPlan outer_plan(const ReduceShape& g) {
  OuterPlan p;
  p.D = g.kept.back();
  p.ks = g.kept_in.back();
  p.kos = g.kept_out.back();
  p.Ko = g.num_out / p.D;
  p.tiles = (p.D + kTile - 1) / kTile;
  // Few outputs and many rows: split the rows into a fixed number of blocks (sizes only,
  // never the thread count, decide it) so the work can spread over threads.
  p.nrb = 1;
  if (g.num_out < kFewOutputs && g.num_red * g.num_out > kReduceBlock)
    p.nrb = std::min(kMaxRowBlocks, g.num_red * g.num_out / kReduceBlock);
  p.rb = std::max<int64_t>(1, (g.num_red + p.nrb - 1) / p.nrb);
  p.nrb = std::max<int64_t>(1, (g.num_red + p.rb - 1) / p.rb);
  return p;
}

template <class Op, class A, class C>
void accumulate_row(const Op& op, A* acc, const typename Op::In* row, int64_t w, int64_t ks,
                    const C* c) {
  if constexpr (Op::kCenter) {
    if (ks == 1)
      for (int64_t j = 0; j < w; ++j) acc[j] = op.step(acc[j], row[j], A(c[j]));
    else
      for (int64_t j = 0; j < w; ++j) acc[j] = op.step(acc[j], row[j * ks], A(c[j]));
  } else {
    if (ks == 1)
      for (int64_t j = 0; j < w; ++j) acc[j] = op.step(acc[j], row[j], A{});
    else
      for (int64_t j = 0; j < w; ++j) acc[j] = op.step(acc[j], row[j * ks], A{});
  }
}

// Narrow contiguous rows that follow each other in memory (rs == wd, ks == 1) are taken
// m at a time as one wide row of m * wd accumulators, so the inner loop stays long; this is
// the accumulator width to use (m * wd, or wd), and fold_wide adds the m copies at the end.
int64_t wide_width(int64_t wd, int64_t ks, int64_t rs) {
  return wd * 2 <= kTile && ks == 1 && rs == wd ? (kTile / wd) * wd : wd;
}

// Four rows at p, p + rs, p + 2 rs, p + 3 rs in one pass over acc: the same steps in the
// same order as four accumulate_row calls, with a quarter of the accumulator traffic.
template <class Op, class A, class C>
void accumulate_row4(const Op& op, A* acc, const typename Op::In* p, int64_t rs, int64_t w,
                     int64_t ks, const C* c) {
  for (int64_t j = 0; j < w; ++j) {
    const A cj = Op::kCenter ? A(c[j]) : A{};
    const typename Op::In* q = p + j * ks;
    A a = acc[j];
    a = op.step(a, q[0], cj);
    a = op.step(a, q[rs], cj);
    a = op.step(a, q[2 * rs], cj);
    a = op.step(a, q[3 * rs], cj);
    acc[j] = a;
  }
}

// Accumulates n rows (row stride rs, wd elements each) into acc[0, width): as rows of
// `width` made of width / wd consecutive rows when wide, four of those per pass.
template <class Op, class A, class C>
void accumulate_rows_in(const Op& op, A* acc, const typename Op::In* rows, int64_t n, int64_t rs,
                        int64_t wd, int64_t width, int64_t ks, const C* c) {
  const int64_t m = width / wd, srs = rs * m, nsup = n / m;
  int64_t s = 0;
  for (; s + 4 <= nsup; s += 4) accumulate_row4(op, acc, rows + s * srs, srs, width, ks, c);
  for (; s < nsup; ++s) accumulate_row(op, acc, rows + s * srs, width, ks, c);
  for (int64_t k = nsup * m; k < n; ++k) accumulate_row(op, acc, rows + k * rs, wd, ks, c);
}

// Accumulates the n rows at `rows` (row stride rs) into acc[0, width). As in reduce_run, an
// op with a narrower Fast type sums groups of rows in a Fast tile (16 rows per element)
// that is then flushed into the Acc tile. Fewer rows than one wide row holds touch only
// acc[0, wd) (the other slots would add init values: identities).
template <class Op>
void accumulate_rows(const Op& op, typename Op::Acc* acc, const typename Op::In* rows, int64_t n,
                     int64_t rs, int64_t wd, int64_t width, int64_t ks, const double* c) {
  using Acc = typename Op::Acc;
  using Fast = typename Op::Fast;
  if constexpr (std::is_same_v<Fast, Acc>) {
    accumulate_rows_in(op, acc, rows, n, rs, wd, width, ks, c);
  } else {
    Fast f[kTile], cf[kTile];
    const int64_t used = n >= width / wd ? width : wd;
    if constexpr (Op::kCenter)
      for (int64_t j = 0; j < used; ++j) cf[j] = Fast(c[j]);
    const int64_t group = (width / wd) * 16;
    for (int64_t k0 = 0; k0 < n; k0 += group) {
      for (int64_t j = 0; j < used; ++j) f[j] = Fast(op.init());
      accumulate_rows_in(op, f, rows + k0 * rs, std::min(group, n - k0), rs, wd, width, ks, cf);
      for (int64_t j = 0; j < used; ++j) acc[j] = op.combine(acc[j], Acc(f[j]));
    }
  }
}

template <class Op>
void fold_wide(const Op& op, typename Op::Acc* acc, int64_t wd, int64_t width) {
  for (int64_t t = wd; t < width; t += wd)
    for (int64_t j = 0; j < wd; ++j) acc[j] = op.combine(acc[j], acc[t + j]);
}

template <class Op>
void reduce_outer(const Op& op, const ReduceShape& g, const typename Op::In* x, typename Op::Out* y,
                  const double* center) {
  using Acc = typename Op::Acc;
  const OuterPlan p = outer_plan(g);
  const int nko = int(g.kept.size()) - 1;
  const int64_t nr = g.num_red, rs = g.red_in.back();
  const int64_t units = p.Ko * p.tiles * p.nrb;
  std::unique_ptr<Acc[]> part(p.nrb > 1 ? new Acc[size_t(units * kTile)] : nullptr);
  const int64_t grain =
      std::max<int64_t>(1, kGrain / std::max<int64_t>(1, std::min(p.D, kTile) * p.rb));
  parallel_for(0, units, grain, [&](int64_t u0, int64_t u1) {
    Acc acc[kTile];
    double c[kTile];
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t blk = u % p.nrb, t = (u / p.nrb) % p.tiles, ko = u / (p.nrb * p.tiles);
      Walker w(g.kept.data(), g.kept_in.data(), g.kept_out.data(), nko, ko);
      const int64_t j0 = t * kTile, wd = std::min(kTile, p.D - j0);
      const int64_t out0 = w.off1 + j0 * p.kos;
      const int64_t width = wide_width(wd, p.ks, rs);
      // A unit of fewer rows than one wide row holds uses acc[0, wd) only (the rest would
      // stay init values, identities of combine): no init and fold of a 1024-wide tile for
      // two rows of 16 (a (6000, 2, 16) sum over dim 1 was 38x torch's time).
      const int64_t rows = std::min(nr, (blk + 1) * p.rb) - blk * p.rb;
      const int64_t used = rows >= width / wd ? width : wd;
      for (int64_t j = 0; j < used; ++j) acc[j] = op.init();
      if constexpr (Op::kCenter)
        for (int64_t j = 0; j < used; ++j) c[j] = center[out0 + (j % wd) * p.kos];
      const typename Op::In* base = x + w.off0 + j0 * p.ks;
      for_runs(g.red, g.red_in, blk * p.rb, std::min(nr, (blk + 1) * p.rb),
               [&](int64_t off, int64_t n) {
                 accumulate_rows(op, acc, base + off, n, rs, wd, width, p.ks, c);
               });
      fold_wide(op, acc, wd, used);
      if (p.nrb > 1) {
        std::copy(acc, acc + wd, part.get() + u * kTile);
      } else {
        for (int64_t j = 0; j < wd; ++j)
          y[out0 + j * p.kos] = op.finalize(acc[j], Op::kCenter ? c[j] : 0.0);
      }
    }
  });
  if (p.nrb == 1) return;
  for (int64_t v = 0; v < p.Ko * p.tiles; ++v) {  // combine the row blocks in order
    const int64_t t = v % p.tiles, ko = v / p.tiles;
    Walker w(g.kept.data(), g.kept_in.data(), g.kept_out.data(), nko, ko);
    const int64_t j0 = t * kTile, wd = std::min(kTile, p.D - j0);
    Acc* a = part.get() + v * p.nrb * kTile;  // block 0's partials, then add blocks 1, 2, ...
    for (int64_t blk = 1; blk < p.nrb; ++blk) {
      const Acc* b = a + blk * kTile;
      for (int64_t j = 0; j < wd; ++j) a[j] = op.combine(a[j], b[j]);
    }
    for (int64_t j = 0; j < wd; ++j) {
      const int64_t off = w.off1 + (j0 + j) * p.kos;
      y[off] = op.finalize(a[j], Op::kCenter ? center[off] : 0.0);
    }
  }
}

// The outer driver wins when the smallest stride belongs to a kept dim.
bool use_outer(const ReduceShape& g) {
  return g.num_out > 1 && g.kept.back() > 1 &&
         (g.num_red == 1 || stride_key(g.kept_in.back()) < stride_key(g.red_in.back()));
}

template <class Op>
void run(const Op& op, const ReduceShape& g, const char* in, void* out,
         const double* center = nullptr) {
  if (g.num_out == 0) return;
  auto* x = reinterpret_cast<const typename Op::In*>(in);
  auto* y = static_cast<typename Op::Out*>(out);
  if (use_outer(g)) reduce_outer(op, g, x, y, center);
  else reduce_inner(op, g, x, y, center);
}

template <class T>
void run_norm(double p, const ReduceShape& g, const char* in, char* out) {
  if (p == 2) return run(NormOp<T, NormKind::Two>{}, g, in, out);
  if (p == 1) return run(NormOp<T, NormKind::One>{}, g, in, out);
  if (p == 0) return run(NormOp<T, NormKind::Zero>{}, g, in, out);
  if (std::isinf(p) && p > 0) return run(AbsExtremeOp<T, true>{}, g, in, out);
  if (std::isinf(p)) return run(AbsExtremeOp<T, false>{}, g, in, out);
  run(NormOp<T, NormKind::Pow>{p}, g, in, out);
}

// Two passes: first a per-output center (the mean, or the max), then the reduction around it.
template <class T>
void run_var(bool take_sqrt, double correction, const ReduceShape& g, const char* in, char* out) {
  std::vector<double> mean(size_t(g.num_out));
  const double n = double(g.num_red);
  run(SumOp<T, double>{n}, g, in, mean.data());
  run(SqDevOp<T>{std::max(0.0, n - correction), take_sqrt}, g, in, out, mean.data());
}

template <class T>
void run_logsumexp(const ReduceShape& g, const char* in, char* out) {
  std::vector<double> shift(size_t(g.num_out));
  run(ShiftOp<T>{}, g, in, shift.data());
  run(SumExpOp<T>{}, g, in, out, shift.data());
}

}  // namespace

void reduce(ReduceOp op, DType dt, const ReduceShape& g, const char* in, char* out,
            const ReduceArgs& args) {
  visit_dtype(dt, [&]<class T>() {
    switch (op) {
      case ReduceOp::Sum: return run(SumOp<T>{}, g, in, out);
      case ReduceOp::Prod: return run(ProdOp<T>{}, g, in, out);
      case ReduceOp::Max: return run(ExtremeOp<T, true>{}, g, in, out);
      case ReduceOp::Min: return run(ExtremeOp<T, false>{}, g, in, out);
      case ReduceOp::All: return run(LogicalOp<T, true>{}, g, in, out);
      case ReduceOp::Any: return run(LogicalOp<T, false>{}, g, in, out);
      default: break;
    }
    if constexpr (is_float_v<T>) {  // the ops layer sends only floating inputs here
      switch (op) {
        case ReduceOp::Mean: return run(SumOp<T, T>{double(g.num_red)}, g, in, out);
        case ReduceOp::Norm: return run_norm<T>(args.p, g, in, out);
        case ReduceOp::Var: return run_var<T>(false, args.correction, g, in, out);
        case ReduceOp::Std: return run_var<T>(true, args.correction, g, in, out);
        case ReduceOp::LogSumExp: return run_logsumexp<T>(g, in, out);
        default: break;
      }
    }
  });
}

// The fused-reduction path (reduce.h: sum_block): one long-row block, as reduce_inner.
double sum_block(DType dt, const char* in, int64_t n) {
  double r = 0;
  visit_dtype(dt, [&]<class T>() {
    if constexpr (is_float_v<T>)
      r = reduce_run(SumOp<T>{}, reinterpret_cast<const T*>(in), n, 1, 0.0);
  });
  return r;
}

}  // namespace ember::kernels::EMBER_REDUCE_ISA
