// The recording hook of capture (ember.compile; src/capture is the recorder). Like the
// profiler's scope, it is opened where an op is entered, and costs one thread-local load
// when nothing records:
//
//   Tensor sin(const Tensor& a) {
//     EMBER_RECORD(sin, a);          // while a capture records: run sin(a), record the call
//     EMBER_PROFILE_OP("sin");
//     ...
//
// A recorded Call keeps the op's non-tensor arguments by value and its tensor arguments by
// position, with a closure that calls the same C++ function again on other tensors: that is
// what a replay runs, without Python. Only the outermost op is recorded (the ops it calls
// run at depth > 0); an op that opens a profiler scope at depth 0 without recording itself
// tells the recorder, which then refuses to replay (Note [What capture sees] in
// docs/compile.md).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember {
class Generator;
}

namespace ember::capture {

// What the fusion pass (src/capture/fusion.cpp) and the kernel replay
// (src/capture/kernel_replay.cpp) need to know about a call to run it without the op.
struct Fusable {
  enum class Kind : uint8_t { None, Unary, Binary, BinaryScalar, Reduce, Fill, Matmul };
  Kind kind = Kind::None;
  int op = 0;              // kernels::UnaryOp / BinaryOp / ReduceOp as an int
  double alpha = 1.0;      // Binary add/sub; Matmul: addmm's alpha
  Scalar scalar;           // BinaryScalar: the scalar operand; Fill: the value; Matmul: beta
  bool reflected = false;  // BinaryScalar: scalar op tensor
  bool inplace = false;    // writes its first tensor argument (add_, mul_, fill_): never fused
};

struct Call {
  const char* op = "";
  std::vector<Tensor> inputs;   // tensor arguments in order (undefined ones included)
  std::vector<Tensor> outputs;  // tensor results in order
  // Calls the op again on `in` (same count and order as `inputs`), filling `out`.
  std::function<void(std::vector<Tensor>& in, std::vector<Tensor>& out)> replay;
  Fusable fuse;
  bool mutates_list = false;   // a std::vector<Tensor>& argument was given new tensors
  bool own_generator = false;  // a Generator object of Python's: it may not outlive the call
};

class Sink {
 public:
  virtual ~Sink() = default;
  // A recorded op is about to run (at depth 0), then finished.
  virtual void on_enter(const char* op) = 0;
  virtual void on_call(Call&& call) = 0;
  // An op ran at depth 0 without recording itself (its profiler scope told).
  virtual void on_unrecorded(const char* op) = 0;
  // Python read a tensor's values (item, tolist, bool, numpy): control flow may depend on
  // them, so the recording cannot stand for the function.
  virtual void on_data_read(const char* what) = 0;

