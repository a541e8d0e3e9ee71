// Planning and fusion of a finished recording (graph.h).
//
// Note [Fused chains]: consecutive elementwise calls on float32/float64 tensors of one shape,
// all contiguous, none requiring grad, become one step that walks memory once: the inputs
// are read block by block (kBlock elements, which stay in L1), every op of the chain runs on
// the block through the same kernel entry points the eager ops use (kernels::unary/binary,
// whose results do not depend on where a run starts: Note [Deterministic reductions], the
// padded SIMD tail), and only values used after the chain are written out. A sum or mean
// over all elements may end the chain: it reduces each kReduceBlock block of the last value
// as reduce() does (kernels::sum_block, sum_finish), so that value is never written at all.
// The bits are the eager ops'.
#include <cstring>
#include <string_view>

#include "capture/graph.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/elementwise_hwy.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/reduce.h"
#include "ops/iter.h"

namespace ember::capture {

namespace {
constexpr int64_t kBlock = 1024;  // elements per register block: 4 or 8 KB, L1-resident
// Bytes between two scratch registers: a block plus two cache lines, so that an instruction's
// operand and result are not 4 KB apart (loads then wait on unrelated stores: "4K aliasing").
constexpr int64_t kRegPad = 128;
int64_t reg_bytes(int64_t isz) { return kBlock * isz + kRegPad; }
}  // namespace

struct FusedProgram {
  struct Instr {
    Fusable::Kind kind;
    int op;
    double alpha;
    int a = -1, b = -1;  // registers (inputs first, then one per instruction)
    bool reflected = false;
    bool simd = false;            // the SIMD kernel eager runs on a contiguous run
    int pair = -1;                // Note [Fused sincos]: the cos (sin) of the same register
    bool paired = false;          // computed by an earlier instruction's sincos
    alignas(16) char scalar[16];  // BinaryScalar: the scalar in the chain's dtype
  };
  DType dt = DType::Float32;
  Dims shape;
  int64_t numel = 0;
  std::vector<int> in_slots;             // register k < in_slots.size() reads this slot
  std::vector<bool> bcast;               // per input register: one element read everywhere
  std::vector<Instr> code;               // instruction i writes register in_slots.size() + i
  std::vector<std::pair<int, int>> out;  // (register, slot) written to memory
  bool reduce = false;                   // the last instruction's value is summed, not stored
  double divisor = 1;                    // mean: numel
  int reduce_slot = -1;
  // Note [Planned buffers]: the memory each stored value (and the reduction) got on the last
  // replay; reused when nothing else holds it any more (tensor and storage referenced only
  // here), so a steady replay allocates nothing for them.
  std::vector<Tensor> planned;
  std::string name;
};

// graph.h
bool pow_as_unary(const Fusable& f, kernels::UnaryOp* u) {
  if (f.kind != Fusable::Kind::BinaryScalar || f.op != int(kernels::BinaryOp::Pow) || f.reflected ||
      !f.scalar.is_floating())
    return false;
  const double e = f.scalar.to_double();
  if (e == 2.0) *u = kernels::UnaryOp::Square;
  else if (e == 0.5) *u = kernels::UnaryOp::Sqrt;
  else if (e == -1.0) *u = kernels::UnaryOp::Reciprocal;
  else return false;
  return true;
}

namespace {
// A scalar as ops::store_scalar stored it in a float dtype, read back as a double.
double stored_value(DType dt, const char* buf) {
  return dt == DType::Float32 ? double(*reinterpret_cast<const float*>(buf))
                              : *reinterpret_cast<const double*>(buf);
}
}  // namespace

// graph.h
bool scalar_pow_replayable(const Fusable& f, DType dt) {
  if (f.kind != Fusable::Kind::BinaryScalar || f.op != int(kernels::BinaryOp::Pow)) return true;
  if (f.reflected || f.scalar.is_complex() || (dt != DType::Float32 && dt != DType::Float64))
    return false;
  kernels::UnaryOp u;
  if (pow_as_unary(f, &u)) return true;
  alignas(16) char buf[16];
  ops::store_scalar(dt, f.scalar, buf);
  const double c = stored_value(dt, buf);
  return c == 2.0 || c == -1.0;
}

namespace {

bool float_dtype(DType d) { return d == DType::Float32 || d == DType::Float64; }

// Note [Fused sincos]: float32 sin and cos share their range reduction and compute both
// polynomials in every lane (Note [float32 sin and cos]), so a chain that takes sin and cos
// of one register, as (sin(x)**2 + cos(x)**2), computes both in one simd_sincos call at the
// first of the two instructions: the same bits as the two calls, at about the cost of one.
void pair_sincos(FusedProgram& p) {
  if (p.dt != DType::Float32) return;
  const auto trig = [](const FusedProgram::Instr& ins, kernels::UnaryOp op) {
    return ins.kind == Fusable::Kind::Unary && ins.simd && kernels::UnaryOp(ins.op) == op &&
           ins.pair < 0 && !ins.paired;
  };
  for (size_t i = 0; i < p.code.size(); ++i) {
    FusedProgram::Instr& a = p.code[i];
    const bool sin = trig(a, kernels::UnaryOp::Sin);
    if (!sin && !trig(a, kernels::UnaryOp::Cos)) continue;
    const kernels::UnaryOp other = sin ? kernels::UnaryOp::Cos : kernels::UnaryOp::Sin;
    for (size_t j = i + 1; j < p.code.size(); ++j)
      if (trig(p.code[j], other) && p.code[j].a == a.a) {
        a.pair = int(j);
        p.code[j].paired = true;
        break;
      }
  }
}

// True when register r is an input of one element broadcast over the chain (a bias, a
// 0-d value): a stride-0 operand, as make_loop gives the eager op.
bool bcast_reg(const FusedProgram& p, int r) {
  return r >= 0 && size_t(r) < p.bcast.size() && p.bcast[size_t(r)];
}

// Runs the chain's instructions on elements [b, b + n): registers that are stored point
// into their outputs, the others into per-call scratch.
void run_block(const FusedProgram& p, int64_t b, int64_t n, std::vector<char*>& reg,
               const std::vector<char*>& base, char* scratch) {
  const int64_t isz = int64_t(itemsize(p.dt));
  const size_t nin = p.in_slots.size();
  for (size_t r = 0; r < reg.size(); ++r)
    reg[r] = base[r] ? base[r] + (r < nin && p.bcast[r] ? 0 : b * isz)
                     : scratch + int64_t(r) * reg_bytes(isz);
  for (size_t i = 0; i < p.code.size(); ++i) {
    const FusedProgram::Instr& ins = p.code[i];
    char* out = reg[nin + i];
    if (ins.paired) continue;
    if (ins.pair >= 0) {
      const bool is_sin = kernels::UnaryOp(ins.op) == kernels::UnaryOp::Sin;
      char* other = reg[nin + size_t(ins.pair)];
      kernels::simd_sincos(reinterpret_cast<const float*>(reg[size_t(ins.a)]),
                           reinterpret_cast<float*>(is_sin ? out : other),
                           reinterpret_cast<float*>(is_sin ? other : out), n);
    } else if (ins.kind == Fusable::Kind::Unary && ins.simd) {  // what run1_simd calls on a run
      if (p.dt == DType::Float32)
        kernels::simd_unary(kernels::UnaryOp(ins.op),
                            reinterpret_cast<const float*>(reg[size_t(ins.a)]),
                            reinterpret_cast<float*>(out), n);
      else
        kernels::simd_unary(kernels::UnaryOp(ins.op),
                            reinterpret_cast<const double*>(reg[size_t(ins.a)]),
                            reinterpret_cast<double*>(out), n);
    } else if (ins.kind != Fusable::Kind::Unary && ins.simd) {  // what run2_simd calls
      const bool scalar = ins.kind == Fusable::Kind::BinaryScalar;
      const bool sa = scalar ? ins.reflected : bcast_reg(p, ins.a);
      const bool sb = scalar ? !ins.reflected : bcast_reg(p, ins.b);
      const char* a = scalar && sa ? ins.scalar : reg[size_t(ins.a)];
      const char* b = !scalar ? reg[size_t(ins.b)] : sb ? ins.scalar : reg[size_t(ins.a)];
      if (p.dt == DType::Float32)
        kernels::simd_binary(kernels::BinaryOp(ins.op), reinterpret_cast<const float*>(a), sa,
                             reinterpret_cast<const float*>(b), sb, reinterpret_cast<float*>(out),
                             n);
      else
        kernels::simd_binary(kernels::BinaryOp(ins.op), reinterpret_cast<const double*>(a), sa,
                             reinterpret_cast<const double*>(b), sb, reinterpret_cast<double*>(out),
                             n);
    } else if (ins.kind == Fusable::Kind::Unary) {
      char* ptrs[2] = {out, reg[size_t(ins.a)]};
      const int64_t st[2] = {isz, isz};
      kernels::unary(kernels::UnaryOp(ins.op), p.dt, kernels::Loop::flat(n, 2, ptrs, st));
    } else if (ins.kind == Fusable::Kind::Binary) {
      char* ptrs[3] = {out, reg[size_t(ins.a)], reg[size_t(ins.b)]};
      const int64_t st[3] = {isz, bcast_reg(p, ins.a) ? 0 : isz, bcast_reg(p, ins.b) ? 0 : isz};
      kernels::binary(kernels::BinaryOp(ins.op), p.dt, kernels::Loop::flat(n, 3, ptrs, st),
                      ins.alpha);
    } else {  // BinaryScalar: the scalar is a stride-0 operand, as make_loop_with_scalar
      char* s = const_cast<char*>(ins.scalar);
      char* ptrs[3] = {out, ins.reflected ? s : reg[size_t(ins.a)],
                       ins.reflected ? reg[size_t(ins.a)] : s};
      const int64_t st[3] = {isz, ins.reflected ? 0 : isz, ins.reflected ? isz : 0};
      kernels::binary(kernels::BinaryOp(ins.op), p.dt, kernels::Loop::flat(n, 3, ptrs, st), 1.0);
    }
  }
}

// The buffer kept in `keep` when only `keep` references it (Note [Planned buffers]), else a
// new one, which `keep` then holds for the next replay.
Tensor planned_buffer(Tensor& keep, IntList shape, DType dt) {
  if (keep.defined() && keep.impl()->use_count() == 1 && keep.storage()->use_count() == 1 &&
      !keep.impl()->autograd_ && !keep.impl()->requires_grad_) {
    keep.bump_version();  // as a fresh tensor would differ from what anyone saw before
    return keep;
  }
  keep = Tensor::empty(shape, dt);
  return keep;
}

// Per-thread scratch that keeps its memory from one call to the next: a fresh zeroed
// vector per call (20-64 KB) cost a chain of 100 elements more than its arithmetic.
char* thread_scratch(int which, size_t bytes) {
  thread_local std::vector<char> bufs[2];
  if (bufs[which].size() < bytes) bufs[which].resize(bytes);
  return bufs[which].data();
}

}  // namespace

void run_fused(FusedProgram& p, std::vector<Tensor>& v) {
  const size_t nin = p.in_slots.size(), nreg = nin + p.code.size();
  const int64_t isz = int64_t(itemsize(p.dt));
  std::vector<char*> base(nreg, nullptr);
  for (size_t k = 0; k < nin; ++k) base[k] = v[size_t(p.in_slots[k])].data_ptr();
  if (p.planned.size() != p.out.size() + 1) p.planned.resize(p.out.size() + 1);
  for (size_t k = 0; k < p.out.size(); ++k) {
    auto [r, slot] = p.out[k];
    Tensor t = planned_buffer(p.planned[k], p.shape, p.dt);
    base[size_t(r)] = t.data_ptr();
    v[size_t(slot)] = std::move(t);
  }
  Suspend quiet;
  if (!p.reduce) {
    kernels::parallel_for(0, p.numel, kernels::kGrain, [&](int64_t b0, int64_t e0) {
      char* scratch = thread_scratch(0, size_t(int64_t(nreg) * reg_bytes(isz)));
      std::vector<char*> reg(nreg);
      for (int64_t b = b0; b < e0; b += kBlock)
        run_block(p, b, std::min(kBlock, e0 - b), reg, base, scratch);
    });
    return;
  }
  // The reduced register gets a whole reduce block of scratch (unless it is also stored).
  const int rr = int(nreg) - 1;
  const int64_t nb =
      std::max<int64_t>(1, (p.numel + kernels::kReduceBlock - 1) / kernels::kReduceBlock);
  std::vector<double> part(static_cast<size_t>(nb));
  kernels::parallel_for(0, nb, 1, [&](int64_t k0, int64_t k1) {
    char* scratch = thread_scratch(0, size_t(int64_t(nreg) * reg_bytes(isz)));
    char* last = base[size_t(rr)]
                     ? nullptr
                     : thread_scratch(1, size_t(std::min(kernels::kReduceBlock, p.numel) * isz));
    std::vector<char*> reg(nreg), b2 = base;
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t s = k * kernels::kReduceBlock, e = std::min(p.numel, s + kernels::kReduceBlock);
      if (!base[size_t(rr)]) b2[size_t(rr)] = last - s * isz;  // block-relative
      for (int64_t b = s; b < e; b += kBlock)
        run_block(p, b, std::min(kBlock, e - b), reg, b2, scratch);
      part[size_t(k)] = kernels::sum_block(p.dt, b2[size_t(rr)] + s * isz, e - s);
    }
  });
  Tensor out = planned_buffer(p.planned.back(), {}, p.dt);
  kernels::sum_finish(p.dt, part.data(), nb, p.divisor, out.data_ptr());
  v[size_t(p.reduce_slot)] = std::move(out);
}

