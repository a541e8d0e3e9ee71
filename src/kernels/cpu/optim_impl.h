// The optimizer kernels, compiled once per instruction set: optim.cpp includes this file
// for the baseline ISA as namespace `generic`, optim_avx2.cpp again under
// `#pragma GCC target("avx2,fma")` as namespace `avx2`; optim.cpp picks one at run time
// (as reduce_impl.h does). Everything here has internal linkage or lives in the ISA-named
// namespace, so the two copies never merge at link time. Include it only from those files.
//
// One fused parallel loop runs over all the slots of a step. Each update mirrors
// torch.optim's single-tensor code op by op (see the comment on each line), with the
// hyper-parameters rounded to the slot's dtype as ATen does for Python scalars; float32
// results match PyTorch's within a few ulps (which multiply-adds get fused into FMAs differs
// between PyTorch's kernels and ours). Options are template flags so that every inner loop
// is branch-free and vectorizes (CMakeLists.txt builds both copies with -fno-math-errno,
// without which no loop with a sqrt would).
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "kernels/cpu/optim.h"
#include "kernels/cpu/parallel.h"

#ifndef EMBER_OPTIM_ISA
#error "define EMBER_OPTIM_ISA (the namespace of this copy) before including optim_impl.h"
#endif

namespace ember::kernels::EMBER_OPTIM_ISA {
namespace {

// An optimizer reads and writes 3-5 arrays per element: more work per element than a
// plain elementwise op, so a second thread pays off sooner.
constexpr int64_t kOptimGrain = kGrain / 2;

// Calls f(slot, lo, hi) over the slots' elements laid end to end, split over threads.
template <class Slot, class F>
void fused_for(std::span<const Slot> slots, const F& f) {
  std::vector<int64_t> start(slots.size() + 1, 0);
  for (size_t k = 0; k < slots.size(); ++k) start[k + 1] = start[k] + slots[k].n;
  parallel_for(0, start.back(), kOptimGrain, [&](int64_t b, int64_t e) {
    size_t k = size_t(std::upper_bound(start.begin(), start.end(), b) - start.begin()) - 1;
    for (; k < slots.size() && start[k] < e; ++k) {
      int64_t lo = std::max(b, start[k]) - start[k], hi = std::min(e, start[k + 1]) - start[k];
      if (lo < hi) f(slots[k], lo, hi);
    }
  });
}

// with_flags(f, b1, b2, ...) calls f(B1{}, B2{}, ...) with std::bool_constant values, so
// run-time options become compile-time ones.
template <class F>
void with_flags(const F& f) {
  f();
}
template <class F, class... Rest>
void with_flags(const F& f, bool b, Rest... rest) {
  auto bind = [&](auto c) { with_flags([&](auto... cs) { f(c, cs...); }, rest...); };
  if (b) bind(std::true_type{});
  else bind(std::false_type{});
}

// torch's lerp(start, end, w) = base + coeff * (end - start), with base/coeff chosen by
// |w| < 0.5 as ATen's vectorized lerp does (start, w) or (end, w - 1).
template <class T>
struct Lerp {
  bool small;
  T coeff;
  explicit Lerp(double w) : small(std::abs(T(w)) < T(0.5)), coeff(small ? T(w) : T(w) - T(1)) {}
  T operator()(T start, T end) const { return (small ? start : end) + coeff * (end - start); }
};

// torch.maximum: NaN wins.
template <class T>
T nan_max(T a, T b) {
  return (a != a || a > b) ? a : b;
}

// ---- SGD (torch/optim/sgd.py, _single_tensor_sgd) ------------------------------------
template <class T, bool WD, bool Mom, bool First, bool Nesterov>
void sgd_run(const SGDSlot& s, int64_t lo, int64_t hi, const SGDArgs& a) {
  T* __restrict p = static_cast<T*>(s.param);
  const T* __restrict g = static_cast<const T*>(s.grad);
  T* __restrict buf = static_cast<T*>(s.momentum_buffer);
  const T sign = a.maximize ? T(-1) : T(1), wd = T(a.weight_decay), mom = T(a.momentum);
  const T damp = T(1 - a.dampening), neg_lr = T(-a.lr);
  for (int64_t j = lo; j < hi; ++j) {
    T d = g[j] * sign;                    // grad = -grad if maximize
    if constexpr (WD) d = d + wd * p[j];  // grad.add(param, alpha=wd)
    if constexpr (Mom) {
      T b;
      if constexpr (First) b = d;        // buf = grad.clone()
      else b = buf[j] * mom + damp * d;  // buf.mul_(momentum).add_(grad, alpha=1-dampening)
      buf[j] = b;
      if constexpr (Nesterov) d = d + mom * b;  // grad.add(buf, alpha=momentum)
      else d = b;
    }
    p[j] = p[j] + neg_lr * d;  // param.add_(grad, alpha=-lr)
  }
}

// ---- Adam / AdamW (torch/optim/adam.py, _single_tensor_adam) --------------------------
template <class T, WeightDecay Decay, bool Amsgrad>
void adam_run(const AdamSlot& s, int64_t lo, int64_t hi, const AdamArgs& a) {
  T* __restrict p = static_cast<T*>(s.param);
  const T* __restrict g = static_cast<const T*>(s.grad);
  T* __restrict m = static_cast<T*>(s.exp_avg);
  T* __restrict v = static_cast<T*>(s.exp_avg_sq);
  T* __restrict vmax = static_cast<T*>(s.max_exp_avg_sq);
  const T sign = a.maximize ? T(-1) : T(1), wd = T(a.weight_decay);
  const T decay = T(1 - a.lr * a.weight_decay), beta2 = T(a.beta2),
          one_minus_beta2 = T(1 - a.beta2);
  const T eps = T(a.eps), bc2_sqrt = T(s.bias_correction2_sqrt), neg_step = T(-s.step_size);
  const Lerp<T> lerp(1 - a.beta1);
  for (int64_t j = lo; j < hi; ++j) {
    T d = g[j] * sign, pj = p[j];
    if constexpr (Decay == WeightDecay::L2) d = d + wd * pj;         // grad.add(param, alpha=wd)
    if constexpr (Decay == WeightDecay::Decoupled) pj = pj * decay;  // param.mul_(1 - lr*wd)
    const T mj = lerp(m[j], d);                                      // exp_avg.lerp_(grad, 1-beta1)
    m[j] = mj;
    T vj = v[j] * beta2 + one_minus_beta2 * d * d;  // exp_avg_sq.mul_(b2).addcmul_(g, g, 1-b2)
    v[j] = vj;
    if constexpr (Amsgrad) vmax[j] = vj = nan_max(vmax[j], vj);  // torch.maximum(..., out=)
    const T denom = std::sqrt(vj) / bc2_sqrt + eps;              // (v.sqrt() / bc2_sqrt).add_(eps)
    p[j] = pj + neg_step * mj / denom;  // param.addcdiv_(m, denom, -step_size)
  }
}

// ---- RMSprop (torch/optim/rmsprop.py, _single_tensor_rmsprop) ------------------------
template <class T, bool WD, bool Centered, bool Mom>
void rmsprop_run(const RMSpropSlot& s, int64_t lo, int64_t hi, const RMSpropArgs& a) {
  T* __restrict p = static_cast<T*>(s.param);
  const T* __restrict g = static_cast<const T*>(s.grad);
  T* __restrict sq = static_cast<T*>(s.square_avg);
  T* __restrict gavg = static_cast<T*>(s.grad_avg);
  T* __restrict buf = static_cast<T*>(s.momentum_buffer);
  const T sign = a.maximize ? T(-1) : T(1), wd = T(a.weight_decay), alpha = T(a.alpha);
  const T one_minus_alpha = T(1 - a.alpha), eps = T(a.eps), mom = T(a.momentum), neg_lr = T(-a.lr);
  const Lerp<T> lerp(1 - a.alpha);
  for (int64_t j = lo; j < hi; ++j) {
    T d = g[j] * sign;
    if constexpr (WD) d = d + wd * p[j];                   // grad.add(param, alpha=wd)
    const T sj = sq[j] * alpha + one_minus_alpha * d * d;  // square_avg.mul_(a).addcmul_(g, g, 1-a)
    sq[j] = sj;
    T avg;
    if constexpr (Centered) {
      const T ga = lerp(gavg[j], d);  // grad_avg.lerp_(grad, 1-alpha)
      gavg[j] = ga;
      avg = std::sqrt(sj + T(-1) * ga * ga);  // square_avg.addcmul(ga, ga, -1).sqrt_()
    } else {
      avg = std::sqrt(sj);
    }
    avg = avg + eps;  // avg.add_(eps)
    if constexpr (Mom) {
      const T b = buf[j] * mom + d / avg;  // buf.mul_(momentum).addcdiv_(grad, avg)
      buf[j] = b;
      p[j] = p[j] + neg_lr * b;  // param.add_(buf, alpha=-lr)
    } else {
      p[j] = p[j] + neg_lr * d / avg;  // param.addcdiv_(grad, avg, value=-lr)
    }
  }
}

// ---- Adagrad (torch/optim/adagrad.py, _single_tensor_adagrad) ------------------------
template <class T, bool WD>
void adagrad_run(const AdagradSlot& s, int64_t lo, int64_t hi, const AdagradArgs& a) {
  T* __restrict p = static_cast<T*>(s.param);
  const T* __restrict g = static_cast<const T*>(s.grad);
  T* __restrict sum = static_cast<T*>(s.sum);
  const T sign = a.maximize ? T(-1) : T(1), wd = T(a.weight_decay), eps = T(a.eps);
  const T neg_clr = T(-s.clr);
  for (int64_t j = lo; j < hi; ++j) {
    T d = g[j] * sign;
    if constexpr (WD) d = d + wd * p[j];  // grad.add(param, alpha=wd)
    const T sj = sum[j] + T(1) * d * d;   // state_sum.addcmul_(grad, grad, value=1)
    sum[j] = sj;
    const T std_ = std::sqrt(sj) + eps;  // state_sum.sqrt().add_(eps)
    p[j] = p[j] + neg_clr * d / std_;    // param.addcdiv_(grad, std, value=-clr)
  }
}

// Calls run<T>() with T = float or double as the slot's dtype says.
template <class F>
void with_dtype(DType dt, const F& run) {
  if (dt == DType::Float64) run(double{});
  else if (dt == DType::Float32) run(float{});
  else throw_unsupported_dtype(dt);  // complex: Note [Adding a dtype]
}

}  // namespace

void sgd(std::span<const SGDSlot> slots, const SGDArgs& a) {
  const bool wd = a.weight_decay != 0, mom = a.momentum != 0;
  fused_for(slots, [&](const SGDSlot& s, int64_t lo, int64_t hi) {
    with_dtype(s.dtype, [&](auto t) {
      using T = decltype(t);
      with_flags([&](auto WD, auto Mom, auto First,
                     auto Nest) { sgd_run<T, WD, Mom, First, Nest>(s, lo, hi, a); },
                 wd, mom, mom && s.first, mom && a.nesterov);
    });
  });
}

void adam(std::span<const AdamSlot> slots, const AdamArgs& a) {
  const bool decay = a.weight_decay != 0 && a.decay != WeightDecay::None;
  const bool decoupled = decay && a.decay == WeightDecay::Decoupled;
  fused_for(slots, [&](const AdamSlot& s, int64_t lo, int64_t hi) {
    with_dtype(s.dtype, [&](auto t) {
      using T = decltype(t);
      with_flags(
          [&](auto Decay, auto Decoupled, auto Amsgrad) {
            constexpr WeightDecay mode = !Decay      ? WeightDecay::None
                                         : Decoupled ? WeightDecay::Decoupled
                                                     : WeightDecay::L2;
            adam_run<T, mode, Amsgrad>(s, lo, hi, a);
          },
          decay, decoupled, a.amsgrad);
    });
  });
}

void rmsprop(std::span<const RMSpropSlot> slots, const RMSpropArgs& a) {
  const bool wd = a.weight_decay != 0, mom = a.momentum > 0;
  fused_for(slots, [&](const RMSpropSlot& s, int64_t lo, int64_t hi) {
    with_dtype(s.dtype, [&](auto t) {
      using T = decltype(t);
      with_flags([&](auto WD, auto Centered,
                     auto Mom) { rmsprop_run<T, WD, Centered, Mom>(s, lo, hi, a); },
                 wd, a.centered, mom);
    });
  });
}

void adagrad(std::span<const AdagradSlot> slots, const AdagradArgs& a) {
  const bool wd = a.weight_decay != 0;
  fused_for(slots, [&](const AdagradSlot& s, int64_t lo, int64_t hi) {
    with_dtype(s.dtype, [&](auto t) {
      using T = decltype(t);
      with_flags([&](auto WD) { adagrad_run<T, WD>(s, lo, hi, a); }, wd);
    });
  });
}

}  // namespace ember::kernels::EMBER_OPTIM_ISA
