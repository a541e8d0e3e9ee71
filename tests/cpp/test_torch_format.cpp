// ember::save / ember::load (ember/serialize.h) in PyTorch's zip format and safetensors:
// every dtype, 0-d, empty and strided tensors, views of one storage staying views, a model
// round trip through both formats, and hostile files (truncated, corrupted, legacy) throwing
// ValueError instead of crashing. Python reads these files with ember.load and torch.load in
// tests/python/test_cpp_state_dict.py.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "frontend_helpers.h"

using namespace ember;
using ftest::max_abs_diff;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ember_test_torch_format_" + name)).string();
}

bool same(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) return false;
  if (a.numel() == 0) return true;
  if (a.dtype() == DType::Complex64 || a.dtype() == DType::Complex128)
    return all(eq(view_as_real(a), view_as_real(b))).item().to_int() == 1;
  return all(eq(a, b)).item().to_int() == 1;
}

StateDict every_kind() {
  manual_seed(0);
  Tensor f = randn({3, 4});
  return {{"f32", f},
          {"f64", randn({2, 3}, DType::Float64)},
          {"i64", randint(-1000, 1000, {5}, DType::Int64)},
          {"i32", randint(-1000, 1000, {2, 2}, DType::Int32)},
          {"u8", randint(0, 255, {4}, DType::UInt8)},
          {"bool", gt(randn({3}), Scalar(0.0))},
          {"c64", complex(randn({2}), randn({2}))},
          {"c128", complex(randn({2}, DType::Float64), randn({2}, DType::Float64))},
          {"scalar", scalar_tensor(Scalar(3.5))},
          {"empty", zeros({0, 3})},
          {"big_int", full({1}, Scalar(int64_t(1) << 40), DType::Int64)},
          {"transposed", transpose(f, 0, 1)},
          {"row", select(f, 0, 2)},
          {"i8", randint(-128, 128, {3}, DType::Int8)},
          {"i16", randint(-32768, 32768, {2, 3}, DType::Int16)}};
}

}  // namespace

TEST(TorchFormat, BytesRoundTripEveryKindOfTensor) {
  StateDict sd = every_kind();
  std::string bytes = save_torch_bytes(sd);
  ASSERT_EQ(bytes.substr(0, 4), std::string("PK\x03\x04"));
  StateDict back = load_torch_bytes(bytes.data(), bytes.size());
  ASSERT_EQ(back.size(), sd.size());
  for (size_t i = 0; i < sd.size(); ++i) {
    EXPECT_EQ(back[i].first, sd[i].first);
    EXPECT_TRUE(same(back[i].second, sd[i].second)) << sd[i].first;
  }
  // Views keep their geometry and stay views of one storage (as torch.save does).
  const Tensor& f = back[0].second;
  const Tensor& tr = back[11].second;
  EXPECT_EQ(tr.strides(), (Dims{1, 4}));
  EXPECT_TRUE(tr.storage().get() == f.storage().get());
  Tensor row = back[12].second;
  fill_(row, Scalar(7.0));
  EXPECT_EQ(select(f, 0, 2).sizes(), (Dims{4}));
  EXPECT_EQ(max_abs_diff(select(f, 0, 2), full({4}, Scalar(7.0))), 0);
}

TEST(TorchFormat, ModelRoundTripThroughBothFormats) {
  manual_seed(1);
  auto make = [] {
    return std::make_shared<nn::Sequential>(
        std::vector<nn::ModulePtr>{std::make_shared<nn::Conv1d>(2, 3, 3),
                                   std::make_shared<nn::BatchNorm1d>(3),
                                   std::make_shared<nn::Flatten>(),
                                   std::make_shared<nn::Linear>(12, 2)});
  };
  auto a = make();
  Tensor x = randn({4, 2, 6});
  a->forward(x);
  a->eval();
  for (const char* name : {"model.pt", "model.safetensors", "model.bin"}) {
    const std::string path = temp_path(name);
    save(a->state_dict(), path);
    auto b = make();
    b->eval();
    b->load_state_dict(load(path));
    EXPECT_EQ(max_abs_diff(a->forward(x), b->forward(x)), 0) << name;
    std::ifstream in(path, std::ios::binary);
    char head[2] = {};
    in.read(head, 2);
    EXPECT_EQ(std::string(head, 2) == "PK", std::string(name) != "model.safetensors") << name;
    std::remove(path.c_str());
  }
  // An explicit format overrides the suffix.
  const std::string path = temp_path("forced.pt");
  save(a->state_dict(), path, SaveFormat::Safetensors);
  EXPECT_EQ(load(path).size(), a->state_dict().size());
  std::remove(path.c_str());
}

