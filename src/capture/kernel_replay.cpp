// Note [Kernel replay]: a flat recording (Note [Flat replay]) replays its elementwise calls,
// fills, reductions over all elements and matrix products as kernel calls, not op calls.
//
// At capture, plan_kernels() picks the steps it can run this way (their Fusable says what
// they compute; float32/float64 operands of the result's dtype) and gives each result a
// buffer: results of one shape and dtype whose lives do not overlap share one, so a steady
// replay of the regression's 2000 steps touches a few KB. The first replay runs each step
// as its op and then prepare() keeps what the op handed its kernel: the Loop that
// ops::make_loop built (shape, byte strides, in which order operands are walked), the scalar
// already converted, the BLAS views. Later replays only patch the Loop's data pointers and
// call the kernel: no argument checks, no dtype or broadcast work, no allocation. The bits
// are the op's (same kernel entry, same Loop).
//
// What keeps it safe:
// - the metadata a Loop was built for holds at each replay: inputs and externals are guarded
//   (Graph::check), results of kernel and fused steps have planned buffers, and an operand
//   made by an op-level step is compared with what prepare() saw (else that step runs as its
//   op this time);
// - a planned buffer is reused only when nothing but the plan holds it (a result the caller
//   kept, a .grad that set_grad stored, a view): otherwise the step takes new memory, so a
//   replay never writes into a tensor someone else can see;
// - an in-place step whose operands share memory runs as its op (which copies the operand).
#include <algorithm>
#include <optional>
#include <string_view>

#include "capture/graph.h"
#include "kernels/cpu/blas.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/reduce.h"
#include "ops/iter.h"
#include "ops/linalg.h"

