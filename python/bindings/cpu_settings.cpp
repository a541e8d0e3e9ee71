// torch.init_num_threads and torch.set_flush_denormal (ember/cpu_settings.h).
#include "common.h"
#include "ember/cpu_settings.h"

namespace ember::py {

void bind_cpu_settings(nb::module_& m) {
  m.def("init_num_threads", &init_num_threads, docstring("init_num_threads"));
  m.def(
      "set_flush_denormal", [](bool on) { return set_flush_denormal(on); }, nb::arg("mode"),
      docstring("set_flush_denormal"));
}

}  // namespace ember::py
