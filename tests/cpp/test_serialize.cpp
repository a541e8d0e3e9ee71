// save_file / load_file / save_bytes / load_bytes (ember/serialize.h): round trips and a
// sample of the loader's rejections (tests/python/test_serialization.py has them all).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "ember/ember.h"

using namespace ember;

namespace {

std::string temp_path(const char* name) {
  return ::testing::TempDir() + "ember_test_serialize_" + std::to_string(::getpid()) + "_" + name;
}

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void write_all(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary);
  f << data;
}

// A file: the 8-byte little-endian header length, the header, the data.
std::string craft(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = char((n >> (8 * i)) & 0xFF);
  return out + header + data;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  Tensor ca = contiguous(a), cb = contiguous(b);
  return a.dtype() == b.dtype() && a.sizes() == b.sizes() &&
         std::memcmp(ca.data_ptr(), cb.data_ptr(), size_t(ca.numel()) * ca.itemsize()) == 0;
}

std::map<std::string, Tensor> sample() {
  Tensor m = randn({4, 3});
  return {{"f32", m},
          {"f64", randn({2, 2}, DType::Float64)},
          {"i64", arange(Scalar(int64_t(-3)), Scalar(int64_t(4)), Scalar(int64_t(1)))},
          {"i32", full({3}, Scalar(int64_t(-7)), DType::Int32)},
          {"u8", full({2, 1}, Scalar(int64_t(250)), DType::UInt8)},
          {"i8", full({3}, Scalar(int64_t(-128)), DType::Int8)},
          {"i16", full({1, 2}, Scalar(int64_t(32767)), DType::Int16)},
          {"bool", gt(randn({5}), Scalar(0.0))},
          {"zero_d", full({}, Scalar(2.5))},
          {"empty", zeros({0, 4})},
          {"transposed", transpose(m, 0, 1)}};
}

void expect_rejected(const std::string& file, const char* needle) {
  try {
    load_bytes(file.data(), file.size());
    ADD_FAILURE() << "accepted a file that should fail with: " << needle;
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(Serialize, FileRoundTripEveryDtypeWithAndWithoutMmap) {
  auto tensors = sample();
  std::string path = temp_path("round_trip.safetensors");
  save_file(tensors, path, {{"epoch", "3"}});
  for (bool mmap : {false, true}) {
    SafetensorsFile f = load_file(path, mmap);
    EXPECT_EQ(f.metadata, (std::map<std::string, std::string>{{"epoch", "3"}}));
    ASSERT_EQ(f.tensors.size(), tensors.size());
    for (const auto& [name, t] : f.tensors) {
      EXPECT_TRUE(t.is_contiguous());
      EXPECT_TRUE(same_bytes(t, tensors.at(name))) << name;
    }
  }
  std::remove(path.c_str());
}

TEST(Serialize, BytesMatchFileAndLayoutFollowsTheReference) {
  auto tensors = sample();
  std::string path = temp_path("bytes.safetensors");
  save_file(tensors, path);
  std::string bytes = save_bytes(tensors);
  EXPECT_EQ(read_all(path), bytes);
  std::remove(path.c_str());
  SafetensorsFile f = load_bytes(bytes.data(), bytes.size());
  // 8-byte-aligned dtypes first (I64 before F64), then F32 by name, ..., BOOL last.
  std::vector<std::string> order;
  for (const auto& [name, t] : f.tensors) order.push_back(name);
  EXPECT_EQ(order, (std::vector<std::string>{"i64", "f64", "empty", "f32", "transposed", "zero_d",
                                             "i32", "i16", "i8", "u8", "bool"}));
  auto byte = [&](int i) { return uint64_t(uint8_t(bytes[i])); };
  EXPECT_EQ((byte(0) | byte(1) << 8) % 8, 0u);  // header padded to a multiple of 8
}

TEST(Serialize, MmapWritesStayInMemory) {
  std::string path = temp_path("mmap.safetensors");
  save_file({{"w", ones({8})}}, path);
  std::string before = read_all(path);
  {
    SafetensorsFile f = load_file(path, true);
    Tensor w = f.tensors[0].second;
    EXPECT_FALSE(w.storage()->owned());
    add_(w, Scalar(1.0));
    EXPECT_FLOAT_EQ(w.data<float>()[7], 2.0f);
  }
  EXPECT_EQ(read_all(path), before);
  std::remove(path.c_str());
}

TEST(Serialize, AtomicSaveLeavesOldFileWhenSaveFails) {
  std::string path = temp_path("atomic.safetensors");
  save_file({{"w", ones({3})}}, path);
  std::string before = read_all(path);
  EXPECT_THROW(save_file({{"__metadata__", ones({1})}}, path), ValueError);
  EXPECT_THROW(save_file({{"bad\xff", ones({1})}}, path), ValueError);
  EXPECT_THROW(save_file({{"w", Tensor()}}, path), ValueError);
  EXPECT_EQ(read_all(path), before);
  EXPECT_THROW(save_file({{"w", ones({1})}}, "/nonexistent-dir/x.safetensors"), OSError);
  std::remove(path.c_str());
}

TEST(Serialize, MissingFileAndNonRegularFile) {
  try {
    load_file(temp_path("missing.safetensors"));
    ADD_FAILURE();
  } catch (const OSError& e) {
    EXPECT_EQ(e.errno_value, ENOENT);
  }
  EXPECT_THROW(load_file(::testing::TempDir()), ValueError);
}

TEST(Serialize, RejectsHostileFiles) {
  const std::string ok = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  std::string data(8, '\0');
  load_bytes(craft(ok, data).data(), craft(ok, data).size());  // the baseline loads
  expect_rejected(std::string("\x05\0\0", 3), "too short");
  expect_rejected(craft(ok, data).substr(0, 20), "past the end");
  expect_rejected(std::string("\xff\xff\xff\xff\xff\xff\xff\xff{}", 10), "over the limit");
  expect_rejected(craft(ok, data.substr(0, 4)), "truncated");
  expect_rejected(craft(ok, data + "xx"), "trailing data");
  expect_rejected(craft("{\"a\xff\":1}", ""), "not valid UTF-8");
  expect_rejected(craft(std::string(100000, '['), ""), "not a JSON object");
  expect_rejected(craft(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":)" +
                            std::string(1000, '[') + std::string(1000, ']') + "}}",
                        data),
                  "nested deeper than 64");
  expect_rejected(craft(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                        R"("a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                        data + data),
                  "duplicate tensor name");
  expect_rejected(craft(R"({"a":{"dtype":"Q8","shape":[2],"data_offsets":[0,8]}})", data),
                  "unknown dtype");
  expect_rejected(craft(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", data),
                  "non-negative");
  expect_rejected(craft(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],)"
                        R"("data_offsets":[0,8]}})",
                        data),
                  "too large");
  expect_rejected(craft(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", data),
                  "needs 12 bytes");
  expect_rejected(craft(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                        R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                        data + "1234"),
                  "overlap");
  expect_rejected(craft(R"({"a":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})",
                        std::string("\x01\x07", 2)),
                  "holds byte 7");
}