namespace {

// Each produced slot that is not an output is dropped after its last use, so a replay
// holds no more memory than the eager run did.
void plan_releases(Graph& g) {
  std::vector<int> last(size_t(g.num_slots), -1);
  for (size_t i = 0; i < g.steps.size(); ++i) {
    for (int s : g.steps[i].in)
      if (s >= 0) last[size_t(s)] = int(i);
    for (int s : g.steps[i].out)
      if (s >= 0) last[size_t(s)] = int(i);
  }
  std::vector<bool> keep(size_t(g.num_slots), false);
  for (int s : g.output_slots)
    if (s >= 0) keep[size_t(s)] = true;
  for (size_t s = 0; s < keep.size(); ++s)
    if (g.slots[s].kind != SlotInfo::Kind::Produced) keep[s] = true;
  for (auto& st : g.steps) st.release.clear();
  for (size_t s = 0; s < last.size(); ++s)
    if (!keep[s] && last[s] >= 0) g.steps[size_t(last[s])].release.push_back(int(s));
}

// True when slot s is a plain value a chain of shape/dtype can read.
bool chain_operand(const Graph& g, int s, const Dims& shape, DType dt) {
  if (s < 0) return false;
  const SlotInfo& i = g.slots[size_t(s)];
  return i.contiguous && i.dtype == dt && i.sizes == shape;
}

// The chain an elementwise step could start or extend: its shape and dtype, or false.
bool step_fits(const Graph& g, const Step& st, Dims* shape, DType* dt) {
  const Fusable& f = st.call.fuse;
  if (f.inplace || (f.kind != Fusable::Kind::Unary && f.kind != Fusable::Kind::Binary &&
                    f.kind != Fusable::Kind::BinaryScalar))
    return false;
  if (st.out.size() != 1 || st.out[0] < 0) return false;
  const SlotInfo& o = g.slots[size_t(st.out[0])];
  // Note [Flat replay]: requires_grad means nothing when no step builds autograd nodes.
  if (o.kind != SlotInfo::Kind::Produced || (o.requires_grad && !g.flat) || !o.contiguous ||
      !float_dtype(o.dtype))
    return false;
  if (f.kind == Fusable::Kind::BinaryScalar && f.scalar.is_complex()) return false;
  if (!scalar_pow_replayable(f, o.dtype)) return false;
  int full = 0;
  for (int s : st.in) {
    const bool one = f.kind == Fusable::Kind::Binary && s >= 0 &&
                     numel_of(g.slots[size_t(s)].sizes) == 1 && g.slots[size_t(s)].dtype == o.dtype;
    const bool whole = chain_operand(g, s, o.sizes, o.dtype);
    if ((!one && !whole) || (g.slots[size_t(s)].requires_grad && !g.flat)) return false;
    full += whole;
  }
  if (full == 0) return false;
  if (numel_of(o.sizes) == 0) return false;
  *shape = o.sizes;
  *dt = o.dtype;
  return true;
}

// reg_of: all -1 (one entry per slot), as build leaves it.
std::shared_ptr<FusedProgram> build(const Graph& g, const std::vector<size_t>& chain,
                                    const std::vector<int>& uses_after, std::vector<int>& reg_of,
                                    bool reduce) {
  auto p = std::make_shared<FusedProgram>();
  const Step& first = g.steps[chain[0]];
  p->dt = g.slots[size_t(first.out[0])].dtype;
  p->shape = g.slots[size_t(first.out[0])].sizes;
  p->numel = numel_of(p->shape);
  const size_t n_elem = chain.size() - (reduce ? 1 : 0);
  // inputs: slots read by the chain but not made by it
  for (size_t c = 0; c < n_elem; ++c)
    for (int s : g.steps[chain[c]].in)
      if (reg_of[size_t(s)] < 0) {
        bool made_here = false;
        for (size_t d = 0; d < c; ++d) made_here |= g.steps[chain[d]].out[0] == s;
        if (!made_here) {
          reg_of[size_t(s)] = int(p->in_slots.size());
          p->in_slots.push_back(s);
          p->bcast.push_back(p->numel > 1 && numel_of(g.slots[size_t(s)].sizes) == 1);
        }
      }
  const int nin = int(p->in_slots.size());
  for (size_t c = 0; c < n_elem; ++c) {
    const Step& st = g.steps[chain[c]];
    const Fusable& f = st.call.fuse;
    FusedProgram::Instr ins{};
    ins.kind = f.kind;
    ins.op = f.op;
    ins.alpha = f.alpha;
    ins.a = reg_of[size_t(st.in[0])];
    kernels::UnaryOp u;
    if (f.kind == Fusable::Kind::Binary) {
      ins.b = reg_of[size_t(st.in[1])];
    } else if (pow_as_unary(f, &u)) {
      ins.kind = Fusable::Kind::Unary;
      ins.op = int(u);
    } else if (f.kind == Fusable::Kind::BinaryScalar) {
      ins.reflected = f.reflected;
      ops::store_scalar(p->dt, f.scalar, ins.scalar);
      const double c = stored_value(p->dt, ins.scalar);
      if (f.op == int(kernels::BinaryOp::Pow) && !f.reflected && (c == 2.0 || c == -1.0)) {
        // x ** 2 with an integer (or rounded-to-2) exponent: kernels::binary's pow runs the
        // Square/Reciprocal kernel when the exponent, in the dtype, is 2 or -1; so here.
        ins.kind = Fusable::Kind::Unary;
        ins.op = int(c == 2.0 ? kernels::UnaryOp::Square : kernels::UnaryOp::Reciprocal);
      }
    }
    // Note [Square as a multiply]: eager's x ** 2 runs the scalar Square loop (x * x per
    // element); the SIMD multiply of x by itself rounds each product once too, so it gives the
    // same bits at several times the speed (it was 13% of the sin/cos chain's time).
    if (ins.kind == Fusable::Kind::Unary && ins.op == int(kernels::UnaryOp::Square) &&
        kernels::simd_binary_enabled(kernels::BinaryOp::Mul, 1.0)) {
      ins.kind = Fusable::Kind::Binary;
      ins.op = int(kernels::BinaryOp::Mul);
      ins.alpha = 1.0;
      ins.b = ins.a;
    }
    ins.simd =
        ins.kind == Fusable::Kind::Unary
            ? kernels::simd_unary_enabled(kernels::UnaryOp(ins.op))
            : kernels::simd_binary_enabled(kernels::BinaryOp(ins.op),
                                           ins.kind == Fusable::Kind::Binary ? ins.alpha : 1.0);
    p->code.push_back(ins);
    int r = nin + int(c);
    reg_of[size_t(st.out[0])] = r;
    if (uses_after[size_t(st.out[0])]) p->out.emplace_back(r, st.out[0]);
    p->name += (c ? "," : "") + std::string(st.call.op);
  }
  pair_sincos(*p);
  if (reduce) {
    const Step& st = g.steps[chain.back()];
    p->reduce = true;
    p->reduce_slot = st.out[0];
    p->divisor = st.call.fuse.op == int(kernels::ReduceOp::Mean) ? double(p->numel) : 1.0;
    p->name += std::string(",") + st.call.op;
  }
  p->name = "fused[" + p->name + "]";
  for (int s : p->in_slots) reg_of[size_t(s)] = -1;
  for (size_t c = 0; c < n_elem; ++c) reg_of[size_t(g.steps[chain[c]].out[0])] = -1;
  return p;
}

void fuse(Graph& g) {
  // How often each slot is read, and whether the graph returns it.
  std::vector<int> reads(size_t(g.num_slots), 0);
  for (const Step& st : g.steps)
    for (int s : st.in)
      if (s >= 0) ++reads[size_t(s)];
  for (int s : g.output_slots)
    if (s >= 0) reads[size_t(s)] += 1 << 20;
  for (size_t s = 0; s < g.slots.size(); ++s)
    if (g.slots[s].kind != SlotInfo::Kind::Produced) reads[s] += 1 << 20;

  // The steps are compacted in place (step w takes step i >= w, or a chain starting at i),
  // and the per-slot scratch of a chain is reset after it: a recording of thousands of
  // steps and slots is neither copied nor swept per chain.
  size_t w = 0;
  const auto keep = [&](Step&& st) {
    if (&g.steps[w] != &st) g.steps[w] = std::move(st);
    ++w;
  };
  std::vector<int> uses_after(size_t(g.num_slots), 0), reg_of(size_t(g.num_slots), -1);
  size_t i = 0;
  while (i < g.steps.size()) {
    Dims shape;
    DType dt;
    if (!step_fits(g, g.steps[i], &shape, &dt)) {
      keep(std::move(g.steps[i++]));
      continue;
    }
    std::vector<size_t> chain{i};
    size_t j = i + 1;
    Dims s2;
    DType d2;
    while (j < g.steps.size() && step_fits(g, g.steps[j], &s2, &d2) && s2 == shape && d2 == dt)
      chain.push_back(j++);
    // A closing sum/mean over all elements of the chain's last value.
    bool reduce = false;
    if (j < g.steps.size()) {
      const Step& r = g.steps[j];
      const int last = g.steps[chain.back()].out[0];
      if (r.call.fuse.kind == Fusable::Kind::Reduce && r.in.size() == 1 && r.in[0] == last &&
          r.out.size() == 1 && r.out[0] >= 0 &&
          (g.flat || !g.slots[size_t(r.out[0])].requires_grad) &&
          g.slots[size_t(r.out[0])].dtype == dt &&
          g.slots[size_t(r.out[0])].kind == SlotInfo::Kind::Produced) {
        chain.push_back(j++);
        reduce = true;
      }
    }
    if (chain.size() < 2) {
      keep(std::move(g.steps[i++]));
      continue;
    }
    // Values the chain makes that someone else reads are stored; the rest never are.
    for (size_t c = 0; c < chain.size(); ++c) {
      const int s = g.steps[chain[c]].out[0];
      int inside = 0;
      for (size_t d = c + 1; d < chain.size(); ++d)
        for (int x : g.steps[chain[d]].in) inside += x == s;
      uses_after[size_t(s)] = reads[size_t(s)] > inside;
    }
    if (reduce) uses_after[size_t(g.steps[chain.back()].out[0])] = 1;
    Step fused;
    fused.fused = build(g, chain, uses_after, reg_of, reduce);
    fused.call.op = "fused";
    for (int k : fused.fused->in_slots) fused.in.push_back(k);
    for (auto [r, s] : fused.fused->out) fused.out.push_back(s);
    if (reduce) fused.out.push_back(fused.fused->reduce_slot);
    for (size_t c : chain) uses_after[size_t(g.steps[c].out[0])] = 0;
    keep(std::move(fused));
    i = j;
  }
  g.steps.erase(g.steps.begin() + long(w), g.steps.end());
}

}  // namespace

