// scatter_reduce (the kernel: kernels::index_reduce_put over gather's IndexLoop), and the two
// reductions built on it: index_reduce (a 1-d index expanded along source) and segment_reduce
// (each position's segment number, from the lengths' running sum). Backward beside forward,
// with torch's formulas (ties in amax/amin share the gradient evenly; prod divides out a
// single zero by recomputing the product without it).
#include "ember/scatter_reduce.h"

#include <cmath>
#include <limits>

#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "ops/indexing.h"
#include "ops/iter.h"

namespace ember {
namespace {

using autograd::SavedTensor;
using kernels::PutReduce;

enum class Kind { Sum, Prod, Mean, Amax, Amin };

Kind parse_reduce(std::string_view r) {
  if (r == "sum") return Kind::Sum;
  if (r == "prod") return Kind::Prod;
  if (r == "mean") return Kind::Mean;
  if (r == "amax") return Kind::Amax;
  if (r == "amin") return Kind::Amin;
  throw Error(detail::cat("reduce argument must be either sum, prod, mean, amax or amin, got ", r));
}

// The value a position starts from when include_self=false: the reduction's identity.
Scalar identity(Kind k, DType dt) {
  switch (k) {
    case Kind::Sum:
    case Kind::Mean: return Scalar(int64_t(0));
    case Kind::Prod: return Scalar(int64_t(1));
    default: break;
  }
  const bool max = k == Kind::Amax;
  if (is_floating(dt)) return Scalar(max ? -INFINITY : INFINITY);
  return visit_dtype(dt, [&]<class T>() {
    return Scalar(int64_t(max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max()));
  });
}

// How many values each position of t's shape averages: include_self counts t's own value.
Tensor mean_count(const Tensor& t, int64_t d, const Tensor& idx, bool include_self) {
  Tensor count = full(t.sizes(), Scalar(int64_t(include_self ? 1 : 0)), t.dtype());
  scatter_add_(count, d, idx, ones(idx.sizes(), t.dtype()));
  return masked_fill(count, eq(count, Scalar(int64_t(0))), Scalar(int64_t(1)));
}

// src cut to the index's shape (scatter reads only that corner of a larger src).
Tensor corner(const Tensor& src, IntList shape) {
  Tensor s = src;
  for (int64_t k = 0; k < s.dim(); ++k)
    if (s.sizes()[size_t(k)] != shape[size_t(k)]) s = narrow(s, k, 0, shape[size_t(k)]);
  return s;
}

// g (of the index's shape) placed into zeros of src's shape: a scatter along dim 0 whose
// index is each element's own row writes g into the corner.
Tensor uncorner(const Tensor& g, IntList src_shape) {
  if (g.sizes() == Dims(src_shape)) return g;
  Dims rows_shape(g.sizes().size(), 1);
  rows_shape[0] = g.sizes()[0];
  Tensor rows =
      reshape(arange(Scalar(int64_t(0)), Scalar(g.sizes()[0]), Scalar(int64_t(1)), DType::Int64),
              rows_shape);
  return scatter(zeros(src_shape, g.dtype()), 0, expand(rows, g.sizes()), g);
}

// The forward, without autograd: a fresh result.
Tensor forward(const Tensor& t, int64_t d, const Tensor& idx, const Tensor& src, Kind k,
               bool include_self) {
  Tensor out = clone(t);
  if (idx.numel() == 0) return out;
  if (!include_self) scatter_(out, d, idx, identity(k, t.dtype()));
  kernels::IndexLoop L = ops::along_dim(out, d, idx);
  Tensor s = src.storage() == out.storage() ? clone(src) : src;
  L.vals = s.data_ptr();
  for (int64_t j = 0; j < idx.dim(); ++j)
    L.vals_strides.push_back((s.dim() == 0 ? 0 : s.strides()[size_t(j)]) * L.itemsize);
  const PutReduce r = k == Kind::Prod   ? PutReduce::Prod
                      : k == Kind::Amax ? PutReduce::Max
                      : k == Kind::Amin ? PutReduce::Min
                                        : PutReduce::Sum;
  kernels::index_reduce_put(L, t.dtype(), r);
  if (k == Kind::Mean) {
    Tensor count = mean_count(t, d, idx, include_self);
    out = is_floating(t.dtype()) ? div(out, count) : floor_divide(out, count);
  }
  return out;
}

struct Checked {
  Tensor idx;
  int64_t d;
};

Checked check(const char* op, const Tensor& t, int64_t dim, const Tensor& index,
              const Tensor& src) {
  ops::check_defined(t, op);
  ops::check_defined(index, op);
  ops::check_defined(src, op);
  Tensor idx = ops::index_int64(index, op);
  const int64_t d = wrap_dim(dim, t.dim(), op);
  ops::check_gather_shapes(op, t, d, idx, &src);
  EMBER_CHECK(src.dtype() == t.dtype(), Error, op,
              ": expected self.dtype to be equal to src.dtype, got ", dtype_name(t.dtype()),
              " and ", dtype_name(src.dtype()));
  EMBER_CHECK(is_floating(t.dtype()) || is_integral(t.dtype(), false), TypeError, op,
              ": not implemented for '", dtype_name(t.dtype()), "'");
  if (idx.numel() > 0)
    ops::check_index_range(idx, t.dim() == 0 ? 1 : t.sizes()[size_t(d)], d, false, op);
  return {idx, d};
}

// Gradients of self and src (either may be skipped), torch's formulas.
Grads backward(const Tensor& g, const Tensor& self, const Tensor& src, const Tensor& result,
               int64_t d, const Tensor& idx, Kind k, bool include_self, bool need_self,
               bool need_src) {
  const Tensor s = corner(src, idx.sizes());
  Tensor gs, gsrc;
  switch (k) {
    case Kind::Sum:
      gs = g;
      gsrc = gather(g, d, idx);
      break;
    case Kind::Mean: {
      Tensor gn = div(g, mean_count(self, d, idx, include_self));
      gs = gn;
      gsrc = gather(gn, d, idx);
      break;
    }
    case Kind::Prod: {
      if (need_self) {
        Tensor masked_self = masked_fill(self, eq(self, Scalar(0.0)), Scalar(1.0));
        Tensor r = scatter_reduce(masked_self, d, idx, s, "prod", include_self);
        gs = div(mul(g, r), masked_self);
      }
      if (need_src) {
        Tensor zero = eq(s, Scalar(0.0));
        Tensor nz = gather(scatter_add(zeros(self.sizes(), self.dtype()), d, idx,
                                       to_dtype(zero, self.dtype())),
                           d, idx);
        Tensor single = logical_and(zero, eq(nz, Scalar(1.0)));
        Tensor rest =
            scatter_reduce(self, d, idx, masked_fill(s, single, Scalar(1.0)), "prod", include_self);
        gsrc = where(single, gather(mul(g, rest), d, idx),
                     div(gather(mul(g, result), d, idx), masked_fill(s, zero, Scalar(1.0))));
      }
      break;
    }
    case Kind::Amax:
    case Kind::Amin: {
      Tensor self_hit = eq(self, result);
      if (!include_self) self_hit = scatter(self_hit, d, idx, Scalar(false));
      Tensor src_hit = eq(s, gather(result, d, idx));
      Tensor n =
          scatter_add(to_dtype(self_hit, self.dtype()), d, idx, to_dtype(src_hit, self.dtype()));
      Tensor share = div(g, masked_fill(n, eq(n, Scalar(0.0)), Scalar(1.0)));
      gs = mul(to_dtype(self_hit, self.dtype()), share);
      gsrc = mul(to_dtype(src_hit, self.dtype()), gather(share, d, idx));
      break;
    }
  }
  if (need_self && !include_self) gs = scatter(gs, d, idx, Scalar(0.0));
  if (!need_self) gs = Tensor();
  if (need_src) gsrc = uncorner(gsrc, src.sizes());
  else gsrc = Tensor();
  return {gs, gsrc};
}

Tensor scatter_reduce_out(const char* op, const Tensor& t, int64_t dim, const Tensor& index,
                          const Tensor& src, std::string_view reduce, bool include_self) {
  const Kind k = parse_reduce(reduce);
  Checked c = check(op, t, dim, index, src);
  Tensor out;
  {
    NoGradGuard no_grad;
    out = forward(t, c.d, c.idx, src, k, include_self);
  }
  if (autograd::any_requires_grad(t, src)) {
    EMBER_CHECK(is_floating(t.dtype()), Error, op, ": only floating tensors can require gradients");
    autograd::record("ScatterReduceBackward0", {&t, &src}, {&out},
                     [st = SavedTensor(t), ss = SavedTensor(src), so = SavedTensor(out, true),
                      d = c.d, idx = c.idx, k, include_self](Grads& g, const Node& n) -> Grads {
                       return backward(g[0], st.get(), ss.get(), so.get(), d, idx, k, include_self,
                                       n.needs_input_grad(0), n.needs_input_grad(1));
                     });
  }
  return out;
}

}  // namespace

Tensor scatter_reduce(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self) {
  EMBER_RECORD(scatter_reduce, t, dim, index, src, reduce, include_self);
  EMBER_PROFILE_OP("scatter_reduce");
  return scatter_reduce_out("scatter_reduce", t, dim, index, src, reduce, include_self);
}

Tensor& scatter_reduce_(Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
                        std::string_view reduce, bool include_self) {
  EMBER_RECORD(scatter_reduce_, t, dim, index, src, reduce, include_self);
  EMBER_PROFILE_OP("scatter_reduce_");
  parse_reduce(reduce);
  check("scatter_reduce_", t, dim, index, src);  // nothing is written on a bad call
  if (autograd::any_requires_grad(t, src))
    return autograd::apply_inplace(t, "scatter_reduce_", [&](const Tensor& x) {
      return scatter_reduce_out("scatter_reduce_", x, dim, index, src, reduce, include_self);
    });
  ops::check_no_internal_overlap(t, "scatter_reduce_");
  Tensor r = scatter_reduce_out("scatter_reduce_", t, dim, index, src, reduce, include_self);
  {
    NoGradGuard no_grad;
    copy_(t, r);
  }
  return t;
}

namespace {

// index_reduce's checks, and its 1-d index expanded to source's shape along `dim`.
Tensor expanded_index(const char* op, const Tensor& t, int64_t dim, const Tensor& index,
                      const Tensor& source, std::string_view reduce) {
  EMBER_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin", Error,
              op, ": Expected reduce to be one of prod, mean, amax or amin but got ", reduce, ".");
  ops::check_defined(t, op);
  ops::check_defined(index, op);
  ops::check_defined(source, op);
  const int64_t d = wrap_dim(dim, t.dim(), op);
  EMBER_CHECK(index.dim() <= 1, IndexError, op,
              ": Index is supposed to be a vector, but got dim: ", index.dim(),
              " with size: ", index.sizes());
  EMBER_CHECK(source.dim() == t.dim(), Error, op,
              ": source tensor shape must match self tensor shape, "
              "excluding the specified dimension. Got self.shape = ",
              t.sizes(), " source.shape = ", source.sizes());
  for (int64_t k = 0; k < t.dim(); ++k)
    EMBER_CHECK(
        k == d || source.sizes()[size_t(k)] == t.sizes()[size_t(k)], Error, op,
        ": source tensor shape must match self tensor shape, excluding the specified dimension. "
        "Got self.shape = ",
        t.sizes(), " source.shape = ", source.sizes());
  const int64_t n = source.dim() == 0 ? 1 : source.sizes()[size_t(d)];
  EMBER_CHECK(index.numel() == n, Error, op, ": Number of indices (", index.numel(),
              ") should be equal to source.size(dim): (", n, "), for dim: ", d);
  Tensor idx = ops::index_int64(index, op);
  ops::check_index_range(idx, t.dim() == 0 ? 1 : t.sizes()[size_t(d)], d, false, op);
  if (t.dim() == 0) return reshape(idx, {});
  Dims shape(size_t(t.dim()), 1);
  shape[size_t(d)] = n;
  return expand(reshape(idx, shape), source.sizes());
}

}  // namespace

