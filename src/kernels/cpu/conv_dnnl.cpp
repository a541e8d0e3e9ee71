// Note [Convolution on oneDNN]: float32 convolutions of the geometries below run oneDNN's
// convolution primitives (forward, backward-data, backward-weights; Debian's oneDNN 2.6, its
// AVX-512 direct kernels on this machine), and conv_transpose, being conv's backward-data, runs
// the same primitives with the passes swapped (src/ops/conv.cpp). Each primitive works in the
// blocked layout it chooses (nChw16c and friends): the plain NCHW input, weights and output are
// reordered into and out of the workspace the ops layer allocates, and the primitive and its
// reorders are built once per geometry and thread count, per thread.
//
// Where, measured per pass against ember's own kernels on one thread (median of 7 alternating
// repeats on a loaded machine; the table is in docs/performance.md): oneDNN took 1.2-2.2x less
// time on DCGAN's 4x4 stride-2 layers with 64-512 channels, both directions (all passes but one
// forward, 0.93x), 3-9x less on its 4x4 layers onto or from a 1x1 image (ember's im2col then
// multiplies tiny matrices), 1.5-2.7x on depthwise convolutions, and less on stride-2 3x3 and
// conv3d. ember's own paths stay where they were as fast or faster: fewer than 8 input channels
// per group (the CNN's and DCGAN's first layers: oneDNN's kernels work in blocks of 16 channels,
// and its backward-data took 2.5-9x longer there), 1x1 stride-1 convolutions (BLAS reads the
// image in place: 1.1-1.4x faster), and the direct stride-1 kernels (conv_direct.cpp) on outputs
// of at least 14x14 (from 1.25x faster, 64 channels on 28x28, to 0.9x, 128 channels on 14x14;
// on 8x8 and 4x4 outputs oneDNN took 1.2-3.9x less time). bfloat16 always goes to oneDNN.
// Float32 4x4 kernels onto at most 16 pixels per image (DCGAN's D4, and G1 and G2 through their
// adjoints) run ember's batch-folded GEMMs instead, 0.7-0.97x oneDNN's time per pass alone
// (Note [Batch-folded convolution] in conv.cpp); oneDNN keeps their non-finite operands.
//
// Sums: oneDNN does not promise the same bits for every thread count (its primitives are
// built for the thread count at hand and may split a reduction, such as backward-weights' sum
// over the batch, between threads), unlike ember's own kernels (Note [Deterministic convolution
// gradients]; the geometries they keep still guarantee it). On DCGAN's shapes 1 and 2 threads
// gave identical bits; for one thread count every result is deterministic.
#include "kernels/cpu/conv_dnnl.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#ifdef EMBER_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

#include "kernels/cpu/conv_direct.h"
#include "kernels/cpu/parallel.h"

