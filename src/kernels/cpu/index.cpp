// Indexing kernels (Note [Index loop] in index.h). The walk over an IndexLoop hands
// runs of the innermost dim to run<Op>, which has three paths: indices constant along
// the run (a strided or memcpy block copy, e.g. the rows of x[idx]), one index operand
// (the common case, a tight loop), and any number of index operands. A get checks the
// range as it copies (a bad index reads element 0 and is reported); a put is checked by
// the caller before it runs, so that nothing is written on error.
#include "kernels/cpu/index.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace ember::kernels {
namespace {

constexpr int kMaxIdx = 64;  // one index operand per dim at most

int64_t load_index(const char* p) {
  int64_t i;
  std::memcpy(&i, p, sizeof i);
  return i;
}

// An IndexLoop's strides with size-1 dims dropped and neighbouring dims merged when
// their strides chain for every operand (what Loop does for elementwise ops).
struct Walk {
  Dims shape, ds, vs;
  std::vector<Dims> is;
};

Walk coalesce(const IndexLoop& L) {
  const size_t m = L.idx.size();
  Walk w;
  w.is.resize(m);
  for (size_t d = 0; d < L.shape.size(); ++d) {
    const int64_t n = L.shape[d];
    if (n == 1) continue;
    bool merge = !w.shape.empty();
    const size_t last = merge ? w.shape.size() - 1 : 0;
    merge = merge && w.ds[last] == L.data_strides[d] * n && w.vs[last] == L.vals_strides[d] * n;
    for (size_t k = 0; k < m && merge; ++k) merge = w.is[k][last] == L.idx[k].strides[d] * n;
    if (merge) {
      w.shape[last] *= n;
      w.ds[last] = L.data_strides[d];
      w.vs[last] = L.vals_strides[d];
      for (size_t k = 0; k < m; ++k) w.is[k][last] = L.idx[k].strides[d];
      continue;
    }
    w.shape.push_back(n);
    w.ds.push_back(L.data_strides[d]);
    w.vs.push_back(L.vals_strides[d]);
    for (size_t k = 0; k < m; ++k) w.is[k].push_back(L.idx[k].strides[d]);
  }
  if (w.shape.empty()) {
    w.shape.push_back(1);
    w.ds.push_back(0);
    w.vs.push_back(0);
    for (size_t k = 0; k < m; ++k) w.is[k].push_back(0);
  }
  return w;
}

// A run of the innermost dim: base pointers and byte strides along it.
struct Run {
  char* d;
  int64_t ds;
  char* v;
  int64_t vs;
  const char* ip[kMaxIdx];
  int64_t is[kMaxIdx];
  int64_t n;
};

// Calls f(run) for every innermost run of positions [begin, end).
template <class F>
void walk(const IndexLoop& L, const Walk& w, int64_t begin, int64_t end, F&& f) {
  const int nd = int(w.shape.size()), m = int(L.idx.size());
  int64_t pos_of[64];
  int64_t rem = begin;
  for (int d = nd - 1; d >= 0; --d) {
    pos_of[d] = rem % w.shape[d];
    rem /= w.shape[d];
  }
  Run r;
  r.ds = w.ds[nd - 1];
  r.vs = w.vs[nd - 1];
  for (int k = 0; k < m; ++k) r.is[k] = w.is[k][nd - 1];
  for (int64_t pos = begin; pos < end;) {
    int64_t doff = 0, voff = 0;
    for (int d = 0; d < nd; ++d) doff += pos_of[d] * w.ds[d], voff += pos_of[d] * w.vs[d];
    r.d = L.data + doff;
    r.v = L.vals + voff;
    for (int k = 0; k < m; ++k) {
      int64_t off = 0;
      for (int d = 0; d < nd; ++d) off += pos_of[d] * w.is[k][d];
      r.ip[k] = L.idx[k].ptr + off;
    }
    r.n = std::min(w.shape[nd - 1] - pos_of[nd - 1], end - pos);
    f(r);
    pos += r.n;
    pos_of[nd - 1] += r.n;
    for (int d = nd - 1; d > 0 && pos_of[d] >= w.shape[d]; --d) {
      pos_of[d] = 0;
      ++pos_of[d - 1];
    }
  }
}

// Byte offset into data of run position j, from all its index operands. An index out of
// range sets `bad` and reads element 0 instead (which exists: sizes are > 0 here), so a
// get can check while it copies and report afterwards.
int64_t offset_of(const IndexLoop& L, const Run& r, int64_t j, bool& bad) {
  int64_t off = 0;
  for (size_t k = 0; k < L.idx.size(); ++k) {
    const IndexArg& a = L.idx[k];
    int64_t i = load_index(r.ip[k] + j * r.is[k]);
    i += (L.wrap_negative && i < 0) ? a.size : 0;
    const bool out = uint64_t(i) >= uint64_t(a.size);
    bad |= out;
    off += (out ? 0 : i) * a.step;
  }
  return off;
}

// The three element actions. A get or a put only moves bytes (E is an unsigned type of
// the element's size); Acc adds in the real dtype T.
// A get copies the indexed element q into v; a put, v into q.
template <class E, bool kPut>
struct Move {
  using Elem = E;
  static void one(char* q, char* v) {
    if constexpr (kPut) std::memcpy(q, v, sizeof(E));
    else std::memcpy(v, q, sizeof(E));
  }
  static void block(char* q, int64_t qs, char* v, int64_t vs, int64_t n) {
    if (qs == int64_t(sizeof(E)) && vs == int64_t(sizeof(E))) {
      if constexpr (kPut) std::memcpy(q, v, size_t(n) * sizeof(E));
      else std::memcpy(v, q, size_t(n) * sizeof(E));
      return;
    }
    for (int64_t j = 0; j < n; ++j) one(q + j * qs, v + j * vs);
  }
};
template <class E>
using Get = Move<E, false>;
template <class E>
using Put = Move<E, true>;

// scatter_reduce's element actions: *q = op(*q, *v) in T (NaN wins in Max and Min).
template <class T, PutReduce R>
struct Reduce {
  using Elem = T;
  static void one(char* q, char* v) {
    T a, b;
    std::memcpy(&a, q, sizeof(T));
    std::memcpy(&b, v, sizeof(T));
    if constexpr (R == PutReduce::Sum && std::is_same_v<T, bool>) a = a || b;
    else if constexpr (R == PutReduce::Sum) a = T(a + b);
    else if constexpr (R == PutReduce::Prod) a = T(a * b);
    else if constexpr (R == PutReduce::Max) a = (b != b || b > a) ? b : a;  // a NaN a stays
    else a = (b != b || b < a) ? b : a;
    std::memcpy(q, &a, sizeof(T));
  }
  static void block(char* q, int64_t qs, char* v, int64_t vs, int64_t n) {
    for (int64_t j = 0; j < n; ++j) one(q + j * qs, v + j * vs);
  }
};

// index_put_'s accumulate=True (and index_add's) action: *q += *v in T (or for bool).
template <class T>
using Acc = Reduce<T, PutReduce::Sum>;

// The index to use for position i: wrapped when negatives are allowed and, for a get
// (Check), replaced by 0 when out of range, with `bad` set (branch-free).
template <bool Wrap, bool Check>
inline int64_t fix_index(int64_t i, int64_t size, bool& bad) {
  if constexpr (Wrap) i += i < 0 ? size : 0;
  if constexpr (Check) {
    const bool out = uint64_t(i) >= uint64_t(size);
    bad |= out;
    return out ? 0 : i;
  }
  return i;
}

// One index operand (the common case). The usual layout (contiguous indices and values,
// data stride 0: gather, scatter, index_select along the last dim, x[idx] on a 1-d x) is
// spelled with typed pointers so the compiler keeps the loop tight. A get checks the range
// in the same loop (no separate pass over the indices); a put was checked by its caller.
template <class Op, bool Wrap, bool Check>
void run_one(const IndexLoop& L, const Run& r, bool& bad) {
  using E = typename Op::Elem;
  const IndexArg& a = L.idx[0];
  const char* ip = r.ip[0];
  const int64_t is = r.is[0], step = a.step, n = r.n, size = a.size;
  char* d = r.d;
  char* v = r.v;
  const int64_t ds = r.ds, vs = r.vs;
  bool b = false;
  if (is == 8 && ds == 0 && vs == int64_t(sizeof(E))) {
    const int64_t* idx = reinterpret_cast<const int64_t*>(ip);
    E* vp = reinterpret_cast<E*>(v);
    if (step == int64_t(sizeof(E))) {  // data contiguous along the indexed dim too
      E* dp = reinterpret_cast<E*>(d);
      for (int64_t j = 0; j < n; ++j)
        Op::one(reinterpret_cast<char*>(dp + fix_index<Wrap, Check>(idx[j], size, b)),
                reinterpret_cast<char*>(vp + j));
    } else {
      for (int64_t j = 0; j < n; ++j)
        Op::one(d + fix_index<Wrap, Check>(idx[j], size, b) * step,
                reinterpret_cast<char*>(vp + j));
    }
  } else {
    for (int64_t j = 0; j < n; ++j)
      Op::one(d + j * ds + fix_index<Wrap, Check>(load_index(ip + j * is), size, b) * step,
              v + j * vs);
  }
  bad |= b;
}

template <class Op, bool Wrap, bool Check>
void run(const IndexLoop& L, const Run& r, bool& bad) {
  const int m = int(L.idx.size());
  bool constant = true;
  for (int k = 0; k < m; ++k) constant = constant && r.is[k] == 0;
  if (constant) {  // e.g. the rows of x[idx]: one offset for the whole run
    Op::block(r.d + offset_of(L, r, 0, bad), r.ds, r.v, r.vs, r.n);
    return;
  }
  if (m == 1) return run_one<Op, Wrap, Check>(L, r, bad);
  for (int64_t j = 0; j < r.n; ++j)
    Op::one(r.d + j * r.ds + offset_of(L, r, j, bad), r.v + j * r.vs);
}

// keep ? a : b without a branch (compilers turn the ternary into one, which a random
// mask mispredicts half the time).
template <class T>
T* pick(int64_t keep, T* a, T* b) {
  const uintptr_t m = uintptr_t(0) - uintptr_t(keep);
  return reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(a) & m) |
                              (reinterpret_cast<uintptr_t>(b) & ~m));
}

