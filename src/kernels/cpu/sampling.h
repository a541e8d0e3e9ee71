// Samplers for the random ops (src/ops/random.cpp): each draws its n values in order from one
// Generator, under one hold of its lock, from contiguous double arrays (the ops convert), so a
// stream depends only on its seed. The distributions are the C++ library's (<random>) fed by
// ember's generator; multinomial and the gamma gradient are written here.
#pragma once
#include <cstdint>

#include "ember/random.h"

namespace ember::kernels {

// Gamma(alpha, 1), clamped below to `tiny` (the output dtype's smallest normal), as torch:
// alpha <= 0 or NaN gives `tiny`.
void standard_gamma(Generator& g, const double* alpha, double* out, int64_t n, double tiny);
// d sample / d alpha of a Gamma(alpha, 1) sample x (implicit reparameterization:
// -(dP(alpha, x)/d alpha) / (dP(alpha, x)/dx), P the regularized incomplete gamma function).
void standard_gamma_grad(const double* x, const double* alpha, double* out, int64_t n);
// Poisson(rate); rate 0 gives 0.
void poisson(Generator& g, const double* rate, double* out, int64_t n);
// Binomial(count, prob); count <= 0 or prob <= 0 gives 0, prob >= 1 gives count, as torch.
void binomial(Generator& g, const double* count, const double* prob, double* out, int64_t n);
// 1 with probability p[i] (p_stride 0: one p for all), else 0.
void bernoulli(Generator& g, const double* p, int64_t p_stride, double* out, int64_t n);

// Fills out[0..n) with draws of one distribution of <random>.
enum class Fill { Exponential, Geometric, Cauchy, LogNormal };
void fill(Generator& g, Fill kind, double a, double b, double* out, int64_t n);

// `rows` rows of `cats` non-negative weights (validated by the caller): k category indices per
// row, with replacement (inverse CDF) or without (Efraimidis-Spirakis keys u^(1/w): the k
// largest, which is sampling without replacement proportionally to the weights).
void multinomial(Generator& g, const double* w, int64_t rows, int64_t cats, int64_t k,
                 bool replacement, int64_t* out);

}  // namespace ember::kernels
