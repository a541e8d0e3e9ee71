// max/min with indices and softmax: the second half of the kernels compiled once per
// instruction set (see reduce_impl.h, which must be included first: this file uses its
// helpers). Include it only from reduce.cpp and reduce_avx2.cpp.
#ifndef EMBER_REDUCE_ISA
#error "include reduce_impl.h (with EMBER_REDUCE_ISA defined) before arg_softmax_impl.h"
#endif

namespace ember::kernels::EMBER_REDUCE_ISA {
namespace {

// ---- max/min with indices -------------------------------------------------------------------

// x beats the best so far a, for an index search: a NaN is never beaten, so the first wins.
template <class T, bool IsMax>
bool beats_arg(T x, T a) {
  bool b = IsMax ? x > a : x < a;
  if constexpr (is_float_v<T>) b = b || (x != x && a == a);
  return b;
}

template <class T>
struct Best {
  T v;
  int64_t i;
};

// The first best element of a run: its value by the vectorized lane loop, then its index.
// The first index i < n with x[i * stride] == v (or NaN when v is NaN); contiguous runs
// test kLanes elements at a time with a branch-free (vectorized) any().
template <class T>
int64_t find_first(const T* x, int64_t n, int64_t stride, T v) {
  const bool nan = v != v;
  auto hit = [&](T e) { return nan ? e != e : e == v; };
  int64_t i = 0;
  if (stride == 1 && !nan) {
    using Flag = std::conditional_t<sizeof(T) == 8, uint64_t,
                                    std::conditional_t<sizeof(T) == 4, uint32_t, uint8_t>>;
    for (; i + kLanes <= n; i += kLanes) {
      Flag any = 0;
      for (int k = 0; k < kLanes; ++k) any |= Flag(x[i + k] == v);
      if (any) break;
    }
  }
  while (i < n - 1 && !hit(x[i * stride])) ++i;
  return i;
}

// The first best element of a run: its value by the vectorized lane loop, then its index.
template <class T, bool IsMax>
Best<T> arg_run(const T* x, int64_t n, int64_t stride, int64_t base) {
  const T v = reduce_run(ExtremeOp<T, IsMax>{}, x, n, stride, 0.0);
  const int64_t i = find_first(x, n, stride, v);
  return {x[i * stride], base + i};
}

// The best of the linear range [b, e) (non-empty) of one output's reduced index space.
template <class T, bool IsMax>
Best<T> arg_range(const ReduceShape& g, const T* x, int64_t b, int64_t e) {
  const int64_t rs = g.red_in.back();
  if (g.red.size() == 1) return arg_run<T, IsMax>(x + b * rs, e - b, rs, b);
  Best<T> best{T(0), -1};
  int64_t pos = b;
  for_runs(g.red, g.red_in, b, e, [&](int64_t off, int64_t n) {
    Best<T> r = arg_run<T, IsMax>(x + off, n, rs, pos);
    if (best.i < 0 || beats_arg<T, IsMax>(r.v, best.v)) best = r;
    pos += n;
  });
  return best;
}

template <class T, bool IsMax>
void arg_inner(const ReduceShape& g, const T* x, T* values, int64_t* indices) {
  const int64_t nr = g.num_red, no = g.num_out;
  auto store = [&](int64_t off, Best<T> b) {
    if (values) values[off] = b.v;
    indices[off] = b.i;
  };
  if (no == 1 && nr > 2 * kReduceBlock) {  // one long row: blocks in parallel, first best wins
    const int64_t nb = (nr + kReduceBlock - 1) / kReduceBlock;
    std::vector<Best<T>> part(static_cast<size_t>(nb));
    parallel_for(0, nb, 2, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b)
        part[b] = arg_range<T, IsMax>(g, x, b * kReduceBlock, std::min(nr, (b + 1) * kReduceBlock));
    });
    Best<T> best = part[0];
    for (int64_t b = 1; b < nb; ++b)
      if (beats_arg<T, IsMax>(part[b].v, best.v)) best = part[b];
    return store(kept_walker(g, 0).off1, best);
  }
  parallel_for(0, no, std::max<int64_t>(1, kGrain / nr), [&](int64_t o0, int64_t o1) {
    Walker w = kept_walker(g, o0);
    for (int64_t o = o0; o < o1; ++o, w.next())
      store(w.off1, arg_range<T, IsMax>(g, x + w.off0, 0, nr));
  });
}