  // Note [Expanded backward] (docs/compile.md): a backward() met while recording asks
  // begin_expand(); when it says yes, the engine runs at depth 0, so the ops its nodes make
  // are recorded one by one (and AccumulateGrad's .grad writes as set_grad calls), and
  // end_expand() says whether that recording stands. If not (expand_fails() was called, or
  // the recorder met something it cannot replay), the recorder forgets the backward's ops
  // and the caller records the backward as one call instead (already run: not run again).
  virtual bool begin_expand(const std::vector<Tensor>& roots, bool retain_graph) {
    (void)roots;
    (void)retain_graph;
    return false;
  }
  virtual bool end_expand() { return false; }
  // The expansion cannot stand for the backward (a hook, a node of Python's, ...).
  virtual void expand_fails(const std::string& why) { (void)why; }
  // `alias` (made inside a recorded op: a saved output's alias) has the value of `of`.
  virtual void on_alias(const Tensor& alias, const Tensor& of) {
    (void)alias;
    (void)of;
  }
  // An expanded backward took AccumulateGrad's branch for a leaf whose .grad was (not)
  // defined: a replay must find it so too (a guard).
  virtual void on_leaf_grad(const Tensor& leaf, bool defined) {
    (void)leaf;
    (void)defined;
  }
};

namespace detail {
inline thread_local Sink* t_sink = nullptr;
inline thread_local int t_depth = 0;  // > 0 inside a recorded op, or while replaying
struct Depth {
  Depth() { ++t_depth; }
  ~Depth() { --t_depth; }
};
}  // namespace detail

// True when a capture records on this thread and no recorded op is running.
inline bool recording() { return detail::t_sink != nullptr && detail::t_depth == 0; }
inline void unrecorded(const char* op) {
  if (recording()) detail::t_sink->on_unrecorded(op);
}
// Out of line (src/core/tensor.cpp): the bindings are another shared object, with their
// own copy of inline thread-locals.
void data_read(const char* what);
// Something the recorder cannot replay ran (a Python autograd.Function's node): the
// recording stops there, as at an op that is not recorded. Out of line, as data_read.
void not_captured(const char* what);
// Nothing below this scope is recorded (replays, and ops that run their own recorded ops).
using Suspend = detail::Depth;
// Note [Expanded backward]: the expansion running on this thread cannot stand.
inline void expand_fails(const std::string& why) {
  if (recording()) detail::t_sink->expand_fails(why);
}
// `alias` has `of`'s value (a recorder maps it to the same slot). Any depth.
inline void note_alias(const Tensor& alias, const Tensor& of) {
  if (detail::t_sink) detail::t_sink->on_alias(alias, of);
}

// ---- how arguments are kept: tensors by position, the rest by value ---------------------
template <class T, class = void>
struct Kept {  // a value: copied
  std::decay_t<T> v;
  Kept(const T& x, std::vector<Tensor>&) : v(x) {}
  auto& get(std::vector<Tensor>&) { return v; }
};
template <>
struct Kept<Tensor> {
  size_t at;
  Kept(const Tensor& t, std::vector<Tensor>& in) : at(in.size()) { in.push_back(t); }
  Tensor& get(std::vector<Tensor>& in) { return in[at]; }
};
template <>
struct Kept<std::vector<Tensor>> {
  size_t at, n;
  std::vector<Tensor> scratch;
  Kept(const std::vector<Tensor>& ts, std::vector<Tensor>& in) : at(in.size()), n(ts.size()) {
    in.insert(in.end(), ts.begin(), ts.end());
  }
  std::vector<Tensor>& get(std::vector<Tensor>& in) {
    scratch.assign(in.begin() + long(at), in.begin() + long(at + n));
    return scratch;
  }
};
template <>
struct Kept<std::optional<Tensor>> {
  bool has;
  size_t at;
  std::optional<Tensor> scratch;
  Kept(const std::optional<Tensor>& t, std::vector<Tensor>& in)
      : has(t.has_value()), at(in.size()) {
    if (has) in.push_back(*t);
  }
  std::optional<Tensor>& get(std::vector<Tensor>& in) {
    scratch = has ? std::optional<Tensor>(in[at]) : std::nullopt;
    return scratch;
  }
};
template <>
struct Kept<IntList> {
  std::vector<int64_t> v;
  Kept(IntList x, std::vector<Tensor>&) : v(x.begin(), x.end()) {}
  IntList get(std::vector<Tensor>&) { return IntList(v); }
};

// Strings are kept as copies: a view of a Python string does not outlive the call.
template <>
struct Kept<const char*> {
  std::string v;
  Kept(const char* x, std::vector<Tensor>&) : v(x ? x : "") {}
  const char* get(std::vector<Tensor>&) { return v.c_str(); }
};
template <>
struct Kept<std::string_view> {
  std::string v;
  Kept(std::string_view x, std::vector<Tensor>&) : v(x) {}
  std::string_view get(std::vector<Tensor>&) { return v; }
};

// ---- how results are flattened into tensors, and read back on replay -------------------
inline void flatten(const Tensor& t, std::vector<Tensor>& out) { out.push_back(t); }
inline void flatten(const std::vector<Tensor>& ts, std::vector<Tensor>& out) {
  out.insert(out.end(), ts.begin(), ts.end());
}
template <class A, class B>
void flatten(const std::pair<A, B>& p, std::vector<Tensor>& out) {
  flatten(p.first, out);
  flatten(p.second, out);
}
template <class... T>
void flatten(const std::tuple<T...>& t, std::vector<Tensor>& out) {
  std::apply([&](const auto&... x) { (flatten(x, out), ...); }, t);
}

template <class R>
concept FlattensToTensors = requires(const R& r, std::vector<Tensor>& o) {
  flatten(r, o);
};
// A class template, not one || chain: clang 14 forms `const void&` for R = void even where
// is_void_v<R> already decided.
template <class R>
struct TensorResult {
  static constexpr bool value = std::is_same_v<std::decay_t<R>, Tensor> ||
                                std::is_same_v<std::decay_t<R>, std::vector<Tensor>> ||
                                FlattensToTensors<std::decay_t<R>>;
};
template <>
struct TensorResult<void> {
  static constexpr bool value = true;
};
template <class R>
constexpr bool kTensorResult = TensorResult<R>::value;

// A Call of f(args...) as op `name`, its tensor results still to be filled in: what
// record() hands the sink, and what a caller that already ran the op records.
template <class F, class... A>
Call make_call(const char* name, const Fusable& fuse, F f, A&... args) {
  using R = decltype(f(args...));
  static_assert(kTensorResult<R>, "EMBER_RECORD: the op must return tensors or nothing");
  Call call;
  call.op = name;
  call.fuse = fuse;
  // A braced list runs left to right, so call.inputs is in argument order (fusion reads it).
  auto kept = std::make_shared<std::tuple<Kept<std::decay_t<A>>...>>(
      std::tuple<Kept<std::decay_t<A>>...>{Kept<std::decay_t<A>>(args, call.inputs)...});
  call.replay = [f, kept](std::vector<Tensor>& in, std::vector<Tensor>& out) {
    out.clear();
    if constexpr (std::is_void_v<R>) {
      std::apply([&](auto&... k) { f(k.get(in)...); }, *kept);
    } else {
      decltype(auto) r =
          std::apply([&](auto&... k) -> decltype(auto) { return f(k.get(in)...); }, *kept);
      flatten(r, out);
    }
  };
  return call;
}

// Runs f(args...) as op `name` and hands the call to the recording sink. The caller has
// checked recording(). The result is f's own (references into the arguments stay such).
template <class F, class... A>
decltype(auto) record(const char* name, const Fusable& fuse, F f, A&... args) {
  using R = decltype(f(args...));
  Call call = make_call(name, fuse, f, args...);
  // The tensors a std::vector<Tensor>& argument holds (sgd's momentum buffers are created
  // into it on the first step): a change means the op made state that Python keeps.
  auto lists = [&] {
    std::vector<TensorImpl*> ids;
    auto note = [&](auto& a) {
      if constexpr (std::is_same_v<std::remove_reference_t<decltype(a)>, std::vector<Tensor>>)
        for (const Tensor& t : a) ids.push_back(t.impl());
    };
    (note(args), ...);
    return ids;
  };
  const std::vector<TensorImpl*> before = lists();
  auto note_gen = [&](auto& a) {
    if constexpr (std::is_same_v<std::decay_t<decltype(a)>, Generator*>)
      call.own_generator |= a != nullptr;
  };
  (note_gen(args), ...);
  detail::t_sink->on_enter(name);
  detail::Depth depth;
  if constexpr (std::is_void_v<R>) {
    f(args...);
    call.mutates_list = lists() != before;
    detail::t_sink->on_call(std::move(call));
  } else {
    decltype(auto) r = f(args...);
    flatten(r, call.outputs);
    call.mutates_list = lists() != before;
    detail::t_sink->on_call(std::move(call));
    return static_cast<R>(r);
  }
}

}  // namespace ember::capture

// Records the enclosing op (named `fn`, taking `args...`) when a capture is recording.
#define EMBER_RECORD(fn, ...) EMBER_RECORD_FUSABLE(fn, {}, __VA_ARGS__)
// The same, for an op the fusion pass may merge (`fuse`: a capture::Fusable).
#define EMBER_RECORD_FUSABLE(fn, fuse, ...) \
  if (::ember::capture::recording())        \
  return ::ember::capture::record(          \
      #fn, fuse, [](auto&&... a) -> decltype(auto) { return fn(a...); }, __VA_ARGS__)