namespace ember::capture {

// Laid out for the replay loop: a recording of 2000 steps walks 2000 of these per call, so
// what every replay reads comes first and the rest sits behind pointers.
struct KernelStep {
  Fusable f;
  DType dt = DType::Float32;
  bool ready = false, failed = false;
  bool unary = false;  // a pow by 2, 0.5 or -1 runs as its unary kernel (as the op does)
  bool flat = false;   // the op's Loop is one run: rebuilt from numel and bstride
  bool beta_zero = true;
  kernels::UnaryOp uop = kernels::UnaryOp::Neg;
  uint8_t check = 0;  // bit j: operand j was made by an op-level step (compare its metadata)
  int nin = 0;
  int in[3] = {-1, -1, -1};  // the step's tensor operands, as slots
  int out = -1;              // the slot written (in place: in[0])
  int buffer = -1;           // Graph::buffers index of an out-of-place result
  // Elementwise and fill: the Loop, whose operand j points at slot ptr_slot[j] (kOut: the
  // result, kScalar: `scalar`).
  int nargs = 0;
  int ptr_slot[kernels::Loop::kMaxArgs] = {};
  int64_t numel = 0;
  int64_t bstride[kernels::Loop::kMaxArgs] = {};
  alignas(16) char scalar[16] = {};
  Meta out_meta;
  std::unique_ptr<kernels::Loop> loop;  // a Loop of several dims (not flat)
  // Matmul: out (m, n) = alpha a @ b + beta out, after `self` was cast into out (addmm).
  struct Gemm {
    kernels::MatRef ra, rb;
    int64_t m = 0, n = 0, k = 0;
    std::unique_ptr<kernels::Loop> self_loop;
  };
  std::unique_ptr<Gemm> gemm;
  std::vector<Meta> meta;  // operands' metadata at prepare()
};

namespace {

constexpr int kOut = -2, kScalar = -3;

bool float_dt(DType d) { return d == DType::Float32 || d == DType::Float64; }

// The step, when it is one the kernel replay can run (from the recording's metadata).
std::shared_ptr<KernelStep> candidate(const Graph& g, const Step& st) {
  const Fusable& f = st.call.fuse;
  if (st.fused || f.kind == Fusable::Kind::None || st.out.size() != 1 || st.out[0] < 0)
    return nullptr;
  size_t want = 0;
  switch (f.kind) {
    case Fusable::Kind::Unary:
    case Fusable::Kind::BinaryScalar:
    case Fusable::Kind::Reduce:
    case Fusable::Kind::Fill: want = 1; break;
    case Fusable::Kind::Binary: want = 2; break;
    case Fusable::Kind::Matmul: want = std::string_view(st.call.op) == "addmm" ? 3 : 2; break;
    default: return nullptr;
  }
  if (st.in.size() != want) return nullptr;
  for (int s : st.in)
    if (s < 0) return nullptr;
  const SlotInfo& o = g.slots[size_t(st.out[0])];
  if (f.kind != Fusable::Kind::Fill && !float_dt(o.dtype)) return nullptr;
  if (f.inplace != (st.out[0] == st.in[0])) return nullptr;
  if (f.kind == Fusable::Kind::BinaryScalar && f.scalar.is_complex()) return nullptr;
  if (!scalar_pow_replayable(f, o.dtype)) return nullptr;
  auto k = std::make_shared<KernelStep>();
  k->f = f;
  k->dt = o.dtype;
  k->nin = int(st.in.size());
  for (size_t j = 0; j < st.in.size(); ++j) k->in[j] = st.in[j];
  k->out = st.out[0];
  return k;
}

// A planned buffer (Note [Planned buffers]): `keep` when only the plan holds it and it still
// has the layout planned, else new memory that `keep` then holds.
Tensor acquire(Tensor& keep, const Meta& m) {
  if (keep.defined() && keep.impl()->use_count() == 1 && keep.storage()->use_count() == 1 &&
      !keep.impl()->autograd_ && !keep.impl()->requires_grad_ && keep.offset() == 0 &&
      keep.sizes() == m.sizes && keep.strides() == m.strides) {
    keep.bump_version();  // as a fresh tensor would differ from what anyone saw before
    return keep;
  }
  keep = Tensor::empty(m.sizes, m.dtype);
  return keep;
}

bool plain(const Tensor& t, DType dt) { return t.defined() && !t.is_sparse() && t.dtype() == dt; }

// What the op's kernel call was, learned from the tensors of the replay that ran the op.
// Keeps the op's Loop: as numel and byte strides when it is one run (Loop::flat rebuilds
// the same Loop), else whole.
void keep_loop(KernelStep& k, kernels::Loop L) {
  k.nargs = L.nargs;
  k.flat = L.shape.size() == 1 && L.shape[0] == L.numel;
  if (!k.flat) {
    k.loop = std::make_unique<kernels::Loop>(std::move(L));
    return;
  }
  k.numel = L.numel;
  for (int j = 0; j < L.nargs; ++j) k.bstride[j] = L.strides[j][0];
}

bool learn(KernelStep& k, const std::vector<Tensor>& v) {
  const Tensor& out = v[size_t(k.out)];
  if (!plain(out, k.dt)) return false;
  for (int j = 0; j < k.nin; ++j) {
    const Tensor& t = v[size_t(k.in[j])];
    if (!plain(t, k.f.kind == Fusable::Kind::Fill ? t.dtype() : k.dt) || t.numel() == 0)
      return false;
  }
  if (!k.f.inplace && (!out.is_contiguous() || out.offset() != 0)) return false;
  const Tensor& a = v[size_t(k.in[0])];
  using K = Fusable::Kind;
  switch (k.f.kind) {
    case K::Unary:
      if (a.sizes() != out.sizes()) return false;
      keep_loop(k, ops::make_loop(a.sizes(), {&out, &a}));
      k.ptr_slot[0] = kOut;
      k.ptr_slot[1] = k.in[0];
      k.uop = kernels::UnaryOp(k.f.op);
      k.unary = true;
      return true;
    case K::Binary: {
      const Tensor& b = v[size_t(k.in[1])];
      if (k.f.inplace && a.storage() == b.storage()) return false;
      keep_loop(k, ops::make_loop(out.sizes(), {&out, &a, &b}));
      k.ptr_slot[0] = kOut;
      k.ptr_slot[1] = k.in[0];
      k.ptr_slot[2] = k.in[1];
      return true;
    }
    case K::BinaryScalar:
      if (a.sizes() != out.sizes()) return false;
      if (pow_as_unary(k.f, &k.uop)) {
        k.unary = true;
        keep_loop(k, ops::make_loop(a.sizes(), {&out, &a}));
        k.ptr_slot[0] = kOut;
        k.ptr_slot[1] = k.in[0];
        return true;
      }
      ops::store_scalar(k.dt, k.f.scalar, k.scalar);
      {
        kernels::Loop L =
            ops::make_loop_with_scalar(a.sizes(), {&out, &a}, k.scalar, int64_t(itemsize(k.dt)));
        k.ptr_slot[0] = kOut;
        k.ptr_slot[1] = k.in[0];
        k.ptr_slot[2] = kScalar;
        if (k.f.reflected) {  // as binary_scalar: the scalar becomes the first operand
          std::swap(L.ptrs[1], L.ptrs[2]);
          std::swap(L.strides[1], L.strides[2]);
          std::swap(k.ptr_slot[1], k.ptr_slot[2]);
        }
        keep_loop(k, std::move(L));
      }
      return true;
    case K::Fill:
      k.dt = a.dtype();
      keep_loop(k, ops::make_loop(a.sizes(), {&a}));
      k.ptr_slot[0] = k.in[0];
      return true;
    case K::Reduce: return a.is_contiguous() && out.dim() == 0;
    case K::Matmul: {
      const bool addmm = k.nin == 3;
      const Tensor& A = v[size_t(k.in[addmm ? 1 : 0])];
      const Tensor& B = v[size_t(k.in[addmm ? 2 : 1])];
      auto g = std::make_unique<KernelStep::Gemm>();
      if (A.dim() != 2 || B.dim() != 2 || out.dim() != 2 || !ops::blas_view(A, &g->ra) ||
          !ops::blas_view(B, &g->rb))
        return false;
      g->m = A.size(0);
      g->n = B.size(1);
      g->k = A.size(1);
      k.beta_zero = k.f.scalar.to_double() == 0;
      if (addmm && !k.beta_zero)
        g->self_loop = std::make_unique<kernels::Loop>(ops::make_loop(out.sizes(), {&out, &a}));
      k.gemm = std::move(g);
      return true;
    }
    default: return false;
  }
}

char* ptr_of(const KernelStep& k, int s, std::vector<Tensor>& v) {
  if (s == kOut) return v[size_t(k.out)].data_ptr();
  if (s == kScalar) return const_cast<char*>(k.scalar);
  return v[size_t(s)].data_ptr();
}

}  // namespace

void prepare_kernel(KernelStep& k, const std::vector<Tensor>& v) {
  if (k.ready || k.failed) return;
  if (!learn(k, v)) {
    k.failed = true;
    return;
  }
  for (int j = 0; j < k.nin; ++j) k.meta.push_back(Meta::of(v[size_t(k.in[j])]));
  k.out_meta = Meta::of(v[size_t(k.out)]);
  k.ready = true;
}

bool run_kernel(KernelStep& k, std::vector<Tensor>& v, std::vector<Tensor>& buffers,
                bool check_all) {
  if (!k.ready) return false;
  if (k.check | check_all)
    for (int j = 0; j < k.nin; ++j)
      if ((check_all || (k.check >> j & 1)) && !k.meta[size_t(j)].matches(v[size_t(k.in[j])]))
        return false;
  if (k.f.inplace) {
    for (int j = 1; j < k.nin; ++j)
      if (v[size_t(k.in[j])].storage() == v[size_t(k.out)].storage()) return false;
  } else {
    v[size_t(k.out)] = acquire(buffers[size_t(k.buffer)], k.out_meta);
  }
  using K = Fusable::Kind;
  switch (k.f.kind) {
    case K::Unary:
    case K::Binary:
    case K::BinaryScalar:
    case K::Fill: {
      char* ptrs[kernels::Loop::kMaxArgs];
      for (int j = 0; j < k.nargs; ++j) ptrs[j] = ptr_of(k, k.ptr_slot[j], v);
      std::optional<kernels::Loop> flat;
      if (k.flat) flat.emplace(kernels::Loop::flat(k.numel, k.nargs, ptrs, k.bstride));
      else std::copy(ptrs, ptrs + k.nargs, k.loop->ptrs);
      const kernels::Loop& L = k.flat ? *flat : *k.loop;
      if (k.f.kind == K::Fill) kernels::fill(k.dt, L, k.f.scalar);
      else if (k.unary) kernels::unary(k.uop, k.dt, L);
      else if (k.f.kind == K::Binary)
        kernels::binary(kernels::BinaryOp(k.f.op), k.dt, L, k.f.alpha);
      else kernels::binary(kernels::BinaryOp(k.f.op), k.dt, L, 1.0);
      break;
    }
    case K::Reduce: {  // reduce()'s blocks (kernels::sum_block), as a fused chain's reduction
      const Tensor& a = v[size_t(k.in[0])];
      const int64_t numel = a.numel(), isz = int64_t(itemsize(k.dt));
      const int64_t nb =
          std::max<int64_t>(1, (numel + kernels::kReduceBlock - 1) / kernels::kReduceBlock);
      double one;
      std::vector<double> many(nb > 1 ? size_t(nb) : 0);
      double* part = nb > 1 ? many.data() : &one;
      const char* base = a.data_ptr();
      kernels::parallel_for(0, nb, 1, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          const int64_t s = b * kernels::kReduceBlock;
          part[b] = kernels::sum_block(k.dt, base + s * isz,
                                       std::min(numel, s + kernels::kReduceBlock) - s);
        }
      });
      const double div = k.f.op == int(kernels::ReduceOp::Mean) ? double(numel) : 1.0;
      kernels::sum_finish(k.dt, part, nb, div, v[size_t(k.out)].data_ptr());
      break;
    }
    case K::Matmul: {
      const bool addmm = k.nin == 3;
      KernelStep::Gemm& g = *k.gemm;
      Tensor& out = v[size_t(k.out)];
      if (g.self_loop) {
        g.self_loop->ptrs[0] = out.data_ptr();
        g.self_loop->ptrs[1] = v[size_t(k.in[0])].data_ptr();
        kernels::cast(k.dt, k.dt, *g.self_loop);
      }
      g.ra.ptr = v[size_t(k.in[addmm ? 1 : 0])].data_ptr();
      g.rb.ptr = v[size_t(k.in[addmm ? 2 : 1])].data_ptr();
      kernels::gemm(k.dt, g.m, g.n, g.k, Scalar(k.f.alpha), g.ra, g.rb,
                    k.beta_zero ? Scalar(int64_t(0)) : k.f.scalar, out.data_ptr(),
                    std::max<int64_t>(g.n, 1));
      break;
    }
    default: return false;
  }
  if (k.f.inplace) v[size_t(k.out)].bump_version();
  return true;
}

