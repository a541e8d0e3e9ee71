// The restricted pickle reader and the opcode writer of src/io/pickle.h.
#include "io/pickle.h"

#include <cstdio>
#include <cstring>

#include "ember/error.h"

namespace ember::io {

void Pickler::str(const std::string& s) {
  out += 'X';
  const auto n = uint32_t(s.size());
  for (int i = 0; i < 4; ++i) out += char((n >> (8 * i)) & 0xff);
  out += s;
}

void Pickler::integer(int64_t v) {
  if (v >= 0 && v < 256) {
    out += 'K';
    out += char(v);
  } else if (v >= 0 && v < 65536) {
    out += 'M';
    out += char(v & 0xff);
    out += char(v >> 8);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    out += 'J';
    for (int i = 0; i < 4; ++i) out += char((uint32_t(int32_t(v)) >> (8 * i)) & 0xff);
  } else {
    out += "\x8a\x08";  // LONG1, 8 bytes of two's complement
    for (int i = 0; i < 8; ++i) out += char((uint64_t(v) >> (8 * i)) & 0xff);
  }
}

void Pickler::int_tuple(IntList v) {
  if (v.empty()) return empty_tuple();
  mark();
  for (int64_t x : v) integer(x);
  tuple();
}

namespace {

constexpr size_t kMaxStack = 1 << 20;  // values on the stack (a state dict needs a few dozen)
constexpr size_t kMaxMemo = 1 << 24;

class Machine {
 public:
  Machine(std::string_view data, const UnpickleHooks& hooks, const std::string& context)
      : d_(data), hooks_(hooks), ctx_(context) {}

  PValue run();
  Unpickled result;  // result.containers: every container pushed (emptied if run() throws)

