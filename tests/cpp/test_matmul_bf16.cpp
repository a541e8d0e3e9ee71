// bfloat16 matrix products (Note [AMX bfloat16 gemm] where the CPU has AMX, oneDNN or float32
// sgemm elsewhere) on small integers: every product and partial sum is exact in float32, so the
// result must equal the float64 product rounded once to bfloat16, bit for bit, on every path.
// The sanitizer build runs these too (the AMX path on an AMX machine).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ember/build_info.h"
#include "ember/ember.h"
#include "ember/half.h"

using namespace ember;

namespace {

Tensor small_ints(IntList shape, uint64_t seed) {
  Generator gen(seed);
  return to_dtype(randint(-4, 5, shape, DType::Int64, &gen), DType::BFloat16);
}

std::vector<double> as_doubles(const Tensor& t) {
  Tensor d = contiguous(to_dtype(t, DType::Float64));
  return std::vector<double>(d.data<double>(), d.data<double>() + d.numel());
}

// beta * c + alpha * a @ b for 2-d a (m, k), b (k, n), c (m, n) or empty, in float64.
std::vector<double> reference(const Tensor& a, const Tensor& b, const Tensor& c, double beta,
                              double alpha) {
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  const std::vector<double> A = as_doubles(a), B = as_doubles(b);
  std::vector<double> C = c.defined() ? as_doubles(c) : std::vector<double>(size_t(m * n), 0.0);
  std::vector<double> out(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += A[size_t(i * k + p)] * B[size_t(p * n + j)];
      out[size_t(i * n + j)] = beta * C[size_t(i * n + j)] + alpha * s;
    }
  return out;
}

void expect_rounded(const Tensor& got, const std::vector<double>& want) {
  const bool f16 = got.dtype() == DType::Float16;
  ASSERT_TRUE(f16 || got.dtype() == DType::BFloat16);
  Tensor g = contiguous(got);
  ASSERT_EQ(g.numel(), int64_t(want.size()));
  const auto* bits = g.data<uint16_t>();
  int64_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const float w = float(want[i]);
    if (bits[i] != (f16 ? f16_bits_from_float(w) : bf16_bits_from_float(w)) && ++bad <= 5)
      ADD_FAILURE() << "element " << i << ": got "
                    << (f16 ? float_from_f16_bits(bits[i]) : float_from_bf16_bits(bits[i]))
                    << ", want " << want[i];
  }
  EXPECT_EQ(bad, 0);
}

// float16 operands whose products use every bit (integers up to 2047: 11 significant bits, so
// both bfloat16 planes of Note [AMX float16 gemm] are busy), and ones of +-1/16 or 0, so that
// every partial sum of a product of the two stays an exact float32 below float16's range.
Tensor wide_f16(IntList shape, uint64_t seed) {
  Generator gen(seed);
  return to_dtype(randint(-2047, 2048, shape, DType::Int64, &gen), DType::Float16);
}
Tensor sixteenths_f16(IntList shape, uint64_t seed) {
  Generator gen(seed);
  return to_dtype(mul(randint(-1, 2, shape, DType::Int64, &gen), Scalar(0.0625)), DType::Float16);
}

struct Shape {
  int64_t m, k, n;
};

// Odd sizes (partial tiles in every direction), k beyond one 2048 block, n beyond one 256-wide
// panel, single rows and columns, and sizes below the kernel's threshold.
const Shape kShapes[] = {{1, 33, 2049}, {7, 1, 33},    {33, 7, 1},   {33, 33, 33}, {65, 4100, 40},
                         {40, 96, 600}, {2049, 33, 7}, {64, 64, 64}, {3, 5, 4}};

}  // namespace

TEST(MatmulBf16, PathIsReported) {
  std::string amx;
  for (const auto& [key, value] : build_info())
    if (key == "amx_bf16_kernels") amx = value;
  EXPECT_TRUE(amx == "on" || amx == "off") << amx;
}