// Picks the kernel steps of a flat graph and plans their buffers (after fusion and
// plan_releases): results of one shape and dtype whose lives do not overlap share a buffer.
namespace {
bool g_kernel_replay = true;
}
void set_kernel_replay(bool on) { g_kernel_replay = on; }

namespace {
// Ops whose results' layout (sizes, strides, offset, dtype) follows from their operands'
// layouts and arguments alone, never from values: a kernel step reading their result need
// not look at it when their operands are known. (Not so: grad, whose .grad anyone may set;
// nonzero, masked_select, unique, whose sizes are data.)
bool layout_follows(std::string_view op) {
  static constexpr std::string_view kOps[] = {"t",
                                              "view",
                                              "reshape",
                                              "expand",
                                              "permute",
                                              "transpose",
                                              "unsqueeze",
                                              "squeeze",
                                              "contiguous",
                                              "clone",
                                              "detach",
                                              "full",
                                              "zeros",
                                              "ones",
                                              "sum",
                                              "mean",
                                              "relu_backward",
                                              "class_index_backward",
                                              "softmax_rows_backward"};
  for (std::string_view o : kOps)
    if (o == op) return true;
  return false;
}

void plan_order(Graph& g) {
  g.order.clear();
  g.released.clear();
  for (Step& st : g.steps) {
    const int rel0 = int(g.released.size());
    g.released.insert(g.released.end(), st.release.begin(), st.release.end());
    g.order.push_back({&st, st.kernel.get(), st.fused.get(), rel0, int(g.released.size())});
  }
}
}  // namespace