// complex128's element: 16 bytes moved with memcpy (8-byte aligned, as its storage may be).
struct Bytes16 {
  uint64_t w[2];
};

// Calls f.template operator()<E>() with E an unsigned type of `itemsize` bytes (Bytes16
// for 16).
template <class F>
void by_itemsize(int64_t itemsize, F&& f) {
  switch (itemsize) {
    case 1: f.template operator()<uint8_t>(); break;
    case 2: f.template operator()<uint16_t>(); break;
    case 4: f.template operator()<uint32_t>(); break;
    case 16: f.template operator()<Bytes16>(); break;
    default: f.template operator()<uint64_t>(); break;
  }
}

}  // namespace

bool index_get(const IndexLoop& L) {
  const int64_t numel = numel_of(L.shape);
  if (numel == 0) return true;
  for (const IndexArg& a : L.idx)
    if (a.size == 0) return false;  // every index is out of range (and there is no element 0)
  const Walk w = coalesce(L);
  std::atomic<bool> ok{true};
  by_itemsize(L.itemsize, [&]<class E>() {
    parallel_for(0, numel, kGrain, [&](int64_t b, int64_t e) {
      bool bad = false;
      if (L.wrap_negative)
        walk(L, w, b, e, [&](const Run& r) { run<Get<E>, true, true>(L, r, bad); });
      else walk(L, w, b, e, [&](const Run& r) { run<Get<E>, false, true>(L, r, bad); });
      if (bad) ok.store(false, std::memory_order_relaxed);
    });
  });
  return ok.load();
}

