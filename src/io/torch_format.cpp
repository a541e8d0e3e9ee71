// PyTorch's checkpoint format for state dicts (include/ember/serialize.h): what torch.save
// writes and ember.save mirrors (python/ember/serialization/torch_format.py), in C++.
//
// A zip archive (src/io/zip.h) of stored records under one top-level folder:
//   <archive>/data.pkl               the OrderedDict, pickled (protocol 2) with persistent ids
//   <archive>/.format_version        "1"
//   <archive>/.storage_alignment     "64"
//   <archive>/byteorder              "little"
//   <archive>/data/0, data/1, ...    each storage's raw bytes, whole
//   <archive>/version                "3\n"
//   <archive>/.data/serialization_id 40 decimal digits
// A tensor pickles as torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
// requires_grad, OrderedDict()) with its storage as the persistent id ("storage",
// torch.FloatStorage, "<key>", "cpu", numel); views of one storage name one key.
#include <cstring>
#include <map>
#include <random>
#include <set>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/serialize.h"
#include "io/pickle.h"
#include "io/zip.h"

namespace ember {
namespace {

using io::PickleValue;
using io::PValue;
using K = PickleValue::Kind;

// torch's storage class for each dtype ember has (class_paths.STORAGE_TYPES in Python).
struct StorageType {
  DType dtype;
  const char* name;
};
constexpr StorageType kStorageTypes[] = {{DType::Float32, "FloatStorage"},
                                         {DType::Float64, "DoubleStorage"},
                                         {DType::Int64, "LongStorage"},
                                         {DType::Int32, "IntStorage"},
                                         {DType::UInt8, "ByteStorage"},
                                         {DType::Int8, "CharStorage"},
                                         {DType::Int16, "ShortStorage"},
                                         {DType::Bool, "BoolStorage"},
                                         {DType::Complex64, "ComplexFloatStorage"},
                                         {DType::Complex128, "ComplexDoubleStorage"}};

const char* storage_name(DType dt) {
  for (const StorageType& s : kStorageTypes)
    if (s.dtype == dt) return s.name;
  throw NotImplementedError(
      detail::cat("save: no PyTorch storage type for dtype ", dtype_name(dt)));
}

constexpr int64_t kMaxInt = int64_t(1) << 62;  // sizes, strides and offsets beyond are refused

std::string serialization_id() {
  std::random_device rd;
  std::string s;
  for (int i = 0; i < 40; ++i) s += char('0' + rd() % 10);
  return s;
}

// ---- saving -------------------------------------------------------------------------------

struct SavedStorage {
  std::string key;
  DType dtype;
  Tensor whole;  // 1-d over all of the storage's bytes
};

void write_torch(const StateDict& state, const std::string& archive, const io::Sink& sink) {
  NoGradGuard no_grad;
  std::set<std::string> names;
  for (const auto& [name, t] : state) {
    EMBER_CHECK(names.insert(name).second, ValueError, "save: the name '", name, "' appears twice");
    EMBER_CHECK(t.defined(), ValueError, "save: the tensor '", name, "' is undefined");
    storage_name(t.dtype());
  }
  std::map<const Storage*, size_t> by_storage;
  std::vector<SavedStorage> storages;
  io::Pickler p;
  p.proto();
  p.global("collections", "OrderedDict");
  p.empty_tuple();
  p.reduce();
  p.mark();
  for (const auto& [name, t] : state) {
    // One record per storage (an empty one gets its own): views of one storage stay views.
    const Storage* s = t.storage().get();
    auto it = s->nbytes() ? by_storage.find(s) : by_storage.end();
    size_t index;
    if (it != by_storage.end()) {
      index = it->second;
    } else {
      EMBER_CHECK(s->nbytes() % t.itemsize() == 0, ValueError, "save: the storage of '", name,
                  "' holds ", s->nbytes(), " bytes, not a whole number of ", dtype_name(t.dtype()),
                  " elements");
      index = storages.size();
      storages.push_back({std::to_string(index), t.dtype(), storage_view(t, t.dtype())});
      if (s->nbytes()) by_storage.emplace(s, index);
    }
    const SavedStorage& st = storages[index];
    EMBER_CHECK(st.dtype == t.dtype(), Error,
                "save: cannot save multiple tensors or storages that view the "
                "same data as different types (",
                dtype_name(st.dtype), " and ", dtype_name(t.dtype()), ")");
    p.str(name);
    p.global("torch._utils", "_rebuild_tensor_v2");
    p.mark();
    p.mark();
    p.str("storage");
    p.global("torch", storage_name(t.dtype()));
    p.str(st.key);
    p.str("cpu");
    p.integer(st.whole.numel());
    p.tuple();
    p.binpersid();
    p.integer(t.offset());
    p.int_tuple(t.sizes());
    p.int_tuple(t.strides());
    p.boolean(false);
    p.global("collections", "OrderedDict");
    p.empty_tuple();
    p.reduce();
    p.tuple();
    p.reduce();
  }
  p.setitems();
  p.stop();

  io::ZipWriter zip(sink);
  const std::string dir = archive + "/";
  auto text = [&](const std::string& name, const std::string& s) {
    zip.add(dir + name, s.data(), s.size());
  };
  text("data.pkl", p.out);
  text(".format_version", "1");
  text(".storage_alignment", std::to_string(io::kZipAlignment));
  text("byteorder", "little");
  for (const SavedStorage& st : storages)
    zip.add(dir + "data/" + st.key, st.whole.data_ptr(),
            size_t(st.whole.numel()) * st.whole.itemsize());
  text("version", "3\n");
  text(".data/serialization_id", serialization_id());
  zip.finish();
}

}  // namespace

std::string save_torch_bytes(const StateDict& state, const std::string& archive_name) {
  std::string out;
  write_torch(state, archive_name,
              [&](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); });
  return out;
}

