// FashionMNIST (include/ember/data.h): the IDX files, read with zlib (gzip or plain).
// IDX: a big-endian magic 0x0000080N (uint8 data, N dims), N big-endian uint32 sizes, then
// the bytes in C order.
#include <zlib.h>

#include <filesystem>

#include "ember/data.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::data {
namespace {

const char* kHint =
    "install it with `apt-get install dataset-fashion-mnist` (or pass another root)";

std::string find(const std::string& root, const std::string& stem) {
  for (const std::string& dir : {root, root + "/FashionMNIST/raw"})
    for (const std::string& name : {stem, stem + ".gz"})
      if (std::filesystem::is_regular_file(dir + "/" + name)) return dir + "/" + name;
  throw ValueError(detail::cat("FashionMNIST: ", stem, " (or ", stem, ".gz) not found in '", root,
                               "': ", kHint));
}

Tensor read_idx(const std::string& path, int ndim) {
  gzFile f = gzopen(path.c_str(), "rb");
  EMBER_CHECK(f != nullptr, ValueError, "FashionMNIST: cannot open '", path, "'");
  struct Close {
    gzFile f;
    ~Close() { gzclose(f); }
  } close{f};
  auto u32 = [&] {
    unsigned char b[4];
    EMBER_CHECK(gzread(f, b, 4) == 4, ValueError, "FashionMNIST: '", path, "': truncated header");
    return (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | b[3];
  };
  const uint32_t magic = u32();
  EMBER_CHECK(magic == (0x800u | uint32_t(ndim)), ValueError, "FashionMNIST: '", path,
              "' is not an IDX file of uint8 with ", ndim, " dims (magic ", magic, ")");
  Dims shape;
  for (int i = 0; i < ndim; ++i) {
    shape.push_back(u32());
    EMBER_CHECK(shape.back() <= (1 << 24), ValueError, "FashionMNIST: '", path,
                "': implausible size ", shape.back());
  }
  Tensor t = Tensor::empty(shape, DType::UInt8);
  const int64_t n = t.numel();
  EMBER_CHECK(gzread(f, t.data_ptr(), unsigned(n)) == n, ValueError, "FashionMNIST: '", path,
              "': truncated data");
  return t;
}

TensorDataset load(const std::string& root, bool train) {
  const std::string prefix = train ? "train" : "t10k";
  Tensor images = read_idx(find(root, prefix + "-images-idx3-ubyte"), 3);
  Tensor labels = read_idx(find(root, prefix + "-labels-idx1-ubyte"), 1);
  EMBER_CHECK(images.size(0) == labels.size(0), ValueError, "FashionMNIST: ", images.size(0),
              " images but ", labels.size(0), " labels in '", root, "'");
  return TensorDataset(div(to_dtype(unsqueeze(images, 1), DType::Float32), Scalar(255.0)),
                       to_dtype(labels, DType::Int64));
}

}  // namespace

FashionMNIST::FashionMNIST(const std::string& root, bool train)
    : TensorDataset(load(root, train)) {}

}  // namespace ember::data