TEST(MatmulBf16, ExactOnSmallIntegers) {
  uint64_t seed = 1;
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n));
    Tensor a = small_ints({s.m, s.k}, seed++), b = small_ints({s.k, s.n}, seed++);
    expect_rounded(mm(a, b), reference(a, b, Tensor(), 0, 1));
    // Transposed operands reach the kernel as views (packed from either layout).
    Tensor at = t(contiguous(t(a))), bt = t(contiguous(t(b)));
    expect_rounded(mm(at, bt), reference(a, b, Tensor(), 0, 1));
    // addmm: alpha and beta applied in float32 to the exact sum, rounded once.
    Tensor c = small_ints({s.m, s.n}, seed++);
    expect_rounded(addmm(c, a, b, Scalar(0.5), Scalar(2.0)), reference(a, b, c, 0.5, 2.0));
  }
}

TEST(MatmulBf16, StridedBatchedEmptyAndThreads) {
  // Row strides larger than the rows (narrowed views of wider tensors).
  Tensor wa = small_ints({50, 90}, 11), wb = small_ints({80, 70}, 12);
  Tensor a = narrow(narrow(wa, 0, 3, 45), 1, 5, 77), b = narrow(narrow(wb, 0, 2, 77), 1, 1, 65);
  expect_rounded(mm(a, b), reference(a, b, Tensor(), 0, 1));
  // Batched, one operand transposed per batch.
  Tensor x = small_ints({3, 40, 70}, 13), y = small_ints({3, 50, 70}, 14);
  Tensor z = bmm(x, transpose(y, 1, 2));
  for (int64_t i = 0; i < 3; ++i) {
    Tensor xi = select(x, 0, i), yi = t(select(y, 0, i));
    expect_rounded(select(z, 0, i), reference(xi, yi, Tensor(), 0, 1));
  }
  // Empty results and k == 0 (zeros; addmm keeps beta * c).
  EXPECT_EQ(mm(small_ints({0, 9}, 15), small_ints({9, 40}, 16)).numel(), 0);
  Tensor zero_k = mm(small_ints({40, 0}, 17), small_ints({0, 70}, 18));
  expect_rounded(zero_k, std::vector<double>(40 * 70, 0.0));
  Tensor c = small_ints({40, 70}, 19);
  expect_rounded(addmm(c, small_ints({40, 0}, 20), small_ints({0, 70}, 21), Scalar(0.5)),
                 reference(small_ints({40, 0}, 20), small_ints({0, 70}, 21), c, 0.5, 1));
  // One and two threads give the same bits (random values: rounding happens in the sums).
  Generator gen(22);
  Tensor p = to_dtype(randn({300, 500}, DType::Float32, &gen), DType::BFloat16);
  Tensor q = to_dtype(randn({500, 260}, DType::Float32, &gen), DType::BFloat16);
  const int before = get_num_threads();
  set_num_threads(1);
  Tensor one = contiguous(mm(p, q));
  set_num_threads(2);
  Tensor two = contiguous(mm(p, q));
  set_num_threads(before);
  EXPECT_EQ(std::memcmp(one.data_ptr(), two.data_ptr(), size_t(one.numel()) * 2), 0);
}

TEST(MatmulF16, ExactWhenTheSumsAreExact) {
  // Note [AMX float16 gemm] on an AMX machine, float32 gemm elsewhere: both exact here.
  uint64_t seed = 30;
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n));
    Tensor a = wide_f16({s.m, s.k}, seed++), b = sixteenths_f16({s.k, s.n}, seed++);
    expect_rounded(mm(a, b), reference(a, b, Tensor(), 0, 1));
    // The wide values in B (and transposed, packed from the other layout).
    Tensor bw = t(wide_f16({s.n, s.k}, seed++)), as = t(sixteenths_f16({s.k, s.m}, seed++));
    expect_rounded(mm(as, bw), reference(as, bw, Tensor(), 0, 1));
    Tensor c = wide_f16({s.m, s.n}, seed++);
    expect_rounded(addmm(c, a, b, Scalar(0.5), Scalar(2.0)), reference(a, b, c, 0.5, 2.0));
  }
}
