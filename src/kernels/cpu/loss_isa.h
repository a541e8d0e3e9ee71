// The loss kernels compiled once per instruction set from loss_impl.h, declared once for every
// namespace that holds a copy of them: loss.h includes this file inside ember::kernels (the
// entry points, which pick a copy at run time: cpu.h) and loss.cpp inside
// ember::kernels::avx2 (loss_avx2.cpp's copy). So it has no include guard and no namespace of
// its own: include it only inside a namespace nested in ember::kernels, after loss.h has
// declared ClassLoss, LossSums, PointLoss and PointArgs.

// Cross entropy with class-index targets: per position, lse = logsumexp over the classes and
//   loss = (1 - s) * w[t] * (lse - x[t]) + s / C * sum_c w[c] * (lse - x[c])   (s: smoothing),
// 0 at ignored positions. Writes the losses to `loss` and lse to `lse` when they are not null.
LossSums cross_entropy(DType dt, const ClassLoss& a, const char* x, char* loss, char* lse);
// gx = d loss / d x from the saved lse: per position, with gi = (grad ? grad[i] : 1) * scale,
//   gx[c] = gi * (((1 - s) * w[t] + s / C * sum(w)) * softmax[c] - s / C * w[c] - (1 - s) * w[t] *
//   [c == t]),
// 0 at ignored positions. One pass over the input; writes every element of gx.
void cross_entropy_backward(DType dt, const ClassLoss& a, const char* x, const char* lse,
                            const char* grad, double scale, char* gx);

// Cross entropy with class probabilities y (contiguous, shaped like x): with
// q = (1 - s) * y + s / C, loss = -sum_c w[c] * q[c] * log_softmax(x)[c]. LossSums::weight
// counts positions.
LossSums cross_entropy_probs(DType dt, const ClassLoss& a, const char* x, const char* y, char* loss,
                             char* lse);
// gx[c] = gi * (softmax[c] * sum_k w[k] q[k] - w[c] q[c]), gy[c] = -gi * (1 - s) * w[c] *
// log_softmax[c]; gx or gy may be null (not wanted).
void cross_entropy_probs_backward(DType dt, const ClassLoss& a, const char* x, const char* y,
                                  const char* lse, const char* grad, double scale, char* gx,
                                  char* gy);

// nll on log-probabilities x: loss = -w[t] * x[t], 0 at ignored positions.
LossSums nll_loss(DType dt, const ClassLoss& a, const char* x, char* loss);
// gx = -gi * w[t] at the target of each position, 0 elsewhere (writes every element).
void nll_loss_backward(DType dt, const ClassLoss& a, const char* grad, double scale, char* gx);

// Writes the losses to `loss` when not null; returns their sum.
double point_loss(PointLoss op, DType dt, const PointArgs& a, char* loss);
// gx, gy (either may be null) = d loss / d x, d loss / d y times gi = (grad ? grad[i] : 1) * scale:
//   Mse: 2 (x - y), -2 (x - y)     L1: sign(x - y), -sign(x - y)
//   Bce: w (x - y) / max(x (1 - x), 1e-12), -w * logit(x)
//   BceLogits: w ((pw y + 1 - y) sigmoid(x) - pw y), w (log_sigmoid(-x) - pw log_sigmoid(x))
void point_loss_backward(PointLoss op, DType dt, const PointArgs& a, const char* grad, double scale,
                         char* gx, char* gy);

// The first of n elements of x outside [0, 1] (NaN included), or -1 (bce's input check).
int64_t find_outside_unit(DType dt, const char* x, int64_t n);