namespace ember::kernels {
#ifdef EMBER_HAVE_DNNL
namespace {

// EMBER_CONV_DNNL=0 keeps every convolution on ember's kernels, =1 sends every geometry oneDNN
// takes to it (the tests compare both); unset, the measured policy below decides.
int dnnl_override() {
  static const int v = [] {
    const char* s = std::getenv("EMBER_CONV_DNNL");
    return s && *s ? (s[0] == '0' ? 0 : 1) : -1;
  }();
  return v;
}

// The policy's thresholds (Note [Convolution on oneDNN]).
constexpr int64_t kMinChannels = 8, kDirectPixels = 14 * 14;

bool flat(const Conv2dGeom& g) { return g.d == 1 && g.kd == 1 && g.od == 1 && g.pd == 0; }

// The input is the dense (N, C, [D,] H, W) tensor oneDNN's plain layout describes.
bool dense_input(const Conv2dGeom& g) {
  const int64_t hw = g.h * g.w, dhw = g.d * hw;
  return (g.w == 1 || g.in_stride[3] == 1) && (g.h == 1 || g.in_stride[2] == g.w) &&
         (flat(g) || g.d == 1 || g.in_stride_d == hw) && (g.c == 1 || g.in_stride[1] == dhw) &&
         (g.n == 1 || g.in_stride[0] == g.c * dhw);
}

}  // namespace

bool conv_dnnl_preferred(DType dt, const Conv2dGeom& g) {
  if ((dt != DType::Float32 && dt != DType::BFloat16) || g.n == 0) return false;
  const int o = dnnl_override();
  if (o >= 0 || dt == DType::BFloat16) return o != 0;
  if (conv2d_folded_preferred(dt, g)) return false;  // Note [Batch-folded convolution]
  const int64_t cg = g.c / g.groups;
  if (cg == 1 && g.groups > 1) return true;  // depthwise: ember runs one small GEMM per group
  if (cg < kMinChannels) return false;       // few input channels: im2col's GEMM is cheap
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.kd == 1 && g.sh == 1 && g.sw == 1 &&
                         g.sd == 1 && g.ph == 0 && g.pw == 0 && g.pd == 0;
  if (pointwise) return false;  // BLAS reads the image in place
  const bool direct = flat(g) && conv2d_direct_ok(g);
  return !direct || g.ho * g.wo < kDirectPixels;
}

namespace {

dnnl_engine_t engine() {
  static const dnnl_engine_t e = [] {
    dnnl_engine_t x = nullptr;
    return dnnl_engine_create(&x, dnnl_cpu, 0) == dnnl_success ? x : nullptr;
  }();
  return e;
}

// One argument of a primitive: its plain layout (ember's tensor) and the layout the primitive
// chose; when they differ, a reorder to (input) or from (output) a region of the workspace.
struct Arg {
  int dnnl_arg = 0;
  bool output = false;
  dnnl_memory_t user = nullptr, inner = nullptr;  // inner: the primitive's side (= user if same)
  dnnl_primitive_t reorder = nullptr;
  int64_t offset = 0;  // bytes into the workspace (reordered args only)
};

struct Entry {
  dnnl_primitive_t prim = nullptr;
  Arg args[4];
  int nargs = 0;
  int64_t ws_bytes = 0;       // the reorders' regions, then (backward weights) a grad_weight
  int64_t weight_offset = 0;  // where that grad_weight goes when the caller wants none
  ~Entry() {
    for (int i = 0; i < nargs; ++i) {
      Arg& a = args[i];
      if (a.reorder) dnnl_primitive_destroy(a.reorder);
      if (a.inner && a.inner != a.user) dnnl_memory_destroy(a.inner);
      if (a.user) dnnl_memory_destroy(a.user);
    }
    if (prim) dnnl_primitive_destroy(prim);
  }
};

using Key = std::array<int64_t, 26>;

Key key_of(DType dt, const Conv2dGeom& g, ConvPass pass, bool bias) {
  return {int64_t(dt), int64_t(pass), bias,     num_threads(), g.n,  g.c,  g.h,  g.w,  g.o,
          g.kh,        g.kw,          g.groups, g.sh,          g.sw, g.ph, g.pw, g.dh, g.dw,
          g.ho,        g.wo,          g.d,      g.kd,          g.sd, g.pd, g.dd, g.od};
}

constexpr int64_t kAlign = 64;
int64_t align_up(int64_t b) { return (b + kAlign - 1) / kAlign * kAlign; }

// Memory descriptors of the plain tensors: (N, C, [D,] H, W), weights (O, C / g, [kd,] kh, kw)
// or, grouped, (g, O / g, C / g, ...), bias (O,). tag_any asks for the primitive's choice.
struct Descs {
  dnnl_memory_desc_t src, wei, dst, bias;
};

bool plain_descs(dnnl_data_type_t t, const Conv2dGeom& g, bool any, Descs& d) {
  const bool f = flat(g);
  const int nd = f ? 4 : 5;
  dnnl_dims_t src = {g.n, g.c}, dst = {g.n, g.o}, wei;
  int k = 2;
  if (!f) src[k] = g.d, dst[k] = g.od, ++k;
  src[k] = g.h, src[k + 1] = g.w, dst[k] = g.ho, dst[k + 1] = g.wo;
  const bool grouped = g.groups > 1;
  int w = 0;
  if (grouped) wei[w++] = g.groups;
  wei[w++] = g.o / g.groups, wei[w++] = g.c / g.groups;
  if (!f) wei[w++] = g.kd;
  wei[w++] = g.kh, wei[w++] = g.kw;
  const dnnl_format_tag_t act = f ? dnnl_nchw : dnnl_ncdhw;
  const dnnl_format_tag_t wt =
      grouped ? (f ? dnnl_goihw : dnnl_goidhw) : (f ? dnnl_oihw : dnnl_oidhw);
  const dnnl_format_tag_t tag_a = any ? dnnl_format_tag_any : act;
  const dnnl_format_tag_t tag_w = any ? dnnl_format_tag_any : wt;
  dnnl_dims_t b = {g.o};
  return dnnl_memory_desc_init_by_tag(&d.src, nd, src, t, tag_a) == dnnl_success &&
         dnnl_memory_desc_init_by_tag(&d.dst, nd, dst, t, tag_a) == dnnl_success &&
         dnnl_memory_desc_init_by_tag(&d.wei, w, wei, t, tag_w) == dnnl_success &&
         dnnl_memory_desc_init_by_tag(&d.bias, 1, b, t, dnnl_a) == dnnl_success;
}

// oneDNN's strides, dilations (minus one) and paddings. The padding after is the least that
// gives ember's output size (ember's own may be larger and then unused, floor division).
struct Spatial {
  dnnl_dims_t strides, dilates, pad_l, pad_r;
};

Spatial spatial_of(const Conv2dGeom& g) {
  Spatial s{};
  const int64_t in[3] = {g.d, g.h, g.w}, k[3] = {g.kd, g.kh, g.kw}, st[3] = {g.sd, g.sh, g.sw},
                pad[3] = {g.pd, g.ph, g.pw}, dil[3] = {g.dd, g.dh, g.dw},
                out[3] = {g.od, g.ho, g.wo};
  const int first = flat(g) ? 1 : 0;
  for (int i = first; i < 3; ++i) {
    const int j = i - first;
    const int64_t ek = (k[i] - 1) * dil[i] + 1;
    s.strides[j] = st[i], s.dilates[j] = dil[i] - 1, s.pad_l[j] = pad[i];
    s.pad_r[j] = std::max<int64_t>(0, (out[i] - 1) * st[i] + ek - in[i] - pad[i]);
  }
  return s;
}

dnnl_primitive_desc_t make_pd(const void* desc, const_dnnl_primitive_desc_t hint) {
  dnnl_primitive_desc_t pd = nullptr;
  return dnnl_primitive_desc_create(&pd, desc, nullptr, engine(), hint) == dnnl_success ? pd
                                                                                        : nullptr;
}

dnnl_primitive_desc_t forward_pd(const Descs& a, const Spatial& s, bool bias) {
  dnnl_convolution_desc_t cd;
  if (dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_training,
                                                 dnnl_convolution_direct, &a.src, &a.wei,
                                                 bias ? &a.bias : nullptr, &a.dst, s.strides,
                                                 s.dilates, s.pad_l, s.pad_r) != dnnl_success)
    return nullptr;
  return make_pd(&cd, nullptr);
}

// Adds argument `which` (a DNNL_ARG_*) of pd, with the user's plain layout `user`.
bool add_arg(Entry& e, const_dnnl_primitive_desc_t pd, int which, const dnnl_memory_desc_t& user,
             bool output) {
  const dnnl_memory_desc_t* inner = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, which);
  if (!inner) return false;
  Arg& a = e.args[e.nargs++];
  a.dnnl_arg = which, a.output = output;
  if (dnnl_memory_create(&a.user, &user, engine(), DNNL_MEMORY_NONE) != dnnl_success) return false;
  if (dnnl_memory_desc_equal(inner, &user)) {
    a.inner = a.user;
    return true;
  }
  if (dnnl_memory_create(&a.inner, inner, engine(), DNNL_MEMORY_NONE) != dnnl_success) return false;
  a.offset = e.ws_bytes;
  e.ws_bytes += align_up(int64_t(dnnl_memory_desc_get_size(inner)));
  dnnl_primitive_desc_t rpd = nullptr;
  const dnnl_memory_desc_t* from = output ? inner : &user;
  const dnnl_memory_desc_t* to = output ? &user : inner;
  if (dnnl_reorder_primitive_desc_create(&rpd, from, engine(), to, engine(), nullptr) !=
      dnnl_success)
    return false;
  const bool ok = dnnl_primitive_create(&a.reorder, rpd) == dnnl_success;
  dnnl_primitive_desc_destroy(rpd);
  return ok;
}