namespace {
// Ops whose result is the same at every replay when their tensor operands are (no operand:
// a constant fill): creations and views.
bool value_follows(std::string_view op) {
  static constexpr std::string_view kOps[] = {"full",      "zeros",     "ones",    "reshape",
                                              "view",      "expand",    "t",       "permute",
                                              "transpose", "unsqueeze", "squeeze", "contiguous",
                                              "clone"};
  for (std::string_view o : kOps)
    if (o == op) return true;
  return false;
}

// Note [Constant steps]: a step whose value is the same at every replay (the mean
// backward's seed `full`, its `reshape` and `expand`, and an elementwise step of such values)
// runs once, at the first replay, and keeps its results. Only when nothing can see or change
// those tensors: never written in place, not returned, and read only by steps that only read
// them (kernel candidates out of place, fused chains, other constant steps).
void mark_constants(Graph& g, const std::vector<std::shared_ptr<KernelStep>>& cand) {
  const size_t n = g.steps.size();
  std::vector<int> writes(size_t(g.num_slots), 0), producer(size_t(g.num_slots), -1);
  for (size_t i = 0; i < n; ++i)
    for (int s : g.steps[i].out)
      if (s >= 0) {
        ++writes[size_t(s)];
        producer[size_t(s)] = int(i);
      }
  std::vector<bool> out_slot(size_t(g.num_slots), false);
  for (int s : g.output_slots)
    if (s >= 0) out_slot[size_t(s)] = true;
  // allowed: what a step is, whatever its operands; then constant: allowed and reading
  // constants only; a constant read by a step that might keep or change it is withdrawn.
  std::vector<bool> allowed(n, false), step_const(n, false), is_const(size_t(g.num_slots));
  for (size_t i = 0; i < n; ++i) {
    const Step& st = g.steps[i];
    bool c = !st.fused && !st.out.empty() &&
             (value_follows(st.call.op) ||
              (cand[i] && !cand[i]->f.inplace && cand[i]->f.kind != Fusable::Kind::Fill));
    for (int s : st.out)
      c = c && s >= 0 && g.slots[size_t(s)].kind == SlotInfo::Kind::Produced &&
          writes[size_t(s)] == 1 && !out_slot[size_t(s)];
    allowed[i] = c;
  }
  for (bool changed = true; changed;) {
    changed = false;
    std::fill(is_const.begin(), is_const.end(), false);
    for (size_t i = 0; i < n; ++i) {
      bool c = allowed[i];
      for (int s : g.steps[i].in) c = c && s >= 0 && is_const[size_t(s)];
      step_const[i] = c;
      if (c)
        for (int s : g.steps[i].out) is_const[size_t(s)] = true;
    }
    for (size_t i = 0; i < n; ++i) {
      const Step& st = g.steps[i];
      if (step_const[i] || st.fused || (cand[i] && !cand[i]->f.inplace)) continue;
      for (int s : st.in)
        if (s >= 0 && is_const[size_t(s)] && allowed[size_t(producer[size_t(s)])]) {
          allowed[size_t(producer[size_t(s)])] = false;
          changed = true;
        }
    }
  }
  for (size_t i = 0; i < n; ++i) g.steps[i].constant = step_const[i];
}
}  // namespace

