// Reduction kernels: the geometry (ReduceShape) and the run-time choice between the
// baseline and the AVX2 build of the kernels in reduce_impl.h.
#include "kernels/cpu/cpu.h"
#include "kernels/cpu/reduce.h"
#include "kernels/cpu/half.h"
#include "kernels/cpu/softmax_hwy.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <vector>

#define EMBER_REDUCE_ISA generic
#include "kernels/cpu/reduce_impl.h"
#include "kernels/cpu/arg_softmax_impl.h"
#undef EMBER_REDUCE_ISA

namespace ember::kernels {

namespace avx2 {  // reduce_avx2.cpp
void reduce(ReduceOp op, DType dt, const ReduceShape& g, const char* in, char* out,
            const ReduceArgs& args);
void arg_reduce(bool is_max, DType dt, const ReduceShape& g, const char* in, char* values,
                int64_t* indices);
void softmax(DType dt, const char* in, char* out, int64_t outer, int64_t n, int64_t inner,
             bool log);
void softmax_backward(DType dt, const char* g, const char* y, char* gx, int64_t rows, int64_t n,
                      bool log);
double sum_block(DType dt, const char* in, int64_t n);
}  // namespace avx2

namespace {

struct DimInfo {
  int64_t size, in, out;
};

// Stride 0 (a broadcast dim) sorts as the largest, so real memory runs stay innermost.
int64_t stride_key(int64_t s) {
  return s == 0 ? std::numeric_limits<int64_t>::max() : s < 0 ? -s : s;
}

void coalesce(DimInfo* d, int n, bool with_out, Dims& sizes, Dims& in, Dims* out) {
  std::stable_sort(d, d + n, [](const DimInfo& a, const DimInfo& b) {
    return stride_key(a.in) > stride_key(b.in);
  });
  for (int i = 0; i < n; ++i) {
    size_t last = sizes.size() - 1;
    if (!sizes.empty() && in[last] == d[i].in * d[i].size &&
        (!with_out || (*out)[last] == d[i].out * d[i].size)) {
      sizes[last] *= d[i].size;
      in[last] = d[i].in;
      if (with_out) (*out)[last] = d[i].out;
    } else {
      sizes.push_back(d[i].size);
      in.push_back(d[i].in);
      if (with_out) out->push_back(d[i].out);
    }
  }
  if (sizes.empty()) {
    sizes.push_back(1);
    in.push_back(0);
    if (with_out) out->push_back(0);
  }
}

}  // namespace

ReduceShape::ReduceShape(IntList shape, IntList in_strides, IntList out_strides, uint64_t mask) {
  DimInfo k[64], r[64];
  int nk = 0, nr = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (mask >> d & 1) r[nr++] = {shape[d], in_strides[d], 0};
    else k[nk++] = {shape[d], in_strides[d], out_strides[d]};
  }
  coalesce(k, nk, true, kept, kept_in, &kept_out);
  coalesce(r, nr, false, red, red_in, nullptr);
  num_out = numel_of(kept);
  num_red = numel_of(red);
}
void reduce(ReduceOp op, DType dt, const ReduceShape& g, const char* in, char* out,
            const ReduceArgs& args) {
  if (use_avx2()) avx2::reduce(op, dt, g, in, out, args);
  else generic::reduce(op, dt, g, in, out, args);
}

float sum_half(DType dt, const char* in, int64_t n) {
  const int64_t blocks = (n + kReduceBlock - 1) / kReduceBlock;
  std::vector<float> partial(size_t(std::max<int64_t>(blocks, 1)), 0.0f);
  parallel_for(0, blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      partial[size_t(b)] =
          half_sum(dt, in + b * kReduceBlock * 2, std::min(kReduceBlock, n - b * kReduceBlock));
  });
  float total = 0.0f;
  for (float v : partial) total += v;
  return total;
}

void arg_reduce(bool is_max, DType dt, const ReduceShape& g, const char* in, char* values,
                int64_t* indices) {
  if (use_avx2()) avx2::arg_reduce(is_max, dt, g, in, values, indices);
  else generic::arg_reduce(is_max, dt, g, in, values, indices);
}

double sum_block(DType dt, const char* in, int64_t n) {
  return use_avx2() ? avx2::sum_block(dt, in, n) : generic::sum_block(dt, in, n);
}

void sum_finish(DType dt, const double* partials, int64_t nblocks, double divisor, char* out) {
  double a = partials[0];
  if (nblocks > 1) {  // reduce_inner's order: init, then every block in turn
    a = 0.0;
    for (int64_t b = 0; b < nblocks; ++b) a = a + partials[b];
  }
  if (dt == DType::Float32) *reinterpret_cast<float*>(out) = float(a / divisor);
  else *reinterpret_cast<double*>(out) = a / divisor;
}

void softmax(DType dt, const char* in, char* out, int64_t outer, int64_t n, int64_t inner,
             bool log) {
  if ((dt == DType::Float32 || is_half(dt)) && inner == 1 && outer * n > 0)
    return softmax_rows_simd(dt, in, out, outer, n, log);
  if (use_avx2()) avx2::softmax(dt, in, out, outer, n, inner, log);
  else generic::softmax(dt, in, out, outer, n, inner, log);
}

void softmax_backward(DType dt, const char* g, const char* y, char* gx, int64_t rows, int64_t n,
                      bool log) {
  if (use_avx2()) avx2::softmax_backward(dt, g, y, gx, rows, n, log);
  else generic::softmax_backward(dt, g, y, gx, rows, n, log);
}

}  // namespace ember::kernels