// The primitive descriptor of a backward pass (fwd: its forward, oneDNN's hint); nullptr when
// oneDNN refuses it.
dnnl_primitive_desc_t backward_pd(ConvPass pass, const Descs& any, const Descs& user,
                                  const Spatial& s, bool bias, const_dnnl_primitive_desc_t fwd) {
  dnnl_convolution_desc_t cd;
  const dnnl_status_t st =
      pass == ConvPass::BackwardData
          ? dnnl_dilated_convolution_backward_data_desc_init(&cd, dnnl_convolution_direct, &any.src,
                                                             &any.wei, &any.dst, s.strides,
                                                             s.dilates, s.pad_l, s.pad_r)
          : dnnl_dilated_convolution_backward_weights_desc_init(&cd, dnnl_convolution_direct,
                                                                &any.src, &any.wei,
                                                                bias ? &user.bias : nullptr,
                                                                &any.dst, s.strides, s.dilates,
                                                                s.pad_l, s.pad_r);
  return st == dnnl_success ? make_pd(&cd, fwd) : nullptr;
}

// The arguments of each pass, in the order the conv_dnnl_* functions pass their pointers.
bool add_args(Entry& e, const_dnnl_primitive_desc_t pd, ConvPass pass, const Descs& user,
              bool bias) {
  switch (pass) {
    case ConvPass::Forward:
      return add_arg(e, pd, DNNL_ARG_SRC, user.src, false) &&
             add_arg(e, pd, DNNL_ARG_WEIGHTS, user.wei, false) &&
             add_arg(e, pd, DNNL_ARG_DST, user.dst, true) &&
             (!bias || add_arg(e, pd, DNNL_ARG_BIAS, user.bias, false));
    case ConvPass::BackwardData:
      return add_arg(e, pd, DNNL_ARG_DIFF_DST, user.dst, false) &&
             add_arg(e, pd, DNNL_ARG_WEIGHTS, user.wei, false) &&
             add_arg(e, pd, DNNL_ARG_DIFF_SRC, user.src, true);
    case ConvPass::BackwardWeights:
      if (!add_arg(e, pd, DNNL_ARG_SRC, user.src, false) ||
          !add_arg(e, pd, DNNL_ARG_DIFF_DST, user.dst, false) ||
          !add_arg(e, pd, DNNL_ARG_DIFF_WEIGHTS, user.wei, true) ||
          (bias && !add_arg(e, pd, DNNL_ARG_DIFF_BIAS, user.bias, true)))
        return false;
      e.weight_offset = e.ws_bytes;  // grad_weight's place when the caller wants none
      e.ws_bytes += align_up(int64_t(dnnl_memory_desc_get_size(&user.wei)));
      return true;
  }
  return false;
}

