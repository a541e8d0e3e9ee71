// The subset of Python's pickle format that PyTorch state dicts use (protocols 2-5): a
// writer of its opcodes and a restricted reader (a pickle virtual machine that builds only
// None, bools, ints, floats, strings, tuples, lists, dicts and what its callbacks allow for
// GLOBAL, REDUCE and persistent ids; it never runs code). Opcode meanings: CPython's
// Lib/pickletools.py.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember::io {

struct PickleValue;
using PValue = std::shared_ptr<PickleValue>;

struct PickleValue {
  enum class Kind : uint8_t {
    None,
    Bool,
    Int,
    Float,
    Str,
    Bytes,
    Tuple,
    List,
    Dict,
    Global,
    Tensor,
    Opaque
  };
  Kind kind = Kind::None;
  int64_t i = 0;                                // Bool, Int
  double f = 0;                                 // Float
  std::string s;                                // Str, Bytes; Global: "module.name"
  std::vector<PValue> items;                    // Tuple, List
  std::vector<std::pair<PValue, PValue>> dict;  // Dict, in insertion order
  Tensor tensor;                                // Tensor
  std::shared_ptr<void> opaque;                 // Opaque: a callback's own object (a storage)

  static PValue make(Kind k) {
    auto v = std::make_shared<PickleValue>();
    v->kind = k;
    return v;
  }
};

struct UnpickleHooks {
  // GLOBAL / STACK_GLOBAL module.name: a Global value to allow it; throw to refuse it.
  std::function<PValue(const std::string& module, const std::string& name)> find_class;
  // REDUCE of an allowed global with a tuple of arguments.
  std::function<PValue(const PickleValue& global, const PickleValue& args)> reduce;
  // BINPERSID with the persistent id.
  std::function<PValue(const PickleValue& pid)> persistent_load;
};

// What unpickle returns: the object, and every container it built. A pickle can make a
// container hold itself (through the memo); the destructor empties them all, so such cycles
// of shared_ptrs are freed too. Use `root` only while this lives.
struct Unpickled {
  PValue root;
  std::vector<PValue> containers;
  Unpickled() = default;
  Unpickled(Unpickled&&) = default;
  Unpickled& operator=(Unpickled&&) = default;
  ~Unpickled();
};

// Runs the pickle program in `data`; malformed input throws ValueError("<context>: ...").
Unpickled unpickle(std::string_view data, const UnpickleHooks& hooks, const std::string& context);

// Appends opcodes (protocol 2) to a byte string.
class Pickler {
 public:
  std::string out;
  void proto() { out += "\x80\x02"; }
  void stop() { out += '.'; }
  void mark() { out += '('; }
  void tuple() { out += 't'; }  // the items since the mark
  void empty_tuple() { out += ')'; }
  void reduce() { out += 'R'; }
  void setitems() { out += 'u'; }
  void binpersid() { out += 'Q'; }
  void boolean(bool b) { out += b ? '\x88' : '\x89'; }
  void global(const std::string& module, const std::string& name) {
    out += "c" + module + "\n" + name + "\n";
  }
  void str(const std::string& s);
  void integer(int64_t v);
  void int_tuple(IntList v);
};

}  // namespace ember::io
