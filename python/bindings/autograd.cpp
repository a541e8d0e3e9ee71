// Autograd glue: Tensor's grad attributes, backward/grad entry points, grad mode, graph
// nodes as Python objects, and PyNode, the node that runs a Python Function's backward.
#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>

#include <memory>

#include "common.h"
#include "ember/anomaly.h"
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

// Runs a Python Function's backward. The callable gets the output gradients (None where
// an output got none) and returns one gradient (or None) per tensor input.
class PyNode final : public Node {
 public:
  PyNode(std::string name, nb::object fn) : name_(std::move(name)), fn_(std::move(fn)) {}
  ~PyNode() override {
    nb::gil_scoped_acquire gil;
    fn_.reset();
  }
  Grads apply(Grads&& grads) override {
    nb::gil_scoped_acquire gil;
    if (!fn_.is_valid()) autograd::throw_released(name_);
    nb::list args;
    for (Tensor& g : grads) args.append(grad_or_none(g));
    nb::object res = fn_(args);
    Grads out;
    for (nb::handle h : res) out.push_back(h.is_none() ? Tensor() : nb::cast<Tensor>(h));
    EMBER_CHECK(out.size() == next_edges.size(), Error, name_, ": backward returned ", out.size(),
                " gradients, expected ", next_edges.size());
    return out;
  }
  std::string name() const override { return name_; }
  void release_saved() override {
    nb::gil_scoped_acquire gil;
    fn_.reset();
  }

 private:
  std::string name_;
  nb::object fn_;
};

// A Python callable shared by the copies of a C++ hook: copying the hook then touches no
// Python reference count (the engine copies a hook before calling it), and the last copy
// drops the callable under the GIL.
std::shared_ptr<nb::object> shared_callable(nb::object fn) {
  return std::shared_ptr<nb::object>(new nb::object(std::move(fn)), [](nb::object* p) {
    nb::gil_scoped_acquire gil;
    delete p;
  });
}

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
      [](Tensor& t, bool on) { autograd::set_requires_grad(t, on); });
  cls.def(
      "requires_grad_",
      [](nb::handle self, bool on) {
        autograd::set_requires_grad(nb::cast<Tensor&>(self), on);
        return nb::borrow(self);
      },
      nb::arg("requires_grad") = true);
  cls.def_prop_rw(
      "grad", [](const Tensor& t) { return grad_or_none(autograd::grad(t)); },
      [](Tensor& t, nb::handle g) {
        autograd::set_grad(t, g.is_none() ? Tensor() : nb::cast<Tensor>(g));
      },
      nb::arg("value").none());
  cls.def_prop_ro("grad_fn", [](const Tensor& t) { return node_or_none(autograd::grad_fn(t)); });
  cls.def_prop_ro("is_leaf", [](const Tensor& t) { return autograd::is_leaf(t); });
  // Which output of its grad_fn this tensor is (0 for leaves).
  cls.def_prop_ro("output_nr", [](const Tensor& t) {
    autograd::AutogradMeta* m = autograd::meta(t);
    return m && m->grad_fn ? m->output_nr : 0u;
  });
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
      nb::arg("value").none());
  cls.def_prop_ro("retains_grad", [](const Tensor& t) { return autograd::retains_grad(t); });
  cls.def("retain_grad", [](const Tensor& t) { autograd::retain_grad(t); });
  cls.def("_register_hook", [](const Tensor& t, nb::object fn) {
    autograd::register_hook(t, [fn](const Tensor& g) -> Tensor {
      nb::gil_scoped_acquire gil;
      nb::object r = fn(g);
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
      "data", [](const Tensor& t) { return detach(t); },
      [](Tensor& t, const Tensor& src) {
        EMBER_CHECK(!autograd::requires_grad(t) || is_floating_point(src.dtype()) ||
                        is_complex(src.dtype()),
                    TypeError, "data: a tensor that requires grad needs floating point data, got ",
                    dtype_name(src.dtype()));
        t.set_data(src);
      });
  cls.def("detach_", [](nb::handle self) {
    Tensor& t = nb::cast<Tensor&>(self);
    if (auto* mt = autograd::meta(t)) mt->grad_fn.reset();
    t.impl()->requires_grad_ = false;
    return nb::borrow(self);
  });

  nb::class_<NodeRef>(m, "Node")
      .def("name", [](const NodeRef& n) { return n.node->name(); })
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

  m.def("is_grad_enabled", &GradMode::is_enabled);
  m.def("_set_grad_enabled", &GradMode::set_enabled);
  m.def(
      "_backward",
      [](nb::handle outputs, nb::handle grads, bool retain, bool create, nb::handle inputs) {
        autograd::backward(tensors_or_empty(outputs), tensors_or_empty(grads), retain, create,
                           tensors_or_empty(inputs));
      },
      nb::arg("outputs"), nb::arg("grads").none(), nb::arg("retain_graph"), nb::arg("create_graph"),
      nb::arg("inputs").none());
  m.def(
      "_grad",
      [](nb::handle outputs, nb::handle inputs, nb::handle grads, bool retain, bool create,
         bool allow_unused) {
        std::vector<Tensor> r =
            autograd::grad(tensors_or_empty(outputs), tensors_or_empty(inputs),
                           tensors_or_empty(grads), retain, create, allow_unused);
        nb::list out;
        for (const Tensor& g : r) out.append(grad_or_none(g));
        return nb::tuple(out);
      },
      nb::arg("outputs"), nb::arg("inputs"), nb::arg("grads").none(), nb::arg("retain_graph"),
      nb::arg("create_graph"), nb::arg("allow_unused"));
  // Records a Python Function: `backward_fn(list_of_output_grads) -> grads per input`.
  m.def("_record_function", [](const std::string& name, const std::vector<Tensor>& inputs,
                               const std::vector<Tensor>& outputs, nb::object backward_fn) {
    IntrusivePtr<Node> node(new PyNode(name, std::move(backward_fn)));
    autograd::set_history(node, inputs, outputs);
  });
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
