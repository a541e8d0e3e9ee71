// Autograd glue: Tensor's grad attributes, backward/grad entry points, grad mode, graph
// nodes as Python objects, and PyFunctionNode, the node that runs a Python Function's backward.
#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>

#include <memory>

#include "common.h"
#include "ember/anomaly.h"
#include "ember/custom_function.h"
#include "ember/saved_hooks.h"

namespace ember::py {
namespace {

// A graph node as seen from Python (t.grad_fn): name(), next_functions.
struct NodeRef {
  IntrusivePtr<Node> node;
};

nb::object node_or_none(const IntrusivePtr<Node>& n) {
  if (!n) return nb::none();
  return nb::cast(NodeRef{n});
}

nb::object grad_or_none(const Tensor& g) { return g.defined() ? nb::cast(g) : nb::none(); }

// Note [One Python object along a hook chain]: torch hands every hook of a tensor the same
// Python object while the gradient passes unchanged (a hook returned None), and the next hook
// the very object a hook returned; libraries keep state on it (captum's LRP sets an attribute
// on the gradient in one hook and reads it in another). ember's Tensor is a value wrapped anew
// on each crossing into Python, so the last gradient object a hook saw is kept here (under the
// GIL), keyed by its TensorImpl, and reused when the next hook's gradient is the same tensor;
// holding it keeps the impl alive, so a key is never a freed address. _backward and _grad drop
// it when they return or throw, so no gradient outlives its backward here. Heap-allocated: never
// destroyed after the interpreter is gone.
struct HookGradObject {
  const TensorImpl* impl = nullptr;
  nb::object obj;
};
HookGradObject& hook_grad_object() {
  static auto* last = new HookGradObject;
  return *last;
}
nb::object hook_grad(const Tensor& g) {
  HookGradObject& last = hook_grad_object();
  if (last.impl != g.impl()) last = {g.impl(), nb::cast(g)};
  return last.obj;
}
void hook_returned(const nb::object& r) {
  if (!r.is_none()) hook_grad_object() = {nb::cast<const Tensor&>(r).impl(), r};
}
// Drops the kept object when a backward returns or throws.
struct ForgetHookGrad {
  ~ForgetHookGrad() { hook_grad_object() = {}; }
};

// The node of a Python autograd.Function: calls cls.backward(ctx, *grads) (zeros for the
// missing gradients while ctx.materialize_grads) and fits each returned gradient to its tensor
// input, so a backward pass runs no Python bookkeeping around the user's backward.
class PyFunctionNode final : public Node {
 public:
  PyFunctionNode(std::string cls_name, nb::object backward, nb::object ctx,
                 std::vector<bool> is_tensor_arg)
      : cls_name_(std::move(cls_name)), name_(cls_name_ + "Backward"),
        backward_(std::move(backward)), ctx_(std::move(ctx)),
        is_tensor_arg_(std::move(is_tensor_arg)) {}
  ~PyFunctionNode() override {
    nb::gil_scoped_acquire gil;
    backward_.reset();
    ctx_.reset();
  }
  Grads apply(Grads&& grads) override {
    nb::gil_scoped_acquire gil;
    if (freed_saved_) autograd::throw_released(name_);
    // One gradient per forward output: None for a non-tensor, zeros (while materializing)
    // for a tensor that got none, non-differentiable ones included (as torch).
    const bool materialize = nb::cast<bool>(ctx_.attr("materialize_grads"));
    nb::object args = nb::steal(PyTuple_New(Py_ssize_t(outputs.size() + 1)));
    PyTuple_SET_ITEM(args.ptr(), 0, ctx_.inc_ref().ptr());
    for (size_t i = 0; i < outputs.size(); ++i) {
      const OutputInfo& o = outputs[i];
      Tensor g = o.grad_index >= 0 ? std::move(grads[size_t(o.grad_index)]) : Tensor();
      if (!g.defined() && materialize && o.is_tensor) g = zeros(o.sizes, o.dtype);
      PyTuple_SET_ITEM(args.ptr(), Py_ssize_t(i + 1), grad_or_none(g).release().ptr());
    }
    nb::object res = nb::steal(PyObject_Call(backward_.ptr(), args.ptr(), nullptr));
    if (!res.is_valid()) throw nb::python_error();
    if (!nb::isinstance<nb::tuple>(res)) res = nb::make_tuple(res);
    // One gradient per forward argument; trailing extra Nones are allowed (as torch).
    const size_t n = nb::len(res), nargs = is_tensor_arg_.size();
    bool count_ok = n >= nargs;
    for (size_t i = nargs; count_ok && i < n; ++i)
      count_ok = PyTuple_GET_ITEM(res.ptr(), Py_ssize_t(i)) == Py_None;
    EMBER_CHECK(count_ok, Error, "function ", name_,
                " returned an incorrect number of gradients (expected ", nargs, ", got ", n, ")");
    Grads out;
    out.reserve(input_sizes.size());
    for (size_t i = 0; i < nargs; ++i) {
      nb::handle h = PyTuple_GET_ITEM(res.ptr(), Py_ssize_t(i));
      EMBER_CHECK(h.is_none() || nb::isinstance<Tensor>(h), Error,
                  "expected Variable or None (got ", nb::type_name(h.type()).c_str(), ")");
      if (!is_tensor_arg_[i]) {
        EMBER_CHECK(h.is_none(), Error, "function ", name_,
                    " returned a gradient different than None at position ", i + 1,
                    ", but the corresponding forward input was not a Variable");
        continue;
      }
      const size_t k = out.size();
      if (h.is_none()) {
        out.emplace_back();
        continue;
      }
      out.push_back(autograd::fit_function_grad(name_, k, nb::cast<Tensor>(h), input_sizes[k],
                                                input_dtypes[k]));
    }
    return out;
  }
  std::string name() const override { return name_; }
  // The graph is freed: ctx drops what forward saved (and a later backward through this
  // node raises only when there was something saved, as torch).
  void release_saved() override {
    nb::gil_scoped_acquire gil;
    freed_saved_ |= nb::cast<bool>(ctx_.attr("_release")());
  }