template <class T, bool IsMax>
void arg_outer(const ReduceShape& g, const T* x, T* values, int64_t* indices) {
  const OuterPlan p = outer_plan(g);
  const int nko = int(g.kept.size()) - 1;
  const int64_t rs = g.red_in.back(), units = p.Ko * p.tiles;
  const T init = ExtremeOp<T, IsMax>{}.init();
  parallel_for(0, units, std::max<int64_t>(1, kGrain / (std::min(p.D, kTile) * g.num_red)),
               [&](int64_t u0, int64_t u1) {
                 T best[kTile];
                 int64_t idx[kTile];
                 for (int64_t u = u0; u < u1; ++u) {
                   const int64_t t = u % p.tiles, ko = u / p.tiles;
                   Walker w(g.kept.data(), g.kept_in.data(), g.kept_out.data(), nko, ko);
                   const int64_t j0 = t * kTile, wd = std::min(kTile, p.D - j0);
                   // The identity never beats a first element equal to it, so index 0 is then
                   // right.
                   for (int64_t j = 0; j < wd; ++j) best[j] = init, idx[j] = 0;
                   const T* base = x + w.off0 + j0 * p.ks;
                   int64_t pos = 0;
                   for_runs(g.red, g.red_in, 0, g.num_red, [&](int64_t off, int64_t n) {
                     for (int64_t k = 0; k < n; ++k, ++pos) {
                       const T* row = base + off + k * rs;
                       for (int64_t j = 0; j < wd; ++j) {
                         const T v = row[j * p.ks];
                         const bool b = beats_arg<T, IsMax>(v, best[j]);
                         best[j] = b ? v : best[j];
                         idx[j] = b ? pos : idx[j];
                       }
                     }
                   });
                   const int64_t out0 = w.off1 + j0 * p.kos;
                   for (int64_t j = 0; j < wd; ++j) {
                     if (values) values[out0 + j * p.kos] = best[j];
                     indices[out0 + j * p.kos] = idx[j];
                   }
                 }
               });
}

// ---- softmax ----------------------------------------------------------------------------------

// Softmax along contiguous rows of n: max, exp (kept in y) and its sum, then normalize.
template <class T>
void softmax_rows(const T* x, T* y, int64_t rows, int64_t n, bool log) {
  parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(n, 1)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   const T* xr = x + r * n;
                   T* yr = y + r * n;
                   const T m = reduce_run(ExtremeOp<T, true>{}, xr, n, 1, 0.0);
                   for (int64_t i = 0; i < n; ++i) yr[i] = exp_of(T(xr[i] - m));
                   const double s = reduce_run(SumOp<T, double>{}, yr, n, 1, 0.0);
                   if (log) {
                     const T ls = T(std::log(s));
                     for (int64_t i = 0; i < n; ++i) yr[i] = xr[i] - m - ls;
                   } else {
                     const T inv = T(1.0 / s);
                     for (int64_t i = 0; i < n; ++i) yr[i] *= inv;
                   }
                 }
               });
}