Tensor index_reduce(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source,
                    std::string_view reduce, bool include_self) {
  EMBER_RECORD(index_reduce, t, dim, index, source, reduce, include_self);
  EMBER_PROFILE_OP("index_reduce");
  Tensor idx = expanded_index("index_reduce", t, dim, index, source, reduce);
  return scatter_reduce_out("index_reduce", t, dim, idx, source, reduce, include_self);
}

Tensor& index_reduce_(Tensor& t, int64_t dim, const Tensor& index, const Tensor& source,
                      std::string_view reduce, bool include_self) {
  EMBER_RECORD(index_reduce_, t, dim, index, source, reduce, include_self);
  EMBER_PROFILE_OP("index_reduce_");
  Tensor idx = expanded_index("index_reduce_", t, dim, index, source, reduce);
  return scatter_reduce_(t, dim, idx, source, reduce, include_self);
}

Tensor segment_reduce(const Tensor& data, std::string_view reduce,
                      const std::optional<Tensor>& lengths, const std::optional<Tensor>& offsets,
                      int64_t axis, bool unsafe, std::optional<double> initial) {
  EMBER_RECORD(segment_reduce, data, reduce, lengths, offsets, axis, unsafe, initial);
  EMBER_PROFILE_OP("segment_reduce");
  const char* op = "segment_reduce";
  ops::check_defined(data, op);
  std::string_view r = reduce == "max" ? "amax" : reduce == "min" ? "amin" : reduce;
  EMBER_CHECK(r == "sum" || r == "prod" || r == "mean" || r == "amax" || r == "amin", Error,
              "reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
  EMBER_CHECK(is_floating(data.dtype()), NotImplementedError,
              "\"_segment_reduce_cpu\" not implemented for '", dtype_name(data.dtype()), "'");
  EMBER_CHECK(lengths.has_value() != offsets.has_value(), Error, op,
              "(): Either lengths or offsets must be defined (and not both)");
  Tensor len;
  if (lengths) {
    ops::check_defined(*lengths, op);
    EMBER_CHECK(!is_floating_point(lengths->dtype()) && lengths->dtype() != DType::Bool, TypeError,
                op, "(): lengths must be an integer tensor, got ", dtype_name(lengths->dtype()));
    len = to_dtype(*lengths, DType::Int64);
  } else {
    ops::check_defined(*offsets, op);
    EMBER_CHECK(!is_floating_point(offsets->dtype()) && offsets->dtype() != DType::Bool, TypeError,
                op, "(): offsets must be an integer tensor, got ", dtype_name(offsets->dtype()));
    EMBER_CHECK(offsets->dim() >= 1 && offsets->sizes().back() >= 1, Error, op,
                "(): offsets must have at least one element along the last dim, got ",
                offsets->sizes());
    Tensor o = to_dtype(*offsets, DType::Int64);
    const int64_t m = o.sizes().back();
    len = sub(narrow(o, -1 + o.dim(), 1, m - 1), narrow(o, o.dim() - 1, 0, m - 1));
  }
  EMBER_CHECK(len.dim() >= 1, Error, op,
              "(): lengths must have at least one dim, got a 0-d tensor");
  const int64_t ax = wrap_dim(axis, data.dim(), op);
  EMBER_CHECK(ax == len.dim() - 1, Error, op,
              "(): Expected axis to be the last dimension of lengths but got ", axis, ".");
  for (int64_t k = 0; k < ax; ++k)
    EMBER_CHECK(len.sizes()[size_t(k)] == data.sizes()[size_t(k)], Error, op, "(): lengths ",
                len.sizes(), " must match data ", data.sizes(), " before the axis");
  EMBER_CHECK(len.numel() == 0 || amin(len).item().to_int() >= 0, Error,
              "lengths contains negative value!");
  const int64_t n = data.sizes()[size_t(ax)], segs = len.sizes().back();
  Tensor ends = cumsum(len, ax);  // where each segment ends
  if (!unsafe && len.numel() > 0)
    EMBER_CHECK(
        all(eq(narrow(ends, ax, segs - 1, 1), Scalar(n))).item().to_int() != 0, Error, op,
        "(): Expected all rows of lengths along axis to sum to data.size(lengths.dim()-1) when !unsafe.");
  // Position j of a row belongs to the segment numbered by how many segments end at or before j.
  Dims marks_shape(len.sizes());
  marks_shape[marks_shape.size() - 1] = n + 1;
  Tensor marks = zeros(marks_shape, DType::Int64);
  if (segs > 1)
    scatter_add_(marks, ax, clamp(narrow(ends, ax, 0, segs - 1), std::nullopt, Scalar(n)),
                 ones(Dims(narrow(ends, ax, 0, segs - 1).sizes()), DType::Int64));
  Tensor ids = narrow(cumsum(marks, ax), ax, 0, n);
  Dims ids_shape(ids.sizes());
  ids_shape.resize(size_t(data.dim()), 1);
  ids = expand(reshape(ids, ids_shape), data.sizes());
  Dims out_shape(data.sizes());
  out_shape[size_t(ax)] = segs;
  const Kind k = parse_reduce(r);
  double empty = initial           ? *initial
                 : k == Kind::Prod ? 1.0
                 : k == Kind::Mean ? NAN
                 : k == Kind::Amax ? -INFINITY
                 : k == Kind::Amin ? INFINITY
                                   : 0.0;
  Tensor base = full(out_shape, Scalar(empty), data.dtype());
  if (segs == 0 || n == 0) return base;
  if (k != Kind::Mean) return scatter_reduce_out(op, base, ax, ids, data, r, initial.has_value());
  // torch's mean: (initial + the values) / max(length, 1), the initial not counted
  Tensor total = scatter_reduce_out(op, base, ax, ids, data, "sum", initial.has_value());
  Dims len_shape(len.sizes());
  len_shape.resize(size_t(data.dim()), 1);
  return div(total, reshape(to_dtype(clamp(len, Scalar(int64_t(1)), std::nullopt), data.dtype()),
                            len_shape));
}

}  // namespace ember