namespace {

// True when positions that differ in the outermost loop dim write disjoint memory: the
// data stride of that dim exceeds the span everything else can reach (scatter along any
// dim but the first). Such puts can run in parallel and stay deterministic.
bool outer_dim_disjoint(const IndexLoop& L) {
  if (L.shape.size() < 2 || L.shape[0] < 2 || L.data_strides[0] == 0) return false;
  int64_t span = L.itemsize;
  for (size_t d = 1; d < L.shape.size(); ++d)
    span += (L.shape[d] - 1) * std::abs(L.data_strides[d]);
  for (const IndexArg& a : L.idx) span += (a.size - 1) * std::abs(a.step);
  return std::abs(L.data_strides[0]) >= span;
}

}  // namespace

void index_put(const IndexLoop& L, DType dt, bool accumulate) {
  const int64_t numel = numel_of(L.shape);
  if (numel == 0) return;
  for (const IndexArg& a : L.idx)
    if (a.size == 0) return;  // unreachable after the caller's check; never write out of range
  const Walk w = coalesce(L);
  // Duplicate targets are only possible within one outer row when the rows are disjoint;
  // otherwise one thread keeps the order of writes (and of sums) fixed.
  const int64_t rows = outer_dim_disjoint(L) ? L.shape[0] : 1;
  const int64_t per_row = numel / rows;
  auto put_rows = [&](auto op) {
    parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(per_row, 1)),
                 [&](int64_t r0, int64_t r1) {
                   bool bad = false;  // the caller checked every index: nothing to report
                   walk(L, w, r0 * per_row, r1 * per_row, [&](const Run& r) { op(r, bad); });
                 });
  };
  if (accumulate) {
    visit_dtype_with_half(dt, [&]<class T>() {
      put_rows([&](const Run& r, bool& bad) {
        if (L.wrap_negative) run<Acc<T>, true, false>(L, r, bad);
        else run<Acc<T>, false, false>(L, r, bad);
      });
    });
    return;
  }
  by_itemsize(L.itemsize, [&]<class E>() {
    put_rows([&](const Run& r, bool& bad) {
      if (L.wrap_negative) run<Put<E>, true, false>(L, r, bad);
      else run<Put<E>, false, false>(L, r, bad);
    });
  });
}

