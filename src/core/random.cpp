// xoshiro256** (public domain algorithm by Blackman and Vigna): fast, small state,
// good statistical quality. Seeded through splitmix64 as its authors recommend.
#include "ember/random.h"

#include <cmath>
#include <cstring>
#include <random>

namespace ember {
namespace {
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

void Generator::manual_seed(uint64_t seed) {
  auto l = lock();
  seed_(seed);
}

uint64_t Generator::seed() {
  std::random_device rd;
  const uint64_t s = (uint64_t(rd()) << 32 | rd()) >> 1;  // non-negative as an int64, as torch
  manual_seed(s);
  return s;
}

uint64_t Generator::initial_seed() const {
  auto l = lock();
  return initial_;
}

std::array<uint8_t, Generator::kStateBytes> Generator::get_state() const {
  auto l = lock();
  std::array<uint8_t, kStateBytes> out;
  std::memcpy(out.data(), state_, sizeof state_);  // x86-64 and aarch64 are little-endian
  std::memcpy(out.data() + sizeof state_, &initial_, sizeof initial_);
  return out;
}

void Generator::set_state(const uint8_t* bytes) {
  auto l = lock();
  std::memcpy(state_, bytes, sizeof state_);
  std::memcpy(&initial_, bytes + sizeof state_, sizeof initial_);
  // xoshiro's one forbidden state (all zeros) would give zeros forever: reseed from the seed.
  if (!(state_[0] | state_[1] | state_[2] | state_[3])) seed_(initial_);
}

uint64_t Generator::next_u64() {
  uint64_t* s = state_;
  uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double Generator::next_double() { return double(next_u64() >> 11) * 0x1.0p-53; }

template <class T>
static void fill_uniform(Generator& g, T* out, int64_t n, double low, double high) {
  auto l = g.lock();
  for (int64_t i = 0; i < n; ++i) {
    T v = T(low + (high - low) * g.next_double());
    out[i] = v < T(high) || low == high ? v : T(low);  // float rounding must not reach `high`
  }
}

template <class T>
static void fill_normal(Generator& g, T* out, int64_t n, double mean, double std) {
  auto l = g.lock();
  // Box-Muller, two values per pair of uniforms.
  for (int64_t i = 0; i < n; i += 2) {
    double u1 = 1.0 - g.next_double(), u2 = g.next_double();
    double r = std::sqrt(-2.0 * std::log(u1)), th = 2.0 * M_PI * u2;
    out[i] = T(mean + std * r * std::cos(th));
    if (i + 1 < n) out[i + 1] = T(mean + std * r * std::sin(th));
  }
}

void Generator::uniform(float* o, int64_t n, double lo, double hi) {
  fill_uniform(*this, o, n, lo, hi);
}
void Generator::uniform(double* o, int64_t n, double lo, double hi) {
  fill_uniform(*this, o, n, lo, hi);
}
void Generator::normal(float* o, int64_t n, double m, double s) { fill_normal(*this, o, n, m, s); }
void Generator::normal(double* o, int64_t n, double m, double s) { fill_normal(*this, o, n, m, s); }

void Generator::randint(int64_t* out, int64_t n, int64_t low, int64_t high) {
  auto l = lock();
  uint64_t range = uint64_t(high) - uint64_t(low);
  for (int64_t i = 0; i < n; ++i) out[i] = int64_t(uint64_t(low) + next_u64() % range);
}

Generator& default_generator() {
  static Generator g;
  return g;
}

}  // namespace ember