int64_t Graph::num_fused() const {
  int64_t n = 0;
  for (const Step& s : steps) n += s.fused != nullptr;
  return n;
}

std::string fused_name(const Step& s) { return s.fused ? s.fused->name : s.call.op; }

namespace {
// Note [Flat replay]: steps a flat replay can skip. The grad mode switches (grad mode is off
// throughout); conj of a real tensor (it returns its input; dtypes are guarded); and a read
// of .grad that gives back a value an earlier step made (set_grad put it there, and in a
// flat replay only recorded calls write .grad).
bool moot_in_flat(const Graph& g, size_t i, std::vector<bool>& made) {
  const Step& st = g.steps[i];
  const std::string_view op(st.call.op);
  bool moot = op == "GradMode::set_enabled";
  if (st.in.size() == 1 && st.out.size() == 1 && st.out[0] >= 0) {
    const int o = st.out[0];
    moot |= op == "conj" && o == st.in[0];
    moot |= op == "grad" && g.slots[size_t(o)].kind == SlotInfo::Kind::Produced && made[size_t(o)];
  }
  if (!moot && op != "grad")
    for (int o : st.out)
      if (o >= 0) made[size_t(o)] = true;
  return moot;
}
}  // namespace

void optimize(Graph& g) {
  if (g.flat) {
    std::vector<bool> made(size_t(g.num_slots), false);
    size_t w = 0;  // compacted in place: a recording of thousands of steps is not copied
    for (size_t i = 0; i < g.steps.size(); ++i)
      if (!moot_in_flat(g, i, made)) {
        if (w != i) g.steps[w] = std::move(g.steps[i]);
        ++w;
      }
    g.steps.erase(g.steps.begin() + long(w), g.steps.end());
    share_views(g);
  }
  fuse(g);
  plan_releases(g);
  plan_kernels(g);
}

}  // namespace ember::capture