void plan_kernels(Graph& g) {
  if (!g.flat || !g_kernel_replay) {
    plan_order(g);
    return;
  }
  // fixed[s]: slot s's layout is known at replay without looking (guarded, or planned).
  std::vector<bool> fixed(size_t(g.num_slots), false);
  for (size_t s = 0; s < g.slots.size(); ++s)
    fixed[s] = g.slots[s].kind != SlotInfo::Kind::Produced;
  struct Free {
    Dims sizes;
    DType dt;
    int buffer;
  };
  std::vector<Free> free_list;
  std::vector<int> buffer_of(size_t(g.num_slots), -1);
  int nbuf = 0;
  std::vector<std::shared_ptr<KernelStep>> cand;
  for (const Step& st : g.steps) cand.push_back(candidate(g, st));
  mark_constants(g, cand);
  for (size_t i = 0; i < g.steps.size(); ++i) {
    Step& st = g.steps[i];
    st.kernel = st.constant ? nullptr : cand[i];
    if (st.constant) {
      for (int s : st.out) fixed[size_t(s)] = true;
    } else if (KernelStep* k = st.kernel.get()) {
      for (int j = 0; j < k->nin; ++j)
        if (!fixed[size_t(k->in[j])]) k->check |= uint8_t(1 << j);
      if (!k->f.inplace) {
        const SlotInfo& o = g.slots[size_t(k->out)];
        for (size_t i = 0; i < free_list.size() && k->buffer < 0; ++i)
          if (free_list[i].dt == o.dtype && free_list[i].sizes == o.sizes) {
            k->buffer = free_list[i].buffer;
            free_list.erase(free_list.begin() + long(i));
          }
        if (k->buffer < 0) k->buffer = nbuf++;
        buffer_of[size_t(k->out)] = k->buffer;
      }
      fixed[size_t(k->out)] = fixed[size_t(k->out)] || !k->f.inplace;
    } else {
      // an op-level step's results (and what it wrote in place) are checked where read,
      // unless their layout follows from the operands' (views, fresh contiguous results)
      bool known = st.fused != nullptr || layout_follows(st.call.op);
      for (int s : st.in) known = known && (s < 0 || fixed[size_t(s)]);
      for (int s : st.out)
        if (s >= 0 && g.slots[size_t(s)].kind == SlotInfo::Kind::Produced) fixed[size_t(s)] = known;
    }
    for (int s : st.release)
      if (buffer_of[size_t(s)] >= 0)
        free_list.push_back(
            {g.slots[size_t(s)].sizes, g.slots[size_t(s)].dtype, buffer_of[size_t(s)]});
  }
  g.buffers.assign(size_t(nbuf), Tensor());
  plan_order(g);
}

