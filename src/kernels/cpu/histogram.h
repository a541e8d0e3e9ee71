// The binning behind torch.histogram / histogramdd: each point's bin by binary search over
// each dim's edges, counted (or weighted) into a dense histogram.
#pragma once
#include <cstdint>
#include <vector>

#include "ember/dtype.h"

namespace ember::kernels {

// hist (contiguous, dtype dt, nbins[0] x ... x nbins[D-1]) += weight of each of the n points of
// `points` (n x D, contiguous, dt): point i falls in bin k along dim d when
// edges[d][k] <= x < edges[d][k + 1], or in the last bin when x equals the last edge; points
// outside the edges or NaN are left out. `weight` (n values of dt) may be null (weight 1).
void histogramdd(DType dt, const char* points, int64_t n, int64_t D,
                 const std::vector<const char*>& edges, const std::vector<int64_t>& nbins,
                 const char* weight, char* hist);

}  // namespace ember::kernels
