// Thread settings exposed to users (torch.set_num_threads / get_num_threads) and the build
// report (ember::build_info, behind python -m ember.utils.collect_env).
#include <omp.h>

#include "ember/build_info.h"
#include "ember/cpu_settings.h"
#include "ember/ops.h"
#include "kernels/cpu/build_info.h"
#include "kernels/cpu/parallel.h"

#ifndef EMBER_GIT_REVISION
#define EMBER_GIT_REVISION "unknown"
#endif

namespace ember {

int get_num_threads() { return kernels::num_threads(); }

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, ValueError, "set_num_threads: expected a positive number of threads, got ", n);
  kernels::set_num_threads(n);
}

void init_num_threads() { kernels::init_num_threads(); }

bool set_flush_denormal(bool on) { return kernels::set_flush_denormal(on); }

std::vector<std::pair<std::string, std::string>> build_info() {
  std::vector<std::pair<std::string, std::string>> info =
  { {"git_revision", EMBER_GIT_REVISION},
#if defined(__clang__)
    {"compiler", "clang " __clang_version__},
#elif defined(__GNUC__)
    {"compiler", "gcc " __VERSION__},
#else
    {"compiler", "unknown"},
#endif
    {"cxx_standard", std::to_string(__cplusplus)},
#ifdef _GLIBCXX_USE_CXX11_ABI
    {"cxx11_abi", std::to_string(_GLIBCXX_USE_CXX11_ABI)},
#else
    {"cxx11_abi", "0"},
#endif
    {"openmp", std::to_string(_OPENMP)},
    {"num_threads", std::to_string(get_num_threads())},
#ifdef NDEBUG
    {"build_type", "release (asserts off)"},
#else
    {"build_type", "debug (asserts on)"},
#endif
  };
  for (auto& kv : kernels::simd_info()) info.push_back(std::move(kv));
  for (auto& kv : kernels::blas_info()) info.push_back(std::move(kv));
  return info;
}

}  // namespace ember
