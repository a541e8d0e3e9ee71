#include <gtest/gtest.h>

#include <vector>

#include "ember/ember.h"

using namespace ember;

TEST(Shape, BroadcastAndErrors) {
  Dims a{3, 1}, b{4};
  EXPECT_EQ(broadcast_shapes(a, b, "add"), (Dims{3, 4}));
  EXPECT_THROW(broadcast_shapes(Dims{3}, Dims{4}, "add"), ValueError);
}

TEST(Shape, DimsGrowsPastInline) {
  Dims d;
  for (int i = 0; i < 10; ++i) d.push_back(i);
  EXPECT_EQ(d.size(), 10u);
  EXPECT_EQ(d[9], 9);
  Dims e = d;
  EXPECT_EQ(e, d);
}

TEST(Shape, ContiguousLayout) {
  EXPECT_TRUE(is_contiguous_layout(Dims{2, 3}, Dims{3, 1}));
  EXPECT_TRUE(is_contiguous_layout(Dims{2, 1}, Dims{1, 7}));  // a size-1 dim's stride is free
  EXPECT_FALSE(is_contiguous_layout(Dims{2, 3}, Dims{1, 2}));
  // No elements: contiguous whatever the strides (NumPy gives empty arrays zero strides).
  EXPECT_TRUE(is_contiguous_layout(Dims{0, 3, 4}, Dims{0, 0, 0}));
  EXPECT_TRUE(is_contiguous_layout(Dims{3, 0}, Dims{1, 5}));
}

TEST(Tensor, ViewsShareStorageAndVersion) {
  Tensor x = arange(Scalar(int64_t(0)), Scalar(int64_t(12)), Scalar(int64_t(1)), DType::Float32);
  Tensor v = view(x, Dims{3, 4});
  Tensor tr = transpose(v, 0, 1);
  EXPECT_FALSE(tr.is_contiguous());
  uint32_t before = x.version();
  add_(tr, Scalar(1.0));
  EXPECT_GT(x.version(), before);
  EXPECT_FLOAT_EQ(x.data<float>()[5], 6.0f);
}

TEST(Elementwise, BroadcastAddAndPromotion) {
  Tensor a = ones({2, 3}, DType::Int32);
  Tensor b = full({3}, Scalar(0.5), DType::Float32);
  Tensor c = add(a, b);
  EXPECT_EQ(c.dtype(), DType::Float32);
  EXPECT_EQ(c.sizes(), (Dims{2, 3}));
  EXPECT_FLOAT_EQ(c.data<float>()[4], 1.5f);
  EXPECT_EQ(add(a, Scalar(2.5)).dtype(), DType::Float32);
  EXPECT_EQ(add(a, Scalar(int64_t(2))).dtype(), DType::Int32);
}

TEST(DType, DefaultDtypeIsOneSetting) {
  EXPECT_EQ(default_dtype(), DType::Float32);
  set_default_dtype(DType::Float64);
  EXPECT_EQ(zeros({2}).dtype(), DType::Float64);
  EXPECT_EQ(Tensor::empty({1}).dtype(), DType::Float64);
  EXPECT_EQ(add(ones({2}, DType::Int64), Scalar(0.5)).dtype(), DType::Float64);
  EXPECT_EQ(sin(ones({2}, DType::Int64)).dtype(), DType::Float64);
  EXPECT_EQ(Scalar(std::complex<double>(1, 2)).default_dtype(), DType::Complex128);
  EXPECT_THROW(set_default_dtype(DType::Int64), Error);
  EXPECT_EQ(default_dtype(), DType::Float64);  // a refused setting leaves the old one
  set_default_dtype(DType::Float32);
  EXPECT_EQ(zeros({2}).dtype(), DType::Float32);
}

TEST(Elementwise, InplaceRejectsBadCastAndShape) {
  Tensor a = ones({2}, DType::Int64);
  EXPECT_THROW(add_(a, Scalar(0.5)), Error);  // RuntimeError, as torch
  Tensor f = ones({2});
  EXPECT_THROW(add_(f, ones({3, 2})), Error);
  EXPECT_FLOAT_EQ(f.data<float>()[0], 1.0f);  // untouched
}

TEST(Allocator, ReusesFreedBlocks) {
  { Tensor t = empty({1000}); }
  AllocatorStats before = allocator_stats();
  { Tensor t = empty({1000}); }
  AllocatorStats after = allocator_stats();
  EXPECT_EQ(after.cache_hits, before.cache_hits + 1);
}

TEST(Allocator, CachesUpToThePeakInUse) {
  // Five 200 MB blocks (256 MB classes, 1.25 GB: past the 1 GB floor) are all kept when freed,
  // so the next round of the same sizes is served from the cache; empty_cache gives them back.
  // Untouched memory: no page is ever faulted in.
  empty_cache();
  constexpr size_t kBlock = size_t(200) << 20;
  std::vector<void*> blocks;
  for (int i = 0; i < 5; ++i) blocks.push_back(allocate(kBlock));
  for (void* p : blocks) deallocate(p, kBlock);
  EXPECT_GE(allocator_stats().cached_bytes, int64_t(5) << 28);
  AllocatorStats before = allocator_stats();
  blocks.clear();
  for (int i = 0; i < 5; ++i) blocks.push_back(allocate(kBlock));
  EXPECT_EQ(allocator_stats().cache_hits, before.cache_hits + 5);
  for (void* p : blocks) deallocate(p, kBlock);
  empty_cache();
  EXPECT_EQ(allocator_stats().cached_bytes, 0);
}
