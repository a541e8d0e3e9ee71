// How this copy of ember was built and what it chose at run time, as (field, value) pairs:
// version, git revision, compiler, OpenMP, SIMD targets, BLAS/LAPACK, thread counts.
// python -m ember.utils.collect_env prints them (as torch.utils.collect_env does).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace ember {

std::vector<std::pair<std::string, std::string>> build_info();

}  // namespace ember
