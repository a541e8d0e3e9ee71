// What the kernel layer was built with and picked at run time: the SIMD targets (Highway's
// dispatch and ember's own AVX2 copies) and the BLAS library. Read by ember::build_info().
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace ember::kernels {

using InfoList = std::vector<std::pair<std::string, std::string>>;

InfoList simd_info();
InfoList blas_info();

}  // namespace ember::kernels