// Builds the primitive of one pass and its reorders; nullptr when oneDNN refuses.
std::unique_ptr<Entry> build(DType dt, const Conv2dGeom& g, ConvPass pass, bool bias) {
  const dnnl_data_type_t t = dt == DType::BFloat16 ? dnnl_bf16 : dnnl_f32;
  Descs user, any;
  if (!engine() || !plain_descs(t, g, false, user) || !plain_descs(t, g, true, any)) return nullptr;
  const Spatial s = spatial_of(g);
  dnnl_primitive_desc_t fwd = forward_pd(any, s, pass == ConvPass::Forward && bias);
  if (!fwd) return nullptr;
  dnnl_primitive_desc_t pd =
      pass == ConvPass::Forward ? fwd : backward_pd(pass, any, user, s, bias, fwd);
  auto e = std::make_unique<Entry>();
  const bool ok = pd && add_args(*e, pd, pass, user, bias) &&
                  dnnl_primitive_create(&e->prim, pd) == dnnl_success;
  if (pd && pd != fwd) dnnl_primitive_desc_destroy(pd);
  dnnl_primitive_desc_destroy(fwd);
  return ok ? std::move(e) : nullptr;
}

// The primitives of this thread, by geometry (building one costs 0.1-1 ms; a training step
// runs the same few shapes every time). A bound keeps a sweep of shapes from piling up.
Entry* entry(DType dt, const Conv2dGeom& g, ConvPass pass, bool bias) {
  // The batch-folded path's geometries keep oneDNN for non-finite operands (Note
  // [Batch-folded convolution] in conv.cpp), unless EMBER_CONV_DNNL=0.
  const bool fallback = dnnl_override() != 0 && conv2d_folded_preferred(dt, g);
  // backward-data never reads the input
  if (!(conv_dnnl_preferred(dt, g) || fallback) ||
      (pass != ConvPass::BackwardData && !dense_input(g)))
    return nullptr;
  thread_local std::map<Key, std::unique_ptr<Entry>> cache;
  const Key key = key_of(dt, g, pass, bias);
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() >= 128) cache.clear();
    it = cache.emplace(key, build(dt, g, pass, bias)).first;  // a refusal is cached too
  }
  return it->second.get();
}

