// Note [Half matmul] (blas_half.h).
#include "kernels/cpu/blas_half.h"

#include <cblas.h>

#include <map>
#include <memory>
#include <tuple>

#ifdef EMBER_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

#include "kernels/cpu/gemm_amx_bf16.h"
#include "kernels/cpu/half.h"
#include "kernels/cpu/parallel.h"

namespace ember::kernels {
namespace {

struct FloatBuffer {
  std::unique_ptr<float[]> data;
  explicit FloatBuffer(int64_t n) : data(new float[size_t(std::max<int64_t>(n, 1))]) {}
  float* get() const { return data.get(); }
};

// out (rows x cols, row-major) = the half matrix whose element (i, j) sits at
// p[i * rs + j * cs] (element strides).
void widen(DType dt, const void* p, int64_t rows, int64_t cols, int64_t rs, int64_t cs,
           float* out) {
  const auto* base = static_cast<const uint16_t*>(p);
  parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(cols, 1)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t i = r0; i < r1; ++i) {
                   if (cs == 1) {
                     half_to_float(dt, base + i * rs, out + i * cols, cols);
                   } else {
                     for (int64_t j = 0; j < cols; ++j)
                       half_to_float(dt, base + i * rs + j * cs, out + i * cols + j, 1);
                   }
                 }
               });
}

void narrow_rows(DType dt, const float* in, int64_t rows, int64_t cols, void* c, int64_t ldc) {
  auto* base = static_cast<uint16_t*>(c);
  parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(cols, 1)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t i = r0; i < r1; ++i)
                   float_to_half(dt, in + i * cols, base + i * ldc, cols);
               });
}

#ifdef EMBER_HAVE_DNNL
// Note [bfloat16 matmul on oneDNN]: where ember's AMX kernel cannot run (no AMX: Note [AMX
// bfloat16 gemm]), oneDNN's matmul primitive multiplies bfloat16 operands on the CPU's own
// instructions (AVX-512 BF16 where present, picked by oneDNN at run time), accumulates in
// float32 and rounds the result once into bfloat16 C; beta == 1 (addmm's bias already in C) is
// its sum post-op, in float32 before that one rounding. The primitive of each geometry is built
// once per thread and kept (building one costs tens of microseconds). Products below kDnnlWork
// multiply-adds, alpha != 1 or beta other than 0 and 1 take the sgemm path.
constexpr int64_t kDnnlWork = int64_t(1) << 18;

struct Dnnl {
  dnnl_engine_t engine = nullptr;
  Dnnl() {
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success) engine = nullptr;
  }
};

dnnl_engine_t dnnl_engine() {
  static Dnnl d;
  return d.engine;
}

using DnnlKey = std::tuple<int64_t, int64_t, int64_t, bool, int64_t, bool, int64_t, int64_t, bool>;

struct DnnlPrim {
  dnnl_primitive_t prim = nullptr;
  dnnl_memory_desc_t a, b, c;
};

dnnl_primitive_t build(const DnnlKey& key, DnnlPrim& p) {
  auto [m, n, k, at, lda, bt, ldb, ldc, accumulate] = key;
  dnnl_dims_t ad = {m, k}, bd = {k, n}, cd = {m, n};
  dnnl_dims_t as = {at ? 1 : lda, at ? lda : 1}, bs = {bt ? 1 : ldb, bt ? ldb : 1}, cs = {ldc, 1};
  if (dnnl_memory_desc_init_by_strides(&p.a, 2, ad, dnnl_bf16, as) != dnnl_success ||
      dnnl_memory_desc_init_by_strides(&p.b, 2, bd, dnnl_bf16, bs) != dnnl_success ||
      dnnl_memory_desc_init_by_strides(&p.c, 2, cd, dnnl_bf16, cs) != dnnl_success)
    return nullptr;
  dnnl_matmul_desc_t md;
  if (dnnl_matmul_desc_init(&md, &p.a, &p.b, nullptr, &p.c) != dnnl_success) return nullptr;
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_post_ops_t post = nullptr;
  if (accumulate) {
    dnnl_primitive_attr_create(&attr);
    dnnl_post_ops_create(&post);
    dnnl_post_ops_append_sum(post, 1.0f);
    dnnl_primitive_attr_set_post_ops(attr, post);
  }
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_status_t st = dnnl_primitive_desc_create(&pd, &md, attr, dnnl_engine(), nullptr);
  if (post) dnnl_post_ops_destroy(post);
  if (attr) dnnl_primitive_attr_destroy(attr);
  if (st != dnnl_success) return nullptr;
  st = dnnl_primitive_create(&p.prim, pd);
  dnnl_primitive_desc_destroy(pd);
  return st == dnnl_success ? p.prim : nullptr;
}