namespace io {
void save_torch_file(const StateDict& state, const std::string& path) {
  // torch.save names the archive folder after the file's stem.
  const size_t slash = path.find_last_of('/');
  std::string stem = path.substr(slash == std::string::npos ? 0 : slash + 1);
  const size_t dot = stem.find_last_of('.');
  if (dot != std::string::npos && dot > 0) stem.resize(dot);
  if (stem.empty()) stem = "archive";
  // The pickle is built and checked before the file is opened; the data streams after.
  write_file(path, "save", [&](const Sink& sink) { write_torch(state, stem, sink); });
}
}  // namespace io

// ---- loading ------------------------------------------------------------------------------

namespace {

struct LoadedStorage {
  Tensor whole;
  std::string key;
};

class TorchLoader {
 public:
  TorchLoader(std::string_view bytes, const std::string& where)
      : zip_(bytes, where), ctx_(detail::cat("load: ", where, ": ")) {}

  StateDict load();

 private:
  [[noreturn]] void fail(const std::string& msg) const { throw ValueError(ctx_ + msg); }
  PValue find_class(const std::string& module, const std::string& name);
  PValue reduce(const PickleValue& fn, const PickleValue& args);
  PValue persistent_load(const PickleValue& pid);
  int64_t int_arg(const PValue& v, const char* what);
  void flatten(const PValue& v, const std::string& prefix, int depth, StateDict& out);