  std::vector<Dims> input_sizes;  // per tensor input: what its gradient must match
  std::vector<DType> input_dtypes;
  struct OutputInfo {  // per forward output
    bool is_tensor = false;
    int grad_index = -1;  // which of the node's gradients is this output's; -1: none
    Dims sizes;           // for materialized zeros
    DType dtype = DType::Float32;
  };
  std::vector<OutputInfo> outputs;

 private:
  std::string cls_name_, name_;
  nb::object backward_, ctx_;
  std::vector<bool> is_tensor_arg_;  // per forward argument
  bool freed_saved_ = false;
};

bool holds(const std::vector<nb::handle>& hs, nb::handle h) {
  for (nb::handle x : hs)
    if (x.ptr() == h.ptr()) return true;
  return false;
}

std::vector<nb::handle> handles(nb::handle seq) {
  std::vector<nb::handle> out;
  for (nb::handle h : seq) out.push_back(h);
  return out;
}

// What Function.apply does after cls.forward(ctx, *args) returned `outputs` with grad mode on
// and an input requiring grad: an input returned unchanged (and not marked dirty) becomes a
// view of it (as torch), outputs saved for backward are kept without their history (the node
// must not own itself), and a PyFunctionNode is recorded on the outputs that are not marked
// non-differentiable. Returns the outputs (a tuple when forward returned one).
nb::object record_py_function(nb::handle cls, nb::handle ctx, nb::tuple args, nb::handle outputs) {
  std::vector<bool> is_tensor_arg;
  std::vector<nb::handle> input_objs;
  std::vector<Tensor> inputs;
  for (nb::handle a : args) {
    const bool t = nb::isinstance<Tensor>(a);
    is_tensor_arg.push_back(t);
    if (!t) continue;
    input_objs.push_back(a);
    inputs.push_back(nb::cast<Tensor>(a));
  }
  const bool single = !nb::isinstance<nb::tuple>(outputs);
  std::vector<nb::object> outs;
  if (single) outs.push_back(nb::borrow(outputs));
  else
    for (nb::handle o : outputs) outs.push_back(nb::borrow(o));
  nb::object dirty_seq = ctx.attr("_dirty"), non_diff_seq = ctx.attr("_non_differentiable");
  const std::vector<nb::handle> dirty = handles(dirty_seq), non_diff = handles(non_diff_seq);
  std::vector<Tensor> diff;
  std::vector<PyFunctionNode::OutputInfo> out_info(outs.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    nb::object& o = outs[i];
    if (!nb::isinstance<Tensor>(o)) continue;
    if (holds(input_objs, o) && !holds(dirty, o)) o = o.attr("view_as")(o);
    const Tensor& t = nb::cast<const Tensor&>(o);
    out_info[i] = {true, holds(non_diff, o) ? -1 : int(diff.size()), t.sizes(), t.dtype()};
    if (!holds(non_diff, o)) diff.push_back(t);
  }
  nb::object saved = ctx.attr("_saved");
  const size_t n_saved = nb::len(saved);
  nb::object kept = nb::steal(PyTuple_New(Py_ssize_t(n_saved)));
  bool aliased = false;
  for (size_t i = 0; i < n_saved; ++i) {
    nb::object t = saved[i];
    bool is_output = false;
    for (const nb::object& o : outs) is_output |= o.ptr() == t.ptr();
    if (is_output) {
      t = nb::cast(nb::cast<Tensor>(t).alias());
      aliased = true;
    }
    PyTuple_SET_ITEM(kept.ptr(), Py_ssize_t(i), t.release().ptr());
  }
  if (aliased) ctx.attr("_saved") = kept;
  auto* node = new PyFunctionNode(nb::cast<std::string>(cls.attr("__name__")), cls.attr("backward"),
                                  nb::borrow(ctx), std::move(is_tensor_arg));
  IntrusivePtr<Node> keep(node);
  for (const Tensor& t : inputs) {
    node->input_sizes.push_back(t.sizes());
    node->input_dtypes.push_back(t.dtype());
  }
  node->outputs = std::move(out_info);
  autograd::set_history(keep, inputs, diff);
  if (single) return outs[0];
  nb::object result = nb::steal(PyTuple_New(Py_ssize_t(outs.size())));
  for (size_t i = 0; i < outs.size(); ++i)
    PyTuple_SET_ITEM(result.ptr(), Py_ssize_t(i), outs[i].release().ptr());
  return result;
}

// Function.apply(cls, *args): a ctx of type cls._ctx_type with needs_input_grad set,
// cls._ctx_forward(ctx, *args) (Function.__init_subclass__) with grad mode off, then
// record_py_function when grad mode is on and an input requires grad.
nb::object function_apply(nb::handle cls, nb::args args) {
  nb::object ctx = cls.attr("_ctx_type")();
  const Py_ssize_t n = PyTuple_GET_SIZE(args.ptr());
  nb::object needs = nb::steal(PyTuple_New(n));
  nb::object call = nb::steal(PyTuple_New(n + 1));
  PyTuple_SET_ITEM(call.ptr(), 0, ctx.inc_ref().ptr());
  bool any = false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    nb::handle a = PyTuple_GET_ITEM(args.ptr(), i);
    const bool r = nb::isinstance<Tensor>(a) && autograd::requires_grad(nb::cast<const Tensor&>(a));
    any |= r;
    PyTuple_SET_ITEM(needs.ptr(), i, nb::bool_(r).release().ptr());
    PyTuple_SET_ITEM(call.ptr(), i + 1, a.inc_ref().ptr());
  }
  ctx.attr("needs_input_grad") = needs;
  const bool enabled = GradMode::is_enabled();
  nb::object forward = cls.attr("_ctx_forward"), outputs;  // forward, or + setup_context
  {
    NoGradGuard no_grad;
    outputs = nb::steal(PyObject_Call(forward.ptr(), call.ptr(), nullptr));
  }
  if (!outputs.is_valid()) throw nb::python_error();
  if (!enabled || !any) return outputs;
  // Its node is attached outside any recorded call: a replay could not rebuild it.
  const std::string what = "autograd.Function " + nb::cast<std::string>(cls.attr("__name__"));
  capture::not_captured(what.c_str());
  return record_py_function(cls, ctx, nb::borrow<nb::tuple>(args), outputs);
}

// What ctx.save_for_backward keeps besides the tensors: each one's version (None for others).
nb::object saved_versions(nb::handle values) {
  EMBER_CHECK(nb::isinstance<nb::tuple>(values) || nb::isinstance<nb::list>(values), TypeError,
              "_saved_versions: expected a tuple or list, got ",
              nb::type_name(values.type()).c_str());
  const size_t n = nb::len(values);
  nb::object out = nb::steal(PyTuple_New(Py_ssize_t(n)));
  for (size_t i = 0; i < n; ++i) {
    nb::handle v = values[i];
    nb::object ver = nb::none();
    if (nb::isinstance<Tensor>(v)) ver = nb::int_(nb::cast<const Tensor&>(v).version());
    PyTuple_SET_ITEM(out.ptr(), Py_ssize_t(i), ver.release().ptr());
  }
  return out;
}

// ctx.saved_tensors' check: raises torch's error when saved tensor i (not in `skip`) was
// modified in place since it was saved.
void check_saved_versions(nb::handle saved, nb::handle versions, nb::handle skip) {
  auto sequence = [](nb::handle h, const char* what) {
    EMBER_CHECK(nb::isinstance<nb::tuple>(h) || nb::isinstance<nb::list>(h), TypeError,
                "_check_saved_versions: ", what, " must be a tuple or list, got ",
                nb::type_name(h.type()).c_str());
    return nb::len(h);
  };
  const size_t n = sequence(saved, "saved");
  EMBER_CHECK(sequence(versions, "versions") == n, ValueError, "_check_saved_versions: ", n,
              " saved tensors but ", nb::len(versions), " versions");
  for (size_t i = 0; i < n; ++i) {
    nb::handle v = versions[i];
    if (v.is_none()) continue;
    if (!skip.is_none()) {
      const int in_skip = PySequence_Contains(skip.ptr(), nb::int_(i).ptr());
      if (in_skip < 0) throw nb::python_error();
      if (in_skip) continue;
    }
    EMBER_CHECK(nb::isinstance<Tensor>(saved[i]) && nb::isinstance<nb::int_>(v), TypeError,
                "_check_saved_versions: entry ", i, " must be a tensor and an int version");
    const Tensor& t = nb::cast<const Tensor&>(saved[i]);
    const int64_t expected = nb::cast<int64_t>(v);
    EMBER_CHECK(int64_t(t.version()) == expected, Error,
                "one of the variables needed for gradient computation has been modified by an "
                "inplace operation: saved tensor ",
                i, " of shape ", t.sizes(), " is at version ", t.version(), "; expected version ",
                expected, " instead.");
  }
}

// A Python callable shared by the copies of a C++ hook: copying the hook then touches no
// Python reference count (the engine copies a hook before calling it), and the last copy
// drops the callable under the GIL.
std::shared_ptr<nb::object> shared_callable(nb::object fn) {
  return std::shared_ptr<nb::object>(new nb::object(std::move(fn)), [](nb::object* p) {
    nb::gil_scoped_acquire gil;
    delete p;
  });
}

// A Node hook from Python: fn(*gradient tuples) with None for undefined gradients; None
// keeps the gradients, a sequence replaces them (None items stay undefined).
std::optional<Grads> call_node_hook(const nb::object& fn,
                                    std::initializer_list<const Grads*> args) {
  nb::gil_scoped_acquire gil;
  nb::list py_args;
  for (const Grads* gs : args) {
    nb::list t;
    for (const Tensor& g : *gs) t.append(g.defined() ? nb::cast(g) : nb::none());
    py_args.append(nb::tuple(t));
  }
  nb::object r = fn(*nb::tuple(py_args));
  if (r.is_none()) return std::nullopt;
  EMBER_CHECK(nb::isinstance<nb::tuple>(r) || nb::isinstance<nb::list>(r), TypeError,
              "expected tuple, but hook returned '", nb::type_name(r.type()).c_str(), "'");
  size_t expected = (*args.begin())->size();
  EMBER_CHECK(nb::len(r) == expected, Error, "hook '",
              nb::str(nb::getattr(fn, "__name__", nb::repr(fn))).c_str(),
              "' has returned an incorrect number of values (got ", nb::len(r), ", but expected ",
              expected, ")");
  Grads out;
  for (nb::handle x : r) {
    EMBER_CHECK(x.is_none() || nb::isinstance<Tensor>(x), TypeError,
                "expected a Tensor or None in the hook's result, got ",
                nb::type_name(x.type()).c_str());
    out.push_back(x.is_none() ? Tensor() : nb::cast<Tensor>(x));
  }
  return out;
}

struct NodeHookHandle {
  IntrusivePtr<Node> node;
  uint64_t id = 0;
};

std::vector<Tensor> tensors_or_empty(nb::handle h) {
  std::vector<Tensor> out;
  if (h.is_none()) return out;
  if (nb::isinstance<Tensor>(h)) return {nb::cast<Tensor>(h)};
  for (nb::handle x : h) out.push_back(x.is_none() ? Tensor() : nb::cast<Tensor>(x));
  return out;
}

}  // namespace

