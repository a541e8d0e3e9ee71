// One layer and direction of a recurrent net over a whole sequence (LSTM, GRU, Elman RNN),
// forward and backward, for src/ops/rnn.cpp. Kernels see pointers and sizes only.
//
// The input projection xp = x W_ih^T + b (all steps at once) is the caller's; here each step
// is one BLAS product h W_hh^T for its rows and one pass of gate math, and the backward walks
// the steps in reverse with one product per step for the hidden gradient, then forms W_hh's
// (and W_hr's) gradient as ONE product over every step's rows (the per-step products a
// composite records would be T small ones).
#pragma once
#include <cstdint>

#include "ember/dtype.h"

namespace ember::kernels {

enum class RnnMode { LSTM, GRU, RNN_TANH, RNN_RELU };

// The sequence: step t covers rows [offset_t, offset_t + batch_sizes[t]) of xp and out
// (offset_t = the sum of the earlier batch sizes), sizes non-increasing, batch_sizes[0] ==
// batch (a plain (T, B) input has B at every step; a packed sequence fewer at later steps).
// A step updates the first batch_sizes[t] rows of the state; the other rows keep theirs, so
// a row's final state is that of its last step, and going in reverse a row starts from its
// initial state. hidden H, out_size Hr (H, or the LSTM projection's size), gates G (4, 3, 1).
struct RnnShape {
  RnnMode mode;
  int64_t steps, batch, hidden, out_size, gates;
  const int64_t* batch_sizes;
  bool reverse;
  bool proj() const { return out_size != hidden; }
  int64_t rows() const;  // sum of batch_sizes
};

// Elements of the buffer the forward fills for the backward (per row: h before the step,
// activated gates, and for LSTM c before the step and tanh(c), o * tanh(c) with a
// projection; for GRU the h W_hn^T + b_hn part).
int64_t rnn_saved_size(const RnnShape& s);

// xp (rows, G*H) with b_ih (and b_hh, except GRU's) added; w_hh (G*H, Hr), b_hh (G*H) for
// GRU (null: none), w_hr (Hr, H) for an LSTM with projection; h (batch, Hr) and c (batch, H,
// LSTM only) hold the initial state and receive the final one; out (rows, Hr); saved:
// rnn_saved_size elements. All contiguous.
void rnn_forward(DType dt, const RnnShape& s, const void* xp, const void* w_hh, const void* b_hh,
                 const void* w_hr, void* h, void* c, void* out, void* saved);

// From the forward's out and saved: dh (batch, Hr) and dc (batch, H) hold the final states'
// gradients (zeros when none) and receive the initial states'; d_out (rows, Hr) or null;
// dxp (rows, G*H) receives xp's gradient; dw_hh, db_hh (GRU), dw_hr: null when not wanted.
void rnn_backward(DType dt, const RnnShape& s, const void* w_hh, const void* w_hr, const void* out,
                  const void* saved, const void* d_out, void* dh, void* dc, void* dxp, void* dw_hh,
                  void* db_hh, void* dw_hr);

}  // namespace ember::kernels
