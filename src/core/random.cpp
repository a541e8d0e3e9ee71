// xoshiro256** (public domain algorithm by Blackman and Vigna): fast, small state,
// good statistical quality. Seeded through splitmix64 as its authors recommend.
#include "ember/random.h"

#include <cmath>
#include <mutex>

namespace ember {
namespace {
std::mutex& gen_mutex() {
  static std::mutex mu;
  return mu;
}
uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

void Generator::seed_(uint64_t s) {
  initial_ = s;
  for (auto& w : state_) {
    s += 0x9e3779b97f4a7c15ULL;
    uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    w = z ^ (z >> 31);
  }
}

uint64_t Generator::next_u64() {
  uint64_t* s = state_;
  uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double Generator::next_double() { return double(next_u64() >> 11) * 0x1.0p-53; }

template <class T>
static void fill_uniform(Generator& g, T* out, int64_t n, double low, double high) {
  std::lock_guard<std::mutex> lock(gen_mutex());
  for (int64_t i = 0; i < n; ++i) out[i] = T(low + (high - low) * g.next_double());
}

template <class T>
static void fill_normal(Generator& g, T* out, int64_t n, double mean, double std) {
  std::lock_guard<std::mutex> lock(gen_mutex());
  // Box-Muller, two values per pair of uniforms.
  for (int64_t i = 0; i < n; i += 2) {
    double u1 = 1.0 - g.next_double(), u2 = g.next_double();
    double r = std::sqrt(-2.0 * std::log(u1)), th = 2.0 * M_PI * u2;
    out[i] = T(mean + std * r * std::cos(th));
    if (i + 1 < n) out[i + 1] = T(mean + std * r * std::sin(th));
  }
}

void Generator::uniform(float* o, int64_t n, double lo, double hi) { fill_uniform(*this, o, n, lo, hi); }
void Generator::uniform(double* o, int64_t n, double lo, double hi) { fill_uniform(*this, o, n, lo, hi); }
void Generator::normal(float* o, int64_t n, double m, double s) { fill_normal(*this, o, n, m, s); }
void Generator::normal(double* o, int64_t n, double m, double s) { fill_normal(*this, o, n, m, s); }

void Generator::randint(int64_t* out, int64_t n, int64_t low, int64_t high) {
  std::lock_guard<std::mutex> lock(gen_mutex());
  uint64_t range = uint64_t(high - low);
  for (int64_t i = 0; i < n; ++i) out[i] = low + int64_t(next_u64() % range);
}

Generator& default_generator() {
  static Generator g;
  return g;
}

}  // namespace ember
