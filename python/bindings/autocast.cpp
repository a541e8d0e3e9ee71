// CPU autocast state (include/ember/autocast.h) for python/ember/amp/autocast_mode.py.
#include "common.h"
#include "ember/autocast.h"

namespace ember::py {

void bind_autocast(nb::module_& m) {
  m.def("_autocast_cpu_enabled", [] { return autocast::is_enabled(); });
  m.def("_set_autocast_cpu_enabled", [](bool on) { autocast::set_enabled(on); });
  m.def("_autocast_cpu_dtype", [] { return autocast::dtype(); });
  m.def("_set_autocast_cpu_dtype", [](DType dt) { autocast::set_dtype(dt); });
}

}  // namespace ember::py