void bind_autograd(nb::module_& m) {
  auto& cls = tensor_class();
  cls.def_prop_rw(
      "requires_grad", [](const Tensor& t) { return autograd::requires_grad(t); },
      [](Tensor& t, bool on) { autograd::set_requires_grad(t, on); },
      method_docstring("requires_grad"));
  cls.def(
      "requires_grad_",
      [](nb::handle self, bool on) {
        autograd::set_requires_grad(nb::cast<Tensor&>(self), on);
        return nb::borrow(self);
      },
      nb::arg("requires_grad") = true, method_docstring("requires_grad_"));
  cls.def_prop_rw(
      "grad", [](const Tensor& t) { return grad_or_none(autograd::grad(t)); },
      [](Tensor& t, nb::handle g) {
        autograd::set_grad(t, g.is_none() ? Tensor() : nb::cast<Tensor>(g));
      },
      nb::arg("value").none(), method_docstring("grad"));
  cls.def_prop_ro(
      "grad_fn", [](const Tensor& t) { return node_or_none(autograd::grad_fn(t)); },
      method_docstring("grad_fn"));
  cls.def_prop_ro(
      "is_leaf", [](const Tensor& t) { return autograd::is_leaf(t); }, method_docstring("is_leaf"));
  // Which output of its grad_fn this tensor is (0 for leaves).
  cls.def_prop_ro(
      "output_nr",
      [](const Tensor& t) {
        autograd::AutogradMeta* m = autograd::meta(t);
        return m && m->grad_fn ? m->output_nr : 0u;
      },
      method_docstring("output_nr"));
  // Tensor.grad_dtype (leaves only): the dtype backward gives .grad; None keeps any dtype.
  cls.def_prop_rw(
      "grad_dtype",
      [](const Tensor& t) -> nb::object {
        EMBER_CHECK(autograd::is_leaf(t), Error,
                    "grad_dtype can only be accessed on leaf tensors.");
        autograd::AutogradMeta* m = autograd::meta(t);
        if (m && m->any_grad_dtype) return nb::none();
        return nb::cast(m && m->grad_dtype ? *m->grad_dtype : t.dtype());
      },
      [](Tensor& t, nb::handle v) {
        EMBER_CHECK(autograd::is_leaf(t), Error, "grad_dtype can only be set on leaf tensors.");
        EMBER_CHECK(v.is_none() || nb::isinstance<DType>(v), Error,
                    "grad_dtype must be a dtype or None, but got ", Py_TYPE(v.ptr())->tp_name);
        std::optional<DType> d =
            v.is_none() ? std::nullopt : std::optional<DType>(nb::cast<DType>(v));
        autograd::AutogradMeta& m = autograd::ensure_meta(t);
        EMBER_CHECK(
            !d || !m.grad.defined() || m.grad.dtype() == *d, Error, "Cannot set grad_dtype to ",
            dtype_name(d.value_or(t.dtype())), " because there is already a gradient with dtype ",
            dtype_name(m.grad.defined() ? m.grad.dtype() : t.dtype()),
            ". Please clear the gradient "
            "(.grad = None) before changing grad_dtype, or ensure the new grad_dtype matches "
            "the existing gradient's dtype.");
        m.any_grad_dtype = !d;
        m.grad_dtype = d;
      },
      nb::arg("value").none(), method_docstring("grad_dtype"));
  cls.def_prop_ro(
      "retains_grad", [](const Tensor& t) { return autograd::retains_grad(t); },
      method_docstring("retains_grad"));
  cls.def(
      "retain_grad", [](const Tensor& t) { autograd::retain_grad(t); },
      method_docstring("retain_grad"));
  cls.def("_register_hook", [](const Tensor& t, nb::object fn) {
    autograd::register_hook(t, [fn](const Tensor& g) -> Tensor {
      nb::gil_scoped_acquire gil;
      nb::object r = fn(hook_grad(g));  // Note [One Python object along a hook chain]
      hook_returned(r);
      return r.is_none() ? Tensor() : nb::cast<Tensor>(r);
    });
  });
  // hook(leaf) after the leaf's .grad was updated; it must return None (as in torch).
  cls.def("_register_post_accumulate_grad_hook", [](const Tensor& t, nb::object fn) {
    autograd::register_post_accumulate_grad_hook(t, [fn = shared_callable(std::move(fn))](
                                                        const Tensor& leaf) {
      nb::gil_scoped_acquire gil;
      nb::object r = (*fn)(leaf);
      EMBER_CHECK(r.is_none(), TypeError,
                  "register_post_accumulate_grad_hook: post accumulate "
                  "grad hooks should return None, but the hook returned '",
                  nb::type_name(r.type()).c_str(), "'");
    });
  });
  cls.def_prop_rw(
      "data",
      [](const Tensor& t) {
        // detach's alias with a version counter of its own (Note [Version counters])
        Tensor d = detach(t);
        d.impl()->own_version_ = make_intrusive<VersionCounter>();
        return d;
      },
      [](Tensor& t, const Tensor& src) {
        EMBER_CHECK(!autograd::requires_grad(t) || is_floating_point(src.dtype()) ||
                        is_complex(src.dtype()),
                    TypeError, "data: a tensor that requires grad needs floating point data, got ",
                    dtype_name(src.dtype()));
        t.set_data(src);
      },
      method_docstring("data"));
  cls.def(
      "detach_",
      [](nb::handle self) {
        Tensor& t = nb::cast<Tensor&>(self);
        if (auto* mt = autograd::meta(t)) mt->grad_fn.reset();
        t.impl()->requires_grad_ = false;
        return nb::borrow(self);
      },
      method_docstring("detach_"));

  // What Node.register_hook / register_prehook return: remove() unregisters the hook.
  nb::class_<NodeHookHandle>(m, "_NodeHookHandle")
      .def("remove",
           [](NodeHookHandle& h) {
             if (h.node) autograd::remove_node_hook(*h.node, h.id);
             h.node.reset();
           })
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__exit__", [](NodeHookHandle& h, nb::args) {
        if (h.node) autograd::remove_node_hook(*h.node, h.id);
        h.node.reset();
      });

  nb::class_<NodeRef>(m, "Node")
      .def("name", [](const NodeRef& n) { return n.node->name(); })
      .def("_sequence_nr", [](const NodeRef& n) { return n.node->sequence_nr; })
      .def(
          "register_prehook",
          [](const NodeRef& n, nb::object fn) {
            auto f = shared_callable(std::move(fn));
            uint64_t id = autograd::add_node_prehook(*n.node, [f](const Grads& outs) {
              return call_node_hook(*f, {&outs});
            });
            return NodeHookHandle{n.node, id};
          },
          nb::arg("fn"))
      .def(
          "register_hook",
          [](const NodeRef& n, nb::object fn) {
            auto f = shared_callable(std::move(fn));
            uint64_t id =
                autograd::add_node_hook(*n.node, [f](const Grads& ins, const Grads& outs) {
                  return call_node_hook(*f, {&ins, &outs});
                });
            return NodeHookHandle{n.node, id};
          },
          nb::arg("fn"))
      .def_prop_ro("next_functions",
                   [](const NodeRef& n) {
                     nb::list out;
                     for (const Edge& e : n.node->next_edges)
                       out.append(nb::make_tuple(node_or_none(e.fn), e.input_nr));
                     return nb::tuple(out);
                   })
      .def("__eq__", [](const NodeRef& a, const NodeRef& b) { return a.node == b.node; })
      .def("__hash__", [](const NodeRef& a) { return reinterpret_cast<intptr_t>(a.node.get()); })
      .def("__repr__", [](const NodeRef& n) { return "<" + n.node->name() + ">"; });

  m.def("is_grad_enabled", &GradMode::is_enabled, docstring("is_grad_enabled"));
  m.def("_set_grad_enabled", &GradMode::set_enabled);
  m.def(
      "_backward",
      [](nb::handle outputs, nb::handle grads, bool retain, bool create, nb::handle inputs) {
        ForgetHookGrad forget;
        autograd::backward(tensors_or_empty(outputs), tensors_or_empty(grads), retain, create,
                           tensors_or_empty(inputs));
      },
      nb::arg("outputs"), nb::arg("grads").none(), nb::arg("retain_graph"), nb::arg("create_graph"),
      nb::arg("inputs").none());
  m.def(
      "_grad",
      [](nb::handle outputs, nb::handle inputs, nb::handle grads, bool retain, bool create,
         bool allow_unused) {
        ForgetHookGrad forget;
        std::vector<Tensor> r =
            autograd::grad(tensors_or_empty(outputs), tensors_or_empty(inputs),
                           tensors_or_empty(grads), retain, create, allow_unused);
        nb::list out;
        for (const Tensor& g : r) out.append(grad_or_none(g));
        return nb::tuple(out);
      },
      nb::arg("outputs"), nb::arg("inputs"), nb::arg("grads").none(), nb::arg("retain_graph"),
      nb::arg("create_graph"), nb::arg("allow_unused"));
  // Function.apply's recording step (see record_py_function).
  m.def("_function_apply", &function_apply, nb::arg("cls"), nb::arg("args"));
  m.def("_saved_versions", &saved_versions);
  m.def("_check_saved_versions", &check_saved_versions, nb::arg("saved"), nb::arg("versions"),
        nb::arg("skip").none());
  m.def("_record_py_function", &record_py_function, nb::arg("cls"), nb::arg("ctx"), nb::arg("args"),
        nb::arg("outputs").none());
  // fn() once the running backward has finished (Variable._execution_engine.queue_callback).
  m.def("_queue_callback", [](nb::object fn) {
    autograd::queue_callback([fn = shared_callable(std::move(fn))]() {
      nb::gil_scoped_acquire gil;
      (*fn)();
    });
  });
  // A handle to t's data without its history (what ctx.save_for_backward keeps of an output).
  m.def("_saved_alias", [](const Tensor& t) { return t.alias(); });
  // Anomaly mode (autograd.set_detect_anomaly): NaN results of backward nodes raise.
  m.def("_set_anomaly_enabled", &autograd::set_anomaly_enabled, nb::arg("enabled"),
        nb::arg("check_nan") = true);
  m.def("_is_anomaly_enabled", &autograd::anomaly_enabled);
  m.def("_is_anomaly_check_nan_enabled", &autograd::anomaly_check_nan);
  // Saved-tensor hooks (autograd.graph.saved_tensors_hooks): pack(t) -> any object,
  // unpack(object) -> tensor. The packed object is released with the GIL held.
  m.def("_push_saved_tensors_hooks", [](nb::object pack, nb::object unpack) {
    if (!PyCallable_Check(pack.ptr()) || !PyCallable_Check(unpack.ptr()))
      throw nb::type_error(
          detail::cat("saved_tensors_hooks: pack_hook and unpack_hook must be callable, got ",
                      nb::type_name(pack.type()).c_str(), " and ",
                      nb::type_name(unpack.type()).c_str())
              .c_str());
    autograd::SavedTensorHooks hooks;
    hooks.pack = [fn =
                      shared_callable(std::move(pack))](const Tensor& t) -> autograd::PackedTensor {
      nb::gil_scoped_acquire gil;
      nb::object packed = (*fn)(t);
      return autograd::PackedTensor(new nb::object(std::move(packed)), [](void* p) {
        nb::gil_scoped_acquire gil;
        delete static_cast<nb::object*>(p);
      });
    };
    hooks.unpack = [fn = shared_callable(std::move(unpack))](const autograd::PackedTensor& p) {
      nb::gil_scoped_acquire gil;
      nb::object r = (*fn)(*static_cast<nb::object*>(p.get()));
      if (!nb::isinstance<Tensor>(r))
        throw nb::type_error("Output of saved tensor unpack_hook expected to be a Tensor");
      return nb::cast<Tensor>(r);
    };
    autograd::push_saved_tensors_hooks(std::move(hooks));
  });
  m.def("_pop_saved_tensors_hooks", &autograd::pop_saved_tensors_hooks);
}

}  // namespace ember::py