void index_reduce_put(const IndexLoop& L, DType dt, PutReduce op) {
  const int64_t numel = numel_of(L.shape);
  if (numel == 0) return;
  for (const IndexArg& a : L.idx)
    if (a.size == 0) return;
  const Walk w = coalesce(L);
  const int64_t rows = outer_dim_disjoint(L) ? L.shape[0] : 1;  // as index_put
  const int64_t per_row = numel / rows;
  auto put_rows = [&]<class Op>() {
    parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(per_row, 1)),
                 [&](int64_t r0, int64_t r1) {
                   bool bad = false;
                   walk(L, w, r0 * per_row, r1 * per_row,
                        [&](const Run& r) { run<Op, false, false>(L, r, bad); });
                 });
  };
  visit_dtype(dt, [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      switch (op) {
        case PutReduce::Sum: put_rows.template operator()<Reduce<T, PutReduce::Sum>>(); break;
        case PutReduce::Prod: put_rows.template operator()<Reduce<T, PutReduce::Prod>>(); break;
        case PutReduce::Max: put_rows.template operator()<Reduce<T, PutReduce::Max>>(); break;
        case PutReduce::Min: put_rows.template operator()<Reduce<T, PutReduce::Min>>(); break;
      }
    }
  });
}

bool find_bad_index(const int64_t* ptr, IntList shape, IntList strides, int64_t size,
                    bool wrap_negative, int64_t* bad) {
  const int64_t n = numel_of(shape);
  if (n == 0) return false;
  const int64_t lo = wrap_negative ? -size : 0;
  Loop L(shape, {Operand{reinterpret_cast<char*>(const_cast<int64_t*>(ptr)), strides, 8}});
  std::atomic<bool> found{false};
  std::atomic<int64_t> value{0};
  for_each(L, [&](char** p, const int64_t* s, int64_t cnt) {
    // A scan with no compare first (it vectorizes): i is in [lo, size) exactly when both
    // i - lo and size - 1 - i have a clear top bit. The culprit is looked for only in a run
    // that has one.
    const uint64_t ulo = uint64_t(lo), uhi = uint64_t(size - 1);
    uint64_t acc = 0;
    if (s[0] == 8) {
      const int64_t* q = reinterpret_cast<const int64_t*>(p[0]);
      for (int64_t j = 0; j < cnt; ++j) acc |= (uint64_t(q[j]) - ulo) | (uhi - uint64_t(q[j]));
    } else {
      for (int64_t j = 0; j < cnt; ++j) {
        const uint64_t i = uint64_t(load_index(p[0] + j * s[0]));
        acc |= (i - ulo) | (uhi - i);
      }
    }
    if ((acc >> 63) == 0) return;
    for (int64_t j = 0; j < cnt; ++j) {
      int64_t i = load_index(p[0] + j * s[0]);
      if (i < lo || i >= size) {
        value.store(i, std::memory_order_relaxed);
        found.store(true, std::memory_order_relaxed);
        return;
      }
    }
  });
  if (found.load()) *bad = value.load();
  return found.load();
}

void masked_fill(DType dt, const Loop& L, Scalar value) {
  alignas(8) char bytes[16];
  visit_dtype_with_half(dt, [&]<class T>() {
    const T v = value.to<T>();
    std::memcpy(bytes, &v, sizeof(T));
  });
  by_itemsize(int64_t(itemsize(dt)), [&]<class E>() {
    E vb;
    std::memcpy(&vb, bytes, sizeof(E));
    for_each(L, [&](char** p, const int64_t* s, int64_t n) {
      const uint8_t* m = reinterpret_cast<const uint8_t*>(p[1]);
      if (std::is_integral_v<E> && s[0] == int64_t(sizeof(E)) && s[1] == 1) {
        if constexpr (std::is_integral_v<E>) {
          // A bitwise blend on the element's bytes: the compiler vectorizes it (the plain
          // `m ? v : t` became a branch).
          E* t = reinterpret_cast<E*>(p[0]);
          for (int64_t i = 0; i < n; ++i) {
            const E keep = E(E(0) - E(m[i] != 0));
            t[i] = E((t[i] & E(~keep)) | (vb & keep));
          }
        }
        return;
      }
      for (int64_t i = 0; i < n; ++i)
        if (m[i * s[1]]) std::memcpy(p[0] + i * s[0], &vb, sizeof(E));
    });
  });
}

