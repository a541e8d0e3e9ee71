// The inner driver's path for many short rows (reduce_impl.h includes this inside its
// ISA-named namespace, after the ops and reduce_run; include it nowhere else).
//
// A row of 16-128 elements through reduce_run pays a fixed ~40 ns (16-lane accumulators set
// up, a Fast tile flushed, a tree fold), which dominates x.sum(-1) over rows of 16-64. Here
// the rows are taken kRowLanes at a time, in one of two ways:
//   transposed (rows under kLanes elements, strided rows, max/min rows under 64): the block
//     is copied transposed into a small buffer, so that one SIMD lane owns one row and
//     steps through its elements in order, as reduce_run does for rows under kLanes (so
//     their bits are unchanged);
//   fold_rows (other contiguous rows): each row steps through kRowVec lanes (select_lanes'
//     kLanes for max/min), and the lanes' tree fold runs across the block's rows at once.
// Both accumulate in the op's Acc type (double lanes for float32 sums: at most kShortRow
// floats per row, more accurate than torch's float cascade). A row's result depends on
// that row alone, never on which rows share its block, so the thread count cannot change
// it (Note [Deterministic reductions]).

constexpr int64_t kShortRow = 128;  // the longest row taken by this path
constexpr int kRowLanes = 16;       // rows per block: one lane each
constexpr int kRowVec = 8;          // lanes per row in fold_rows

// Whether reduce_inner should hand g to reduce_short_rows: many rows of one short run each.
// A single output (a full reduction) keeps reduce_run, whose bits sum_block reproduces.
bool short_rows(const ReduceShape& g) {
  return g.red.size() == 1 && g.num_red <= kShortRow && g.num_red > 1 && g.num_out > 1;
}

// Copies rows[k][j * rs] (j < n) to t[j * kRowLanes + k]: row k becomes lane k.
template <class T>
void transpose_rows(const T* const* rows, int64_t n, int64_t rs, T* t) {
  if (rs == 1) {
    for (int k = 0; k < kRowLanes; ++k)
      for (int64_t j = 0; j < n; ++j) t[j * kRowLanes + k] = rows[k][j];
  } else {
    for (int k = 0; k < kRowLanes; ++k)
      for (int64_t j = 0; j < n; ++j) t[j * kRowLanes + k] = rows[k][j * rs];
  }
}

// The lanes' steps over the transposed block t (n elements per lane), from init.
template <class Op>
void step_lanes(const Op& op, const typename Op::In* t, int64_t n, const typename Op::Acc* c,
                typename Op::Acc* a) {
  for (int k = 0; k < kRowLanes; ++k) a[k] = op.init();
  if constexpr (is_select_v<Op>) {  // the step's select does not vectorize here: lane k is row k
    static_assert(kRowLanes == kLanes);
    select_lanes(op, t, n * kRowLanes, a);
    return;
  }
  for (int64_t j = 0; j < n; ++j) {
    const typename Op::In* tj = t + j * kRowLanes;
    for (int k = 0; k < kRowLanes; ++k) a[k] = op.step(a[k], tj[k], c[k]);
  }
}

// Contiguous rows of at least kLanes elements: each row steps through kRowVec lanes
// (element j in lane j % kRowVec, in order; a short tail fills lanes 0, 1, ...), which are
// stored as column k of a (kRowVec, kRowLanes) tile; the tree fold of the lanes then runs
// across the block's rows at once, so it vectorizes too.
template <class Op>
void fold_rows(const Op& op, const typename Op::In* const* rows, int64_t n,
               const typename Op::Acc* c, typename Op::Acc* a) {
  using Acc = typename Op::Acc;
  // max/min: select_lanes' 16 lanes (the only form of a select GCC vectorizes well)
  constexpr int V = is_select_v<Op> ? kLanes : kRowVec;
  alignas(64) Acc tile[V * kRowLanes];
  for (int k = 0; k < kRowLanes; ++k) {
    const typename Op::In* p = rows[k];
    const Acc ck = c[k];
    Acc v[V];
    for (int l = 0; l < V; ++l) v[l] = op.init();
    int64_t j = 0;
    if constexpr (is_select_v<Op>) {
      j = select_lanes(op, p, n, v);
    } else {
      for (; j + V <= n; j += V)
        for (int l = 0; l < V; ++l) v[l] = op.step(v[l], p[j + l], ck);
    }
    for (int l = 0; j < n; ++j, ++l) v[l] = op.step(v[l], p[j], ck);
    for (int l = 0; l < V; ++l) tile[l * kRowLanes + k] = v[l];
  }
  for (int w = V / 2; w > 0; w /= 2)
    for (int l = 0; l < w; ++l)
      for (int k = 0; k < kRowLanes; ++k)
        tile[l * kRowLanes + k] =
            op.combine(tile[l * kRowLanes + k], tile[(l + w) * kRowLanes + k]);
  for (int k = 0; k < kRowLanes; ++k) a[k] = tile[k];
}

template <class Op>
void reduce_short_rows(const Op& op, const ReduceShape& g, const typename Op::In* x,
                       typename Op::Out* y, const double* center) {
  using In = typename Op::In;
  using Acc = typename Op::Acc;
  const int64_t n = g.num_red, rs = g.red_in.back(), no = g.num_out;
  // select_lanes pays off from its 4-row loop on; shorter max/min rows go transposed
  const bool lanes = rs == 1 && n >= (is_select_v<Op> ? 4 * kLanes : kLanes);
  const int64_t blocks = (no + kRowLanes - 1) / kRowLanes;
  const int64_t grain = std::max<int64_t>(1, kGrain / (n * kRowLanes));
  parallel_for(0, blocks, grain, [&](int64_t b0, int64_t b1) {
    alignas(64) In t[kShortRow * kRowLanes];
    alignas(64) Acc a[kRowLanes], c[kRowLanes];
    const In* rows[kRowLanes];
    int64_t out[kRowLanes];
    double cd[kRowLanes];
    Walker w = kept_walker(g, b0 * kRowLanes);
    for (int64_t b = b0; b < b1; ++b) {
      const int m = int(std::min<int64_t>(kRowLanes, no - b * kRowLanes));
      for (int k = 0; k < m; ++k, w.next()) {
        rows[k] = x + w.off0;
        out[k] = w.off1;
        cd[k] = Op::kCenter ? center[w.off1] : 0.0;
      }
      for (int k = m; k < kRowLanes; ++k) {  // a short last block repeats its first row
        rows[k] = rows[0];
        cd[k] = cd[0];
      }
      for (int k = 0; k < kRowLanes; ++k) c[k] = Acc(cd[k]);
      if (lanes) {
        fold_rows(op, rows, n, c, a);
      } else {
        transpose_rows(rows, n, rs, t);
        step_lanes(op, t, n, c, a);
      }
      for (int k = 0; k < m; ++k) y[out[k]] = op.finalize(a[k], cd[k]);
    }
  });
}