// Softmax along n with a stride of `inner`: a tile of columns moves through the rows together.
template <class T>
void softmax_cols(const T* x, T* y, int64_t outer, int64_t n, int64_t inner, bool log) {
  const int64_t tiles = (inner + kTile - 1) / kTile;
  const int64_t grain =
      std::max<int64_t>(1, kGrain / std::max<int64_t>(1, n * std::min(inner, kTile)));
  parallel_for(0, outer * tiles, grain, [&](int64_t u0, int64_t u1) {
    T m[kTile], f[kTile];
    double s[kTile];
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t o = u / tiles, j0 = (u % tiles) * kTile, wd = std::min(kTile, inner - j0);
      const T* xb = x + o * n * inner + j0;
      T* yb = y + o * n * inner + j0;
      for (int64_t j = 0; j < wd; ++j) m[j] = T(-INFINITY), s[j] = 0;
      for (int64_t r = 0; r < n; ++r)
        for (int64_t j = 0; j < wd; ++j)
          m[j] = pick(beats<T, true>(xb[r * inner + j], m[j]), xb[r * inner + j], m[j]);
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t j = 0; j < wd; ++j) {
          const T e = exp_of(T(xb[r * inner + j] - m[j]));
          yb[r * inner + j] = e;
          s[j] += double(e);
        }
      }
      for (int64_t j = 0; j < wd; ++j) f[j] = log ? T(std::log(s[j])) : T(1.0 / s[j]);
      for (int64_t r = 0; r < n; ++r) {
        const T* xr = xb + r * inner;
        T* yr = yb + r * inner;
        if (log)
          for (int64_t j = 0; j < wd; ++j) yr[j] = xr[j] - m[j] - f[j];
        else
          for (int64_t j = 0; j < wd; ++j) yr[j] *= f[j];
      }
    }
  });
}

// The backward of softmax_rows: one row's sum (in double, as the forward's), then one pass.
template <class T>
void softmax_backward_rows(const T* g, const T* y, T* gx, int64_t rows, int64_t n, bool log) {
  parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(n, 1)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   const T* gr = g + r * n;
                   const T* yr = y + r * n;
                   T* o = gx + r * n;
                   if (log) {
                     const T s = T(reduce_run(SumOp<T, double>{}, gr, n, 1, 0.0));
                     for (int64_t i = 0; i < n; ++i) o[i] = gr[i] - exp_of(yr[i]) * s;
                   } else {
                     for (int64_t i = 0; i < n; ++i) o[i] = gr[i] * yr[i];  // g * y, summed next
                     const T s = T(reduce_run(SumOp<T, double>{}, o, n, 1, 0.0));
                     for (int64_t i = 0; i < n; ++i) o[i] = yr[i] * (gr[i] - s);
                   }
                 }
               });
}

}  // namespace

void softmax_backward(DType dt, const char* g, const char* y, char* gx, int64_t rows, int64_t n,
                      bool log) {
  if (rows * n == 0) return;
  visit_floating(dt, [&]<class T>() {
    softmax_backward_rows(reinterpret_cast<const T*>(g), reinterpret_cast<const T*>(y),
                          reinterpret_cast<T*>(gx), rows, n, log);
  });
}

void arg_reduce(bool is_max, DType dt, const ReduceShape& g, const char* in, char* values,
                int64_t* indices) {
  if (g.num_out == 0) return;
  visit_dtype(dt, [&]<class T>() {
    auto* x = reinterpret_cast<const T*>(in);
    auto* v = reinterpret_cast<T*>(values);
    const bool outer = use_outer(g);
    if (is_max) outer ? arg_outer<T, true>(g, x, v, indices) : arg_inner<T, true>(g, x, v, indices);
    else outer ? arg_outer<T, false>(g, x, v, indices) : arg_inner<T, false>(g, x, v, indices);
  });
}

void softmax(DType dt, const char* in, char* out, int64_t outer, int64_t n, int64_t inner,
             bool log) {
  if (outer * n * inner == 0) return;
  visit_floating(dt, [&]<class T>() {
    auto* x = reinterpret_cast<const T*>(in);
    auto* y = reinterpret_cast<T*>(out);
    if (inner == 1) softmax_rows(x, y, outer, n, log);
    else softmax_cols(x, y, outer, n, inner, log);
  });
}

}  // namespace ember::kernels::EMBER_REDUCE_ISA