bool kernel_result_as_planned(const KernelStep& k, const std::vector<Tensor>& v) {
  return !k.ready || k.out_meta.matches(v[size_t(k.out)]);
}

// A step of a flat graph that makes, without other arguments, a view of a slot whose layout
// nothing changes (`t(x)` in every epoch of a training loop) is made once per replay: later
// ones read the first one's slot. Only where no one can tell: the views are never written,
// not returned, and read only by steps that compute from them (kernel candidates, views).
void share_views(Graph& g) {
  if (!g.flat || !g_kernel_replay) return;
  const auto shareable = [](std::string_view op) { return op == "t" || op == "detach"; };
  std::vector<int> writes(size_t(g.num_slots), 0);
  for (const Step& st : g.steps)
    for (int s : st.out)
      if (s >= 0) ++writes[size_t(s)];
  std::vector<bool> reader_ok(size_t(g.num_slots), true);
  for (int s : g.output_slots)
    if (s >= 0) reader_ok[size_t(s)] = false;
  for (const Step& st : g.steps) {
    const Fusable& f = st.call.fuse;
    const bool computes = (f.kind != Fusable::Kind::None && !f.inplace) ||
                          layout_follows(st.call.op) || st.fused != nullptr;
    if (!computes)
      for (int s : st.in)
        if (s >= 0) reader_ok[size_t(s)] = false;
  }
  std::vector<int> rename(size_t(g.num_slots));
  for (size_t s = 0; s < rename.size(); ++s) rename[s] = int(s);
  std::vector<std::pair<std::pair<std::string_view, int>, int>> first;  // (op, in) -> out
  size_t w = 0;  // compacted in place (a recording of thousands of steps is not copied)
  for (size_t i = 0; i < g.steps.size(); ++i) {
    Step& st = g.steps[i];
    for (int& s : st.in)
      if (s >= 0) s = rename[size_t(s)];
    const bool eligible =
        shareable(st.call.op) && st.in.size() == 1 && st.out.size() == 1 && st.in[0] >= 0 &&
        st.out[0] >= 0 && writes[size_t(st.out[0])] == 1 && reader_ok[size_t(st.out[0])] &&
        writes[size_t(st.in[0])] == (g.slots[size_t(st.in[0])].kind == SlotInfo::Kind::Produced);
    if (eligible) {
      const std::pair<std::string_view, int> key{st.call.op, st.in[0]};
      bool found = false;
      for (auto& [k, o] : first)
        if (k == key) {
          rename[size_t(st.out[0])] = o;
          found = true;
        }
      if (found) continue;
      first.push_back({key, st.out[0]});
    }
    if (w != i) g.steps[w] = std::move(st);
    ++w;
  }
  g.steps.erase(g.steps.begin() + long(w), g.steps.end());
}

int64_t Graph::num_constant_steps() const {
  int64_t n = 0;
  for (const Step& s : steps) n += s.constant;
  return n;
}

int64_t Graph::num_kernel_steps() const {
  int64_t n = 0;
  for (const Step& s : steps) n += s.kernel && !s.kernel->failed;
  return n;
}

}  // namespace ember::capture
