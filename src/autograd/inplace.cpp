// In-place ops under autograd.
//
// Note [In-place on views]: writing in place to a tensor in a graph replaces its history:
// its new grad_fn is the in-place op's node, whose input edge is the old history. When the
// tensor is a view of a base, the base's data changed too, so the base gets a CopySlices
// node: its gradient passes through unchanged outside the view's region, and inside the
// region flows through the op instead. The view's own history is regenerated as a view of
// the new base. (PyTorch does the same; this is the small version.)
#include "autograd/function.h"

namespace ember::autograd {

void mark_view(const Tensor& base, const Tensor& view) {
  AutogradMeta& vm = ensure_meta(view);
  AutogradMeta* bm = meta(base);
  vm.view_base = bm && bm->view_base.defined() ? bm->view_base : base;
  AutogradMeta* root = meta(vm.view_base);
  vm.is_view_of_leaf = vm.view_base.impl()->requires_grad_ && (!root || !root->grad_fn);
}

namespace {

void take_history(const Tensor& self, const Tensor& out) {
  AutogradMeta& m = ensure_meta(self);
  AutogradMeta* om = meta(out);
  m.grad_fn = om ? om->grad_fn : IntrusivePtr<Node>();
  m.output_nr = om ? om->output_nr : 0;
  m.retained.reset();
  self.impl()->requires_grad_ = bool(m.grad_fn);
}

// The geometry of `view` inside `base`'s storage, relative to base's first element.
struct Region {
  Dims sizes, strides;
  int64_t offset;
};

Tensor region_of(const Tensor& g, const Region& r) {
  return g.as_strided(r.sizes, r.strides, g.offset() + r.offset);
}

void rebase_view(const Tensor& view, const Tensor& out) {
  Tensor base = meta(view)->view_base;
  // t.real / view_as_real(t) count elements in another dtype than their base.
  EMBER_CHECK(view.dtype() == base.dtype(), NotImplementedError, "in-place operation on a ",
              dtype_name(view.dtype()), " view of a ", dtype_name(base.dtype()),
              " tensor that requires grad (e.g. z.real.mul_(2)); use an out-of-place op");
  EMBER_CHECK(base.is_contiguous(), NotImplementedError,
              "in-place operation on a view of a non-contiguous tensor that requires grad");
  Region r{view.sizes(), view.strides(), view.offset() - base.offset()};
  Dims base_shape = base.sizes();
  record("CopySlices", {&base, &out}, {&base}, [r, base_shape](Grads& g, const Node& n) -> Grads {
    Tensor gb = clone(g[0]);
    Tensor region = region_of(gb, r);
    Tensor g_out = n.needs_input_grad(1) ? clone(region) : Tensor();
    fill_(region, Scalar(0.0));
    return {gb, g_out};
  });
  // The view now reads from the new base.
  record("AsStridedBackward0", {&base}, {&view}, [r, base_shape](Grads& g, const Node&) -> Grads {
    Tensor gb = zeros(base_shape, g[0].dtype());
    Tensor region = region_of(gb, r);
    copy_(region, g[0]);
    return {gb};
  });
  AutogradMeta& vm = *meta(view);
  vm.view_base = base;
}

}  // namespace

bool can_write_in_place(const Tensor& self) {
  AutogradMeta* m = meta(self);
  return !m || (!m->view_base.defined() && m->output_nr == 0);
}

Tensor& apply_inplace(Tensor& self, const char* op, const std::function<Tensor(const Tensor&)>& f) {
  check_inplace(self, op);
  Tensor x = clone(self);
  Tensor out = f(x);
  EMBER_CHECK(out.sizes() == self.sizes(), Error, op, ": output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", out.sizes());
  EMBER_CHECK(can_cast(out.dtype(), self.dtype()), Error, op, ": result type ",
              dtype_name(out.dtype()), " can't be cast to the desired output type ",
              dtype_name(self.dtype()));
  if (out.dtype() != self.dtype()) out = to_dtype(out, self.dtype());
  {
    NoGradGuard no_grad;
    copy_(self, out);
  }
  AutogradMeta* m = meta(self);
  if (m && m->view_base.defined()) rebase_view(self, out);
  else take_history(self, out);
  return self;
}

}  // namespace ember::autograd