 private:
  [[noreturn]] void fail(const std::string& msg) const {
    throw ValueError(detail::cat(ctx_, "data.pkl is malformed (", msg, " at byte ", pos_, ")"));
  }
  uint64_t uint(int n) {
    if (d_.size() - pos_ < size_t(n)) fail("truncated");
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(uint8_t(d_[pos_ + size_t(i)])) << (8 * i);
    pos_ += size_t(n);
    return v;
  }
  std::string bytes(uint64_t n) {
    if (d_.size() - pos_ < n) fail("a string runs past the end");
    std::string s(d_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  std::string line() {
    const size_t nl = d_.find('\n', pos_);
    if (nl == std::string_view::npos) fail("unterminated line");
    std::string s(d_.substr(pos_, nl - pos_));
    pos_ = nl + 1;
    return s;
  }
  void push(PValue v) {
    if (stack_.size() >= kMaxStack) fail("stack too deep");
    using K = PickleValue::Kind;
    if (v->kind == K::Tuple || v->kind == K::List || v->kind == K::Dict)
      result.containers.push_back(v);
    stack_.push_back(std::move(v));
  }
  PValue pop() {
    if (stack_.size() <= mark_floor()) fail("stack underflow");
    PValue v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  PValue& top() {
    if (stack_.size() <= mark_floor()) fail("stack underflow");
    return stack_.back();
  }
  size_t mark_floor() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<PValue> pop_mark() {
    if (marks_.empty()) fail("no mark");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<PValue> items(stack_.begin() + std::ptrdiff_t(m), stack_.end());
    stack_.resize(m);
    return items;
  }
  PValue scalar(PickleValue::Kind k, int64_t i = 0) {
    PValue v = PickleValue::make(k);
    v->i = i;
    return v;
  }
  PValue string(PickleValue::Kind k, std::string s) {
    PValue v = PickleValue::make(k);
    v->s = std::move(s);
    return v;
  }
  PValue tuple(std::vector<PValue> items) {
    PValue v = PickleValue::make(PickleValue::Kind::Tuple);
    v->items = std::move(items);
    return v;
  }
  void memo_put(uint64_t key) {
    if (key >= kMaxMemo) fail("memo key too large");
    if (memo_.size() <= key) memo_.resize(key + 1);
    memo_[key] = top();
  }
  PValue memo_get(uint64_t key) {
    if (key >= memo_.size() || !memo_[key]) fail("memo key " + std::to_string(key) + " not set");
    return memo_[key];
  }
  PValue global(const std::string& module, const std::string& name) {
    PValue g = hooks_.find_class(module, name);
    if (!g) fail("global refused");
    return g;
  }
  void set_items(PickleValue& dict, const std::vector<PValue>& kv) {
    if (dict.kind != PickleValue::Kind::Dict) fail("SETITEM(S) on a non-dict");
    if (kv.size() % 2) fail("odd number of items for SETITEMS");
    // (A pickled dict never repeats a key; the loader refuses duplicate names later.)
    for (size_t i = 0; i < kv.size(); i += 2) dict.dict.emplace_back(kv[i], kv[i + 1]);
  }
  void append(PickleValue& list, std::vector<PValue> items) {
    if (list.kind != PickleValue::Kind::List) fail("APPEND(S) on a non-list");
    for (PValue& v : items) list.items.push_back(std::move(v));
  }

  std::string_view d_;
  size_t pos_ = 0;
  const UnpickleHooks& hooks_;
  const std::string& ctx_;
  std::vector<PValue> stack_, memo_;
  std::vector<size_t> marks_;
};

PValue Machine::run() {
  using K = PickleValue::Kind;
  while (true) {
    if (pos_ >= d_.size()) fail("no STOP opcode");
    const auto op = uint8_t(d_[pos_++]);
    switch (op) {
      case 0x80: {  // PROTO
        const uint64_t p = uint(1);
        if (p < 2 || p > 5) fail("unsupported pickle protocol " + std::to_string(p));
        break;
      }
      case 0x95: uint(8); break;  // FRAME: a length hint only
      case '.': {                 // STOP
        PValue v = pop();
        return v;
      }
      case '(': marks_.push_back(stack_.size()); break;
      case '0': pop(); break;        // POP
      case '1': pop_mark(); break;   // POP_MARK
      case '2': push(top()); break;  // DUP
      case 'N': push(scalar(K::None)); break;
      case 0x88: push(scalar(K::Bool, 1)); break;
      case 0x89: push(scalar(K::Bool, 0)); break;
      case 'J': push(scalar(K::Int, int32_t(uint32_t(uint(4))))); break;
      case 'K': push(scalar(K::Int, int64_t(uint(1)))); break;
      case 'M': push(scalar(K::Int, int64_t(uint(2)))); break;
      case 0x8a: {  // LONG1: n bytes, two's complement
        const uint64_t n = uint(1);
        if (n > 8) fail("integer wider than 64 bits");
        uint64_t v = n ? uint(int(n)) : 0;
        if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t(0) << (8 * n);  // sign-extend
        push(scalar(K::Int, int64_t(v)));
        break;
      }
      case 'G': {  // BINFLOAT: big-endian double
        uint64_t bits = 0;
        if (d_.size() - pos_ < 8) fail("truncated");
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | uint8_t(d_[pos_ + size_t(i)]);
        pos_ += 8;
        PValue v = PickleValue::make(K::Float);
        std::memcpy(&v->f, &bits, 8);
        push(v);
        break;
      }
      case 'X': push(string(K::Str, bytes(uint(4)))); break;    // BINUNICODE
      case 0x8c: push(string(K::Str, bytes(uint(1)))); break;   // SHORT_BINUNICODE
      case 0x8d: push(string(K::Str, bytes(uint(8)))); break;   // BINUNICODE8
      case 'B': push(string(K::Bytes, bytes(uint(4)))); break;  // BINBYTES
      case 'C': push(string(K::Bytes, bytes(uint(1)))); break;  // SHORT_BINBYTES
      case 'U': push(string(K::Str, bytes(uint(1)))); break;    // SHORT_BINSTRING
      case 'T': push(string(K::Str, bytes(uint(4)))); break;    // BINSTRING
      case ')': push(tuple({})); break;
      case 't': push(tuple(pop_mark())); break;
      case 0x85: {
        PValue a = pop();
        push(tuple({a}));
        break;
      }
      case 0x86: {
        PValue b = pop(), a = pop();
        push(tuple({a, b}));
        break;
      }
      case 0x87: {
        PValue c = pop(), b = pop(), a = pop();
        push(tuple({a, b, c}));
        break;
      }
      case ']': push(PickleValue::make(K::List)); break;
      case 'l': {
        PValue l = PickleValue::make(K::List);
        l->items = pop_mark();
        push(l);
        break;
      }
      case 'a': {
        PValue v = pop();
        append(*top(), {v});
        break;
      }
      case 'e': {
        std::vector<PValue> items = pop_mark();
        append(*top(), std::move(items));
        break;
      }
      case '}': push(PickleValue::make(K::Dict)); break;
      case 'd': {
        PValue dict = PickleValue::make(K::Dict);
        set_items(*dict, pop_mark());
        push(dict);
        break;
      }
      case 's': {
        PValue v = pop(), k = pop();
        set_items(*top(), {k, v});
        break;
      }
      case 'u': {
        std::vector<PValue> kv = pop_mark();
        set_items(*top(), kv);
        break;
      }
      case 'c': {  // GLOBAL module\nname\n
        std::string module = line();
        push(global(module, line()));
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        PValue name = pop(), module = pop();
        if (name->kind != K::Str || module->kind != K::Str) fail("STACK_GLOBAL needs two strings");
        push(global(module->s, name->s));
        break;
      }
      case 'R': {  // REDUCE callable(*args)
        PValue args = pop(), fn = pop();
        if (fn->kind != K::Global || args->kind != K::Tuple)
          fail("REDUCE needs a global and a tuple");
        PValue v = hooks_.reduce(*fn, *args);
        if (!v) fail("REDUCE refused");
        push(v);
        break;
      }
      case 'b': {  // BUILD: only a dict's attributes (OrderedDict._metadata)
        PValue state = pop();
        if (top()->kind != K::Dict) fail("BUILD on something other than a dict");
        break;
      }
      case 'Q': {  // BINPERSID
        PValue pid = pop();
        PValue v = hooks_.persistent_load(*pid);
        if (!v) fail("persistent id refused");
        push(v);
        break;
      }
      case 'q': memo_put(uint(1)); break;        // BINPUT
      case 'r': memo_put(uint(4)); break;        // LONG_BINPUT
      case 0x94: memo_put(memo_.size()); break;  // MEMOIZE
      case 'h': push(memo_get(uint(1))); break;  // BINGET
      case 'j': push(memo_get(uint(4))); break;  // LONG_BINGET
      default: {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", op);
        fail(detail::cat("opcode ", hex, " is not part of a state dict"));
      }
    }
  }
}

}  // namespace

Unpickled::~Unpickled() {
  for (const PValue& c : containers) {
    c->items.clear();
    c->dict.clear();
  }
}

Unpickled unpickle(std::string_view data, const UnpickleHooks& hooks, const std::string& context) {
  Machine m(data, hooks, context);
  PValue root = m.run();
  Unpickled out = std::move(m.result);
  out.root = std::move(root);
  return out;
}

}  // namespace ember::io
