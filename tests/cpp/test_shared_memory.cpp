// Storage in shared memory (src/core/shared_memory.cpp): in-place moves, received fds,
// shared allocation. Cross-process behaviour is tested from Python (test_multiprocessing.py).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ember/ember.h"

using namespace ember;

TEST(SharedMemory, ShareInPlaceKeepsViewsAndVersion) {
  Tensor x = arange(Scalar(int64_t(0)), Scalar(int64_t(12)), Scalar(int64_t(1)), DType::Float32);
  Tensor v = transpose(view(x, Dims{3, 4}), 0, 1);
  uint32_t version = x.version();
  EXPECT_FALSE(x.storage()->is_shared());
  EXPECT_EQ(x.storage()->shared_fd(), -1);
  x.storage()->share_memory_();
  EXPECT_TRUE(v.storage()->is_shared());
  EXPECT_GE(v.storage()->shared_fd(), 0);
  EXPECT_EQ(x.version(), version);
  EXPECT_FLOAT_EQ(v.data<float>()[v.stride(0) * 2 + v.stride(1) * 1], 6.0f);  // v[2][1] = x[1][2]
  add_(x, Scalar(1.0));
  EXPECT_FLOAT_EQ(v.data<float>()[0], 1.0f);
}

TEST(SharedMemory, ReceivedFdOfAMappedStorageIsTheSameStorage) {
  Tensor x = ones({5}, DType::Int64);
  x.storage()->share_memory_();
  auto same = Storage::from_shared_fd(dup(x.storage()->shared_fd()), x.storage()->nbytes());
  EXPECT_EQ(same.get(), x.storage().get());
}

TEST(SharedMemory, ForeignFdIsMappedAndChecked) {
  int fd = memfd_create("test", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 64), 0);
  EXPECT_THROW(Storage::from_shared_fd(dup(fd), 128), ValueError);  // too small: refused
  auto s = Storage::from_shared_fd(fd, 64);
  EXPECT_TRUE(s->is_shared());
  static_cast<char*>(s->data())[63] = 7;
  EXPECT_THROW(Storage::from_shared_fd(-1, 8), ValueError);
}

TEST(SharedMemory, SharedAllocationModeAndEmptyStorages) {
  Storage::set_shared_allocation(true);
  Tensor a = empty({3, 0});
  Tensor b = zeros({4});
  Storage::set_shared_allocation(false);
  Tensor c = zeros({4});
  EXPECT_TRUE(a.storage()->is_shared());
  EXPECT_TRUE(b.storage()->is_shared());
  EXPECT_FALSE(c.storage()->is_shared());
  EXPECT_FLOAT_EQ(b.data<float>()[3], 0.0f);
  c.storage()->share_memory_();  // 16 bytes, and an empty one: both fine
  Tensor e = empty({0});
  e.storage()->share_memory_();
  EXPECT_TRUE(e.storage()->is_shared());
}