bool gemm_bf16_dnnl(int64_t m, int64_t n, int64_t k, float alpha, MatRef a, MatRef b, float beta,
                    void* c, int64_t ldc) {
  if (alpha != 1.0f || (beta != 0.0f && beta != 1.0f) || m * n * k < kDnnlWork || !dnnl_engine())
    return false;
  thread_local std::map<DnnlKey, DnnlPrim> cache;
  thread_local dnnl_stream_t stream = nullptr;
  if (!stream &&
      dnnl_stream_create(&stream, dnnl_engine(), dnnl_stream_default_flags) != dnnl_success)
    return false;
  const DnnlKey key{m, n, k, a.trans, a.ld, b.trans, b.ld, ldc, beta == 1.0f};
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() >= 64) cache.clear();  // a bound: shapes seen once (a sweep) do not pile up
    DnnlPrim p;
    if (!build(key, p)) return false;
    it = cache.emplace(key, p).first;
  }
  DnnlPrim& p = it->second;
  dnnl_memory_t ma = nullptr, mb = nullptr, mc = nullptr;
  bool ok =
      dnnl_memory_create(&ma, &p.a, dnnl_engine(), const_cast<void*>(a.ptr)) == dnnl_success &&
      dnnl_memory_create(&mb, &p.b, dnnl_engine(), const_cast<void*>(b.ptr)) == dnnl_success &&
      dnnl_memory_create(&mc, &p.c, dnnl_engine(), c) == dnnl_success;
  if (ok) {
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}};
    ok = dnnl_primitive_execute(p.prim, stream, 3, args) == dnnl_success &&
         dnnl_stream_wait(stream) == dnnl_success;
  }
  for (dnnl_memory_t mem : {ma, mb, mc})
    if (mem) dnnl_memory_destroy(mem);
  return ok;
}
#endif

}  // namespace

void gemm_half(DType dt, int64_t m, int64_t n, int64_t k, Scalar alpha, MatRef a, MatRef b,
               Scalar beta, void* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  const float al = float(alpha.to_double()), be = float(beta.to_double());
  // Note [AMX bfloat16 gemm]: ember's own tile kernel where the CPU has AMX; then oneDNN's
  // matmul; then float32 sgemm. Below kAmxWork multiply-adds the tile setup is not worth it
  // (one thread: 16^3 took 2.4 us on tiles against 0.7 through sgemm, 32^3 1.0 against 1.5).
  constexpr int64_t kAmxWork = int64_t(1) << 15;
  // float16 on the same tiles as two bfloat16 planes (Note [AMX float16 gemm]).
  if (m * n * std::max<int64_t>(k, 1) >= kAmxWork &&
      (dt == DType::BFloat16 ? gemm_amx_bf16(m, n, k, al, a, b, be, c, ldc)
                             : gemm_amx_f16(m, n, k, al, a, b, be, c, ldc)))
    return;
#ifdef EMBER_HAVE_DNNL
  if (dt == DType::BFloat16 && gemm_bf16_dnnl(m, n, k, al, a, b, be, c, ldc)) return;
#endif
  FloatBuffer A(m * k), B(k * n), C(m * n);
  widen(dt, a.ptr, m, k, a.trans ? 1 : a.ld, a.trans ? a.ld : 1, A.get());
  widen(dt, b.ptr, k, n, b.trans ? 1 : b.ld, b.trans ? b.ld : 1, B.get());
  if (be != 0) widen(dt, c, m, n, ldc, 1, C.get());
  if (k == 0 || al == 0) {
    for (int64_t i = 0; i < m * n; ++i) C.get()[i] = be == 0 ? 0.0f : be * C.get()[i];
  } else {
    // ember's own float32 product (Note [float32 gemm]: oneDNN's sgemm for large products), so
    // float16 runs at float32's speed: 2048^2 float16 took 111-115 ms this way against 134-138
    // ms through OpenBLAS's sgemm (one thread, loaded machine; float32 itself 101-104 ms).
    gemm(DType::Float32, m, n, k, Scalar(double(al)),
         MatRef{A.get(), false, std::max<int64_t>(k, 1)}, MatRef{B.get(), false, n},
         Scalar(double(be)), C.get(), n);
  }
  narrow_rows(dt, C.get(), m, n, c, ldc);
}

void gemv_half(DType dt, int64_t m, int64_t n, Scalar alpha, MatRef a, const void* x, int64_t incx,
               Scalar beta, void* y, int64_t incy) {
  // x as an (n, 1) matrix with row stride incx, y as (m, 1) with row stride incy.
  if (m == 0) return;
  const float al = float(alpha.to_double()), be = float(beta.to_double());
  FloatBuffer A(m * n), X(n), Y(m);
  widen(dt, a.ptr, m, n, a.trans ? 1 : a.ld, a.trans ? a.ld : 1, A.get());
  widen(dt, x, n, 1, incx, 1, X.get());
  if (be != 0) widen(dt, y, m, 1, incy, 1, Y.get());
  if (n == 0 || al == 0) {
    for (int64_t i = 0; i < m; ++i) Y.get()[i] = be == 0 ? 0.0f : be * Y.get()[i];
  } else {
    cblas_sgemv(CblasRowMajor, CblasNoTrans, int(m), int(n), al, A.get(),
                int(std::max<int64_t>(n, 1)), X.get(), 1, be, Y.get(), 1);
  }
  narrow_rows(dt, Y.get(), m, 1, y, incy);
}

void dot_half(DType dt, int64_t n, const void* x, int64_t incx, const void* y, int64_t incy,
              void* out) {
  FloatBuffer X(n), Y(n);
  widen(dt, x, n, 1, incx, 1, X.get());
  widen(dt, y, n, 1, incy, 1, Y.get());
  float acc = 0;
  for (int64_t s = 0; s < n; s += int64_t(1) << 30) {
    const int len = int(std::min<int64_t>(int64_t(1) << 30, n - s));
    acc += cblas_sdot(len, X.get() + s, 1, Y.get() + s, 1);
  }
  float_to_half(dt, &acc, out, 1);
}

}  // namespace ember::kernels