MaskChunks count_mask(const bool* mask, int64_t n) {
  MaskChunks c;
  const int64_t chunks = std::clamp<int64_t>((n + kGrain - 1) / kGrain, 1, num_threads());
  c.begin.resize(size_t(chunks + 1));
  for (int64_t i = 0; i <= chunks; ++i) c.begin[size_t(i)] = n * i / chunks;
  c.offset.assign(size_t(chunks), 0);
  std::vector<int64_t> counts(size_t(chunks), 0);
  const uint8_t* p = reinterpret_cast<const uint8_t*>(mask);
  parallel_for(0, chunks, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t ch = cb; ch < ce; ++ch) {
      int64_t s = 0;
      for (int64_t i = c.begin[size_t(ch)]; i < c.begin[size_t(ch + 1)]; ++i) s += p[i] != 0;
      counts[size_t(ch)] = s;
    }
  });
  for (int64_t ch = 0; ch < chunks; ++ch) {
    c.offset[size_t(ch)] = c.total;
    c.total += counts[size_t(ch)];
  }
  return c;
}

void nonzero(const bool* mask, IntList shape, const MaskChunks& chunks, int64_t* out) {
  const int nd = int(shape.size());
  if (nd == 0 || chunks.total == 0) return;  // 0-d: (n, 0) has no values to write
  const int64_t inner = shape[size_t(nd - 1)];
  parallel_for(0, int64_t(chunks.offset.size()), 1, [&](int64_t cb, int64_t ce) {
    for (int64_t ch = cb; ch < ce; ++ch) {
      const int64_t b = chunks.begin[size_t(ch)], e = chunks.begin[size_t(ch + 1)];
      int64_t pos_of[64];
      int64_t rem = b;
      for (int d = nd - 1; d >= 0; --d) {
        pos_of[d] = rem % shape[size_t(d)];
        rem /= shape[size_t(d)];
      }
      int64_t* o = out + chunks.offset[size_t(ch)] * nd;
      int64_t scratch[64];
      for (int64_t pos = b; pos < e;) {
        const int64_t n = std::min(inner - pos_of[nd - 1], e - pos);
        const bool* p = mask + pos;
        for (int64_t j = 0; j < n; ++j) {
          // Branch-free (a random mask mispredicts half the time): every element writes its
          // coordinates, a false one to a scratch row that the next true one overwrites.
          const int64_t keep = p[j] != 0;
          int64_t* dst = pick(keep, o, scratch);
          for (int d = 0; d < nd - 1; ++d) dst[d] = pos_of[d];
          dst[nd - 1] = pos_of[nd - 1] + j;
          o += keep * nd;
        }
        pos += n;
        pos_of[nd - 1] += n;
        for (int d = nd - 1; d > 0 && pos_of[d] >= shape[size_t(d)]; --d) {
          pos_of[d] = 0;
          ++pos_of[d - 1];
        }
      }
    }
  });
}

void masked_select(const Loop& L, const MaskChunks& chunks, char* out, int64_t itemsize) {
  if (chunks.total == 0) return;
  by_itemsize(itemsize, [&]<class E>() {
    parallel_for(0, int64_t(chunks.offset.size()), 1, [&](int64_t cb, int64_t ce) {
      for (int64_t ch = cb; ch < ce; ++ch) {
        char* o = out + chunks.offset[size_t(ch)] * itemsize;
        loop_range(L, chunks.begin[size_t(ch)], chunks.begin[size_t(ch + 1)],
                   [&](char** p, const int64_t* s, int64_t n) {
                     const char* m = p[0];
                     const char* d = p[1];
                     const int64_t ms = s[0], dstride = s[1];
                     E* dst = reinterpret_cast<E*>(o);  // a local: o itself lives outside
                     E scratch;
                     for (int64_t j = 0; j < n; ++j) {  // branch-free, as in nonzero
                       const int64_t keep = m[j * ms] != 0;
                       E value;
                       std::memcpy(&value, d + j * dstride, sizeof(E));
                       *pick(keep, dst, &scratch) = value;
                       dst += keep;
                     }
                     o = reinterpret_cast<char*>(dst);
                   });
      }
    });
  });
}

}  // namespace ember::kernels
