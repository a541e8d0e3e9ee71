// The global random generator (torch.manual_seed): xoshiro256** under a mutex.
// ember's random streams are reproducible for a seed but differ from PyTorch's.
#pragma once
#include <cstdint>

namespace ember {

class Generator {
 public:
  explicit Generator(uint64_t seed = 0x853c49e6748fea9bULL) { seed_(seed); }
  void manual_seed(uint64_t seed) { seed_(seed); }
  uint64_t initial_seed() const { return initial_; }
  uint64_t next_u64();           // uniform 64 bits
  double next_double();          // uniform [0, 1)
  // Fills n values; the generator lock is taken once.
  void uniform(float* out, int64_t n, double low, double high);
  void uniform(double* out, int64_t n, double low, double high);
  void normal(float* out, int64_t n, double mean, double std);
  void normal(double* out, int64_t n, double mean, double std);
  void randint(int64_t* out, int64_t n, int64_t low, int64_t high);

 private:
  void seed_(uint64_t s);
  uint64_t state_[4];
  uint64_t initial_;
};

Generator& default_generator();

}  // namespace ember