  io::ZipReader zip_;
  std::string ctx_, prefix_;
  std::map<std::string, LoadedStorage> storages_;
};

PValue TorchLoader::find_class(const std::string& module, const std::string& name) {
  const std::string full = module + "." + name;
  static const std::set<std::string> allowed = {"collections.OrderedDict",
                                                "torch._utils._rebuild_tensor_v2",
                                                "torch._utils._rebuild_tensor",
                                                "torch._utils._rebuild_parameter",
                                                "torch._utils._rebuild_parameter_with_state"};
  const bool storage = module == "torch" && name.size() > 7 && name.ends_with("Storage");
  if (!allowed.count(full) && !storage)
    fail(detail::cat(
        "the pickle needs the global '", full, "', which a state dict of tensors does not; ",
        "ember's C++ loader builds dicts, lists and tensors only (load the file in Python)"));
  PValue g = PickleValue::make(K::Global);
  g->s = full;
  return g;
}

int64_t TorchLoader::int_arg(const PValue& v, const char* what) {
  if (v->kind != K::Int) fail(detail::cat("a tensor's ", what, " must be an int"));
  if (v->i < 0 || v->i >= kMaxInt)
    fail(detail::cat("a tensor's ", what, " must be in [0, 2**62), got ", v->i));
  return v->i;
}

PValue TorchLoader::reduce(const PickleValue& fn, const PickleValue& args) {
  const std::vector<PValue>& a = args.items;
  if (fn.s == "collections.OrderedDict") {
    if (!a.empty()) fail("OrderedDict(...) with arguments is not part of a state dict");
    return PickleValue::make(K::Dict);
  }
  if (fn.s == "torch._utils._rebuild_parameter" ||
      fn.s == "torch._utils._rebuild_parameter_with_state") {
    if (a.empty() || a[0]->kind != K::Tensor) fail(fn.s + " expects a tensor");
    return a[0];
  }
  // _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata]) or
  // _rebuild_tensor(storage, offset, size, stride)
  const bool v2 = fn.s == "torch._utils._rebuild_tensor_v2";
  if (a.size() < 4 || (v2 && a.size() > 7) || (!v2 && a.size() != 4) || a[0]->kind != K::Opaque)
    fail(fn.s + ": expected (storage, storage_offset, size, stride, ...)");
  const auto& st = *static_cast<const LoadedStorage*>(a[0]->opaque.get());
  const int64_t offset = int_arg(a[1], "storage offset");
  for (int k = 2; k < 4; ++k)
    if (a[size_t(k)]->kind != K::Tuple && a[size_t(k)]->kind != K::List)
      fail("a tensor's size and stride must be tuples");
  const auto& sz = a[2]->items;
  const auto& sd = a[3]->items;
  if (sz.size() != sd.size() || sz.size() > 64)
    fail("a tensor's size and stride must have one length (at most 64)");
  std::vector<int64_t> size, stride;
  bool empty = false;
  __int128 last = offset;
  for (size_t i = 0; i < sz.size(); ++i) {
    size.push_back(int_arg(sz[i], "size"));
    stride.push_back(int_arg(sd[i], "stride"));
    empty |= size.back() == 0;
    last += __int128(size.back() - 1) * stride.back();
  }
  if (!empty && last >= st.whole.numel())
    fail(detail::cat("a tensor of size ", IntList(size), ", stride ", IntList(stride),
                     " and offset ", offset, " reaches past the end of storage '", st.key,
                     "', which holds ", st.whole.numel(), " elements"));
  PValue t = PickleValue::make(K::Tensor);
  t->tensor =
      empty ? Tensor::empty(size, st.whole.dtype()) : as_strided(st.whole, size, stride, offset);
  return t;
}

PValue TorchLoader::persistent_load(const PickleValue& pid) {
  const auto& a = pid.items;
  if (pid.kind != K::Tuple || a.size() != 5 || a[0]->kind != K::Str || a[0]->s != "storage")
    fail("unsupported persistent id (expected ('storage', type, key, location, numel))");
  if (a[1]->kind != K::Global || a[2]->kind != K::Str || a[4]->kind != K::Int)
    fail("bad storage persistent id");
  const std::string type = a[1]->s.substr(a[1]->s.find('.') + 1), key = a[2]->s;
  const StorageType* found = nullptr;
  for (const StorageType& s : kStorageTypes)
    if (type == s.name) found = &s;
  if (!found)
    fail(detail::cat("storage '", key, "' is a torch.", type,
                     "; ember has no tensor type for its dtype"));
  auto it = storages_.find(key);
  if (it == storages_.end()) {
    const int64_t numel = a[4]->i;
    const size_t item = itemsize(found->dtype);
    const io::ZipReader::Entry* e = zip_.find(prefix_ + "data/" + key);
    if (!e)
      fail(detail::cat("the pickle names storage '", key, "' but the archive has no record data/",
                       key));
    if (numel < 0 || numel >= kMaxInt || e->size != uint64_t(numel) * item)
      fail(detail::cat("storage '", key, "' declares ", numel, " elements of ", item,
                       " bytes but its record holds ", e->size, " bytes"));
    std::string scratch;
    std::string_view bytes = zip_.read(*e, scratch);
    Tensor whole = Tensor::empty({numel}, found->dtype);
    if (!bytes.empty()) std::memcpy(whole.data_ptr(), bytes.data(), bytes.size());
    if (found->dtype == DType::Bool)
      for (char c : bytes)
        if (c != 0 && c != 1)
          fail(detail::cat("storage '", key, "' holds a bool that is neither 0 nor 1"));
    it = storages_.emplace(key, LoadedStorage{whole, key}).first;
  }
  if (it->second.whole.dtype() != found->dtype)
    fail(detail::cat("storage '", key, "' is read as two dtypes"));
  PValue v = PickleValue::make(K::Opaque);
  v->opaque = std::shared_ptr<void>(&it->second, [](void*) {});  // owned by storages_
  return v;
}

void TorchLoader::flatten(const PValue& v, const std::string& prefix, int depth, StateDict& out) {
  if (depth > 64) fail("containers nested deeper than 64 levels");
  auto join = [&](const std::string& k) { return prefix.empty() ? k : prefix + "." + k; };
  switch (v->kind) {
    case K::Tensor: out.emplace_back(prefix, v->tensor); break;
    case K::Dict:
      for (const auto& [k, x] : v->dict) {
        if (k->kind != K::Str && k->kind != K::Int)
          fail("a dict key that is not a string or an int");
        flatten(x, join(k->kind == K::Str ? k->s : std::to_string(k->i)), depth + 1, out);
      }
      break;
    case K::List:
    case K::Tuple:
      for (size_t i = 0; i < v->items.size(); ++i)
        flatten(v->items[i], join(std::to_string(i)), depth + 1, out);
      break;
    default: break;  // numbers, strings, None: not part of a state dict of tensors
  }
}

StateDict TorchLoader::load() {
  const io::ZipReader::Entry* pkl = nullptr;
  int found = 0;
  for (const auto& e : zip_.entries()) {
    if (e.name.ends_with("/data.pkl") && e.name.find('/') == e.name.size() - 9) {
      pkl = &e;
      ++found;
    }
  }
  if (found != 1)
    fail(detail::cat("expected one <archive>/data.pkl record, found ", found,
                     " (a torch.save file holds exactly one)"));
  prefix_ = pkl->name.substr(0, pkl->name.size() - 8);
  std::set<std::string> seen;
  for (const auto& e : zip_.entries()) {
    if (!e.name.starts_with(prefix_))
      fail(detail::cat("record '", e.name, "' lies outside the archive folder '", prefix_, "'"));
    if (!seen.insert(e.name).second) fail(detail::cat("the record '", e.name, "' appears twice"));
  }
  std::string scratch;
  if (const auto* order = zip_.find(prefix_ + "byteorder")) {
    std::string_view b = zip_.read(*order, scratch, 16);
    if (b != "little")
      fail(detail::cat("the file is '", std::string(b),
                       "'-endian; ember reads little-endian files"));
  }
  std::string_view program = zip_.read(*pkl, scratch);
  const std::string owned(program);
  io::UnpickleHooks hooks;
  hooks.find_class = [&](const std::string& m, const std::string& n) { return find_class(m, n); };
  hooks.reduce = [&](const PickleValue& f, const PickleValue& a) { return reduce(f, a); };
  hooks.persistent_load = [&](const PickleValue& pid) { return persistent_load(pid); };
  io::Unpickled program_result = io::unpickle(owned, hooks, ctx_);
  const PValue& root = program_result.root;
  if (root->kind != K::Dict) fail("the file holds no dict of tensors (a state dict)");
  StateDict out;
  flatten(root, "", 0, out);
  std::set<std::string> names;
  for (const auto& [name, t] : out)
    if (!names.insert(name).second)
      fail(detail::cat("two tensors are both named '", name, "' once flattened"));
  return out;
}

}  // namespace

StateDict load_torch_bytes(const void* data, size_t size, const std::string& where) {
  return TorchLoader(std::string_view(static_cast<const char*>(data), size), where).load();
}

}  // namespace ember
