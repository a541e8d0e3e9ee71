// Anomaly detection (torch.autograd.set_detect_anomaly / detect_anomaly).
//
//   autograd::set_anomaly_enabled(true);        // check_nan defaults to true
//   loss.backward();  // throws "Function 'DivBackward0' returned nan values in its 0th output."
//
// While on (and check_nan is on), the engine tests every gradient a backward node returns
// for NaN right after the node runs, so the error names the first node that produced one
// instead of a NaN surfacing in .grad later. Costs one isnan/any per node result; off, one
// relaxed atomic load per node. Global, as torch's flag.
#pragma once

namespace ember::autograd {

void set_anomaly_enabled(bool on, bool check_nan = true);
bool anomaly_enabled();
bool anomaly_check_nan();

}  // namespace ember::autograd
