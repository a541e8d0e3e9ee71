#include "kernels/cpu/build_info.h"

#include <cblas.h>
#include <hwy/highway.h>
#include <hwy/targets.h>

#include "kernels/cpu/cpu.h"
#include "kernels/cpu/gemm_amx_bf16.h"

namespace ember::kernels {

namespace {

// Highway's target bits are ordered best first (lower bit = wider/newer instruction set).
std::string target_names(int64_t bits) {
  std::string out;
  for (int64_t rest = bits; rest != 0; rest &= rest - 1) {
    const int64_t bit = rest & -rest;
    if (!out.empty()) out += ' ';
    out += hwy::TargetName(bit);
  }
  return out;
}

}  // namespace

InfoList simd_info() {
  const int64_t compiled = HWY_TARGETS;
  const int64_t usable = compiled & hwy::SupportedTargets();
  return {
      {"simd_target", usable ? hwy::TargetName(usable & -usable) : "none"},
      {"simd_compiled_targets", target_names(compiled)},
      {"simd_cpu_targets", target_names(hwy::SupportedTargets())},
      {"avx2_kernels", use_avx2() ? "on" : "off"},
      {"amx_bf16_kernels", amx_bf16_available() ? "on" : "off"},
  };
}

InfoList blas_info() {
  static const char* const kParallel[] = {"sequential", "pthreads", "openmp"};
  const int parallel = openblas_get_parallel();
  return {
      {"blas", "OpenBLAS"},
      {"blas_config", openblas_get_config()},
      {"blas_core", openblas_get_corename()},
      {"blas_threading", parallel >= 0 && parallel <= 2 ? kParallel[parallel] : "unknown"},
      {"blas_num_threads", std::to_string(openblas_get_num_threads())},
  };
}

}  // namespace ember::kernels