// ptrs[i]: the user's buffer of args[i].
bool execute(Entry& e, void* const* ptrs, void* workspace) {
  thread_local dnnl_stream_t stream = nullptr;
  if (!stream && dnnl_stream_create(&stream, engine(), dnnl_stream_default_flags) != dnnl_success)
    return false;
  auto* ws = static_cast<char*>(workspace);
  dnnl_exec_arg_t args[4];
  for (int i = 0; i < e.nargs; ++i) {
    Arg& a = e.args[i];
    if (dnnl_memory_set_data_handle(a.user, ptrs[i]) != dnnl_success) return false;
    if (a.inner != a.user && dnnl_memory_set_data_handle(a.inner, ws + a.offset) != dnnl_success)
      return false;
    args[i] = {a.dnnl_arg, a.inner};
  }
  auto reorder = [&](Arg& a) {
    dnnl_exec_arg_t ra[2] = {{DNNL_ARG_FROM, a.output ? a.inner : a.user},
                             {DNNL_ARG_TO, a.output ? a.user : a.inner}};
    return dnnl_primitive_execute(a.reorder, stream, 2, ra) == dnnl_success;
  };
  for (int i = 0; i < e.nargs; ++i)
    if (e.args[i].reorder && !e.args[i].output && !reorder(e.args[i])) return false;
  if (dnnl_primitive_execute(e.prim, stream, e.nargs, args) != dnnl_success) return false;
  for (int i = 0; i < e.nargs; ++i)
    if (e.args[i].reorder && e.args[i].output && !reorder(e.args[i])) return false;
  return dnnl_stream_wait(stream) == dnnl_success;
}

int64_t elements(DType dt, int64_t bytes) {
  const int64_t size = dt == DType::BFloat16 ? 2 : 4;
  return (bytes + size - 1) / size;
}

}  // namespace

int64_t conv_dnnl_workspace(DType dt, const Conv2dGeom& g, ConvPass pass) {
  Entry* e = entry(dt, g, pass, false);  // a bias never needs a reorder: same workspace
  return e ? elements(dt, e->ws_bytes) : -1;
}

bool conv_dnnl_forward(DType dt, const Conv2dGeom& g, const void* input, const void* weight,
                       const void* bias, void* out, void* workspace) {
  Entry* e = entry(dt, g, ConvPass::Forward, bias != nullptr);
  void* ptrs[4] = {const_cast<void*>(input), const_cast<void*>(weight), out,
                   const_cast<void*>(bias)};
  return e && execute(*e, ptrs, workspace);
}

bool conv_dnnl_backward_data(DType dt, const Conv2dGeom& g, const void* weight,
                             const void* grad_out, void* grad_input, void* workspace) {
  Entry* e = entry(dt, g, ConvPass::BackwardData, false);
  void* ptrs[3] = {const_cast<void*>(grad_out), const_cast<void*>(weight), grad_input};
  return e && execute(*e, ptrs, workspace);
}

bool conv_dnnl_backward_weights(DType dt, const Conv2dGeom& g, const void* input,
                                const void* grad_out, void* grad_weight, void* grad_bias,
                                void* workspace) {
  Entry* e = entry(dt, g, ConvPass::BackwardWeights, grad_bias != nullptr);
  if (!e) return false;
  void* gw = grad_weight ? grad_weight : static_cast<char*>(workspace) + e->weight_offset;
  void* ptrs[4] = {const_cast<void*>(input), const_cast<void*>(grad_out), gw, grad_bias};
  return execute(*e, ptrs, workspace);
}

#else  // no oneDNN in the build: ember's kernels run everything

bool conv_dnnl_preferred(DType, const Conv2dGeom&) { return false; }
int64_t conv_dnnl_workspace(DType, const Conv2dGeom&, ConvPass) { return -1; }
bool conv_dnnl_forward(DType, const Conv2dGeom&, const void*, const void*, const void*, void*,
                       void*) {
  return false;
}
bool conv_dnnl_backward_data(DType, const Conv2dGeom&, const void*, const void*, void*, void*) {
  return false;
}
bool conv_dnnl_backward_weights(DType, const Conv2dGeom&, const void*, const void*, void*, void*,
                                void*) {
  return false;
}

#endif

}  // namespace ember::kernels
