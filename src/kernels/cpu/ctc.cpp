// CTC forward and backward in log space. A target of length L is extended with blanks to
// 2L + 1 states (blank, l1, blank, l2, ..., blank); state s may be reached from s, s - 1 and,
// when it is a label different from the label two states back, s - 2.
#include "kernels/cpu/ctc.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/parallel.h"

namespace ember::kernels {
namespace {

template <class T>
constexpr T kNegInf = -std::numeric_limits<T>::infinity();

// log(exp(a) + exp(b) + exp(c)), safe when all are -inf.
template <class T>
T log_add3(T a, T b, T c) {
  T m = std::max(a, std::max(b, c));
  if (m == kNegInf<T>) m = 0;
  return std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m)) + m;
}

struct Target {
  const int64_t* labels;
  int64_t blank;
  int64_t operator()(int64_t s) const { return s % 2 == 0 ? blank : labels[s / 2]; }
};

template <class T>
void forward_impl(const CtcGeom& g, const T* lp, T* nll, T* log_alpha) {
  const int64_t S = 2 * g.max_target + 1, N = g.N, C = g.C;
  parallel_for(0, N, 1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const int64_t len = g.input_lengths[b], L = g.target_lengths[b];
      const Target tgt{g.targets + g.target_offset[b], g.blank};
      T* la = log_alpha + b * g.T * S;
      std::fill(la, la + g.T * S, kNegInf<T>);
      if (len == 0) {
        nll[b] = L == 0 ? T(0) : std::numeric_limits<T>::infinity();
        continue;
      }
      auto at = [&](int64_t t) { return lp + (t * N + b) * C; };
      la[0] = at(0)[g.blank];
      if (L > 0) la[1] = at(0)[tgt(1)];
      for (int64_t t = 1; t < len; ++t) {
        const T* prev = la + (t - 1) * S;
        T* cur = la + t * S;
        const T* row = at(t);
        for (int64_t s = 0; s < 2 * L + 1; ++s) {
          const int64_t c = tgt(s);
          const T a2 = s > 0 ? prev[s - 1] : kNegInf<T>;
          const T a3 = s > 1 && tgt(s - 2) != c ? prev[s - 2] : kNegInf<T>;
          cur[s] = log_add3(prev[s], a2, a3) + row[c];
        }
      }
      const T* last = la + (len - 1) * S;
      nll[b] = L == 0 ? -last[0] : -log_add3(last[2 * L], last[2 * L - 1], kNegInf<T>);
    }
  });
}

template <class T>
void backward_impl(const CtcGeom& g, const T* lp, const T* nll, const T* log_alpha,
                   const T* grad_out, bool zero_infinity, T* grad) {
  const int64_t S = 2 * g.max_target + 1, N = g.N, C = g.C;
  parallel_for(0, N, 1, [&](int64_t begin, int64_t end) {
    std::vector<T> beta;
    for (int64_t b = begin; b < end; ++b) {
      const int64_t len = g.input_lengths[b], L = g.target_lengths[b];
      const Target tgt{g.targets + g.target_offset[b], g.blank};
      auto row = [&](int64_t t) { return lp + (t * N + b) * C; };
      auto grow = [&](int64_t t) { return grad + (t * N + b) * C; };
      const T loss = nll[b];
      if (zero_infinity && loss == std::numeric_limits<T>::infinity()) {
        for (int64_t t = 0; t < g.T; ++t) std::fill(grow(t), grow(t) + C, T(0));
        continue;
      }
      // grad first holds, per (t, c), log of the sum of alpha * beta over the states of c.
      for (int64_t t = 0; t < len; ++t) std::fill(grow(t), grow(t) + C, kNegInf<T>);
      const T* la = log_alpha + b * g.T * S;
      beta.assign(size_t(std::max<int64_t>(len, 1) * S), kNegInf<T>);
      if (len > 0) {
        T* lb = beta.data() + (len - 1) * S;
        const T* al = la + (len - 1) * S;
        lb[2 * L] = row(len - 1)[g.blank];
        grow(len - 1)[g.blank] = al[2 * L] + lb[2 * L];
        if (L > 0) {
          const int64_t c = tgt(2 * L - 1);
          lb[2 * L - 1] = row(len - 1)[c];
          grow(len - 1)[c] = al[2 * L - 1] + lb[2 * L - 1];
        }
      }
      for (int64_t t = len - 2; t >= 0; --t) {
        const T* next = beta.data() + (t + 1) * S;
        T* cur = beta.data() + t * S;
        const T* al = la + t * S;
        const T* r = row(t);
        T* gr = grow(t);
        for (int64_t s = 2 * L; s >= 0; --s) {
          const int64_t c = tgt(s);
          const T b2 = s < 2 * L ? next[s + 1] : kNegInf<T>;
          const T b3 = s < 2 * L - 1 && tgt(s + 2) != c ? next[s + 2] : kNegInf<T>;
          cur[s] = log_add3(next[s], b2, b3) + r[c];
          const T ab = al[s] + cur[s];
          T& lcab = gr[c];
          if (lcab == kNegInf<T>) {
            lcab = ab;
          } else {
            const T m = std::max(lcab, ab);
            lcab = std::log(std::exp(lcab - m) + std::exp(ab - m)) + m;
          }
        }
      }
      const T go = grad_out[b];
      for (int64_t t = 0; t < len; ++t) {
        const T* r = row(t);
        T* gr = grow(t);
        for (int64_t c = 0; c < C; ++c)
          gr[c] = (std::exp(r[c]) - std::exp(gr[c] + loss - r[c])) * go;
      }
      for (int64_t t = len; t < g.T; ++t) std::fill(grow(t), grow(t) + C, T(0));
    }
  });
}

}  // namespace

void ctc_loss_forward(DType dt, const CtcGeom& g, const char* log_probs, char* nll,
                      char* log_alpha) {
  if (dt == DType::Float64)
    forward_impl<double>(g, reinterpret_cast<const double*>(log_probs),
                         reinterpret_cast<double*>(nll), reinterpret_cast<double*>(log_alpha));
  else
    forward_impl<float>(g, reinterpret_cast<const float*>(log_probs), reinterpret_cast<float*>(nll),
                        reinterpret_cast<float*>(log_alpha));
}

void ctc_loss_backward(DType dt, const CtcGeom& g, const char* log_probs, const char* nll,
                       const char* log_alpha, const char* grad_out, bool zero_infinity,
                       char* grad) {
  if (dt == DType::Float64)
    backward_impl<double>(g, reinterpret_cast<const double*>(log_probs),
                          reinterpret_cast<const double*>(nll),
                          reinterpret_cast<const double*>(log_alpha),
                          reinterpret_cast<const double*>(grad_out), zero_infinity,
                          reinterpret_cast<double*>(grad));
  else
    backward_impl<float>(g, reinterpret_cast<const float*>(log_probs),
                         reinterpret_cast<const float*>(nll),
                         reinterpret_cast<const float*>(log_alpha),
                         reinterpret_cast<const float*>(grad_out), zero_infinity,
                         reinterpret_cast<float*>(grad));
}

}  // namespace ember::kernels
