// Random streams (torch.Generator): xoshiro256** with its own state and lock per generator.
// A stream depends only on its seed and on what was drawn from it, never on other generators;
// two generators seeded alike give equal numbers. ember's streams are reproducible for a seed
// but differ from PyTorch's. Every random op takes a `Generator*` (nullptr: the default one).
#pragma once
#include <array>
#include <cstdint>
#include <limits>
#include <mutex>

namespace ember {

class Generator {
 public:
  static constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // torch.Generator().initial_seed()
  static constexpr size_t kStateBytes = 40;                    // 4 state words + the seed

  explicit Generator(uint64_t seed = kDefaultSeed) { seed_(seed); }
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  void manual_seed(uint64_t seed);
  uint64_t seed();  // seeds from the OS's entropy (std::random_device) and returns the seed
  uint64_t initial_seed() const;
  // The whole state as bytes (kStateBytes, little-endian words), and back.
  std::array<uint8_t, kStateBytes> get_state() const;
  void set_state(const uint8_t* bytes);

  // Every draw holds the lock: take it once around a batch of draws (`auto l = g.lock();`),
  // then call next_u64 / next_double / operator() while holding it.
  std::unique_lock<std::mutex> lock() const { return std::unique_lock<std::mutex>(mu_); }
  uint64_t next_u64();   // uniform 64 bits
  double next_double();  // uniform [0, 1), 53 bits

  // A UniformRandomBitGenerator, so <random>'s distributions draw from it (lock held).
  using result_type = uint64_t;
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return std::numeric_limits<uint64_t>::max(); }
  uint64_t operator()() { return next_u64(); }

  // Fills n values; the lock is taken once.
  void uniform(float* out, int64_t n, double low, double high);
  void uniform(double* out, int64_t n, double low, double high);
  void normal(float* out, int64_t n, double mean, double std);
  void normal(double* out, int64_t n, double mean, double std);
  void randint(int64_t* out, int64_t n, int64_t low, int64_t high);  // [low, high)

 private:
  void seed_(uint64_t s);
  uint64_t state_[4];
  uint64_t initial_;
  mutable std::mutex mu_;
};

// The global stream (torch.default_generator), seeded by manual_seed().
Generator& default_generator();
// `g` itself, or the default generator for nullptr.
inline Generator& generator_or_default(Generator* g) { return g ? *g : default_generator(); }

}  // namespace ember