TEST(TorchFormat, SaveRefusesBadStateDicts) {
  EXPECT_ERROR_NAMES(ValueError, save_torch_bytes({{"a", ones({1})}, {"a", ones({1})}}),
                     "appears twice");
  EXPECT_ERROR_NAMES(ValueError, save_torch_bytes({{"a", Tensor()}}), "undefined");
  EXPECT_ERROR_NAMES(ValueError,
                     save({{"a", ones({1})}, {"a", ones({1})}}, temp_path("dup.safetensors")),
                     "twice");
  Tensor z = complex(ones({4}), zeros({4}));  // one storage seen as complex64 and as float32
  EXPECT_ERROR_NAMES(Error, save_torch_bytes({{"z", z}, {"r", view_as_real(z)}}),
                     "as different types");
}

TEST(TorchFormat, TruncatedAndCorruptedFilesThrowValueError) {
  std::string bytes = save_torch_bytes(every_kind());
  for (size_t cut = 0; cut < bytes.size(); cut += std::max<size_t>(1, bytes.size() / 97)) {
    EXPECT_THROW(load_torch_bytes(bytes.data(), cut), ValueError) << "cut at " << cut;
  }
  // Any flipped byte: either a clean ValueError or (padding, unused fields) a normal load.
  for (size_t at = 0; at < bytes.size(); at += 7) {
    std::string bad = bytes;
    bad[at] = char(bad[at] ^ 0x5a);
    try {
      load_torch_bytes(bad.data(), bad.size());
    } catch (const ValueError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << "byte " << at << ": " << e.what();
    }
  }
  const std::string legacy("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\x00\x00", 10);
  const std::string path = temp_path("legacy.pt");
  std::ofstream(path, std::ios::binary) << legacy;
  EXPECT_ERROR_NAMES(ValueError, load(path), "legacy");
  std::remove(path.c_str());
  EXPECT_ERROR_NAMES(OSError, load(temp_path("does_not_exist.pt")), "load");
  EXPECT_ERROR_NAMES(ValueError, load(std::filesystem::temp_directory_path().string()),
                     "not a regular file");
}

// The seed corpus of the PyTorch-format fuzz target (tests/fuzz/torch_corpus, written by
// torch.save, ember.save and by hand): hostile files throw ValueError, state dicts load, and
// nothing else may happen (no crash, no other exception).
TEST(TorchFormat, FuzzCorpusLoadsOrThrowsValueError) {
  const auto corpus = std::filesystem::path(EMBER_SOURCE_DIR) / "tests" / "fuzz" / "torch_corpus";
  if (!std::filesystem::is_directory(corpus)) GTEST_SKIP() << "no corpus at " << corpus;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("pkl_")) continue;  // bare pickles, not archives
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ++files;
    try {
      StateDict sd = load_torch_bytes(bytes.data(), bytes.size(), name);
      EXPECT_FALSE(name.starts_with("bad_")) << name << " loaded";
      if (name.find("state_dict") != std::string::npos) EXPECT_FALSE(sd.empty()) << name;
    } catch (const ValueError& e) {
      EXPECT_TRUE(name.starts_with("bad_") || name.find("state_dict") == std::string::npos)
          << name << ": " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << ": " << e.what();
    }
  }
  EXPECT_GT(files, 20);
}
