// ember.compile's C++ side (include/ember/capture.h): a Recording while the function runs
// its first time, then the Graph it made, checked and replayed. Conversion only.
#include <memory>

#include "common.h"

namespace ember::py {

namespace {
struct PyGraph {
  std::shared_ptr<capture::Graph> g;
};
}  // namespace

void bind_capture(nb::module_& m) {
  nb::module_ c = m.def_submodule("_capture", "capture and replay (ember.compile)");
  nb::class_<PyGraph>(c, "Graph")
      .def("check",
           [](const PyGraph& p, const std::vector<Tensor>& inputs) -> nb::object {
             std::string why;
             if (capture::check(*p.g, inputs, &why)) return nb::none();
             return nb::str(why.c_str());
           })
      .def("run", [](PyGraph& p,
                     const std::vector<Tensor>& inputs) { return capture::replay(*p.g, inputs); })
      .def("op_names", [](const PyGraph& p) { return capture::op_names(*p.g); })
      .def("num_fused", [](const PyGraph& p) { return capture::num_fused(*p.g); })
      .def("num_kernel_steps", [](const PyGraph& p) { return capture::num_kernel_steps(*p.g); })
      .def("num_constant_steps", [](const PyGraph& p) { return capture::num_constant_steps(*p.g); })
      .def_prop_ro("flat", [](const PyGraph& p) { return capture::flat(*p.g); })
      .def("notes", [](const PyGraph& p) { return capture::notes(*p.g); })
      .def("describe", [](const PyGraph& p) { return capture::describe(*p.g); });
  c.def("set_kernel_replay", &capture::set_kernel_replay, nb::arg("on"));
  nb::class_<capture::Recording>(c, "Recording")
      .def(nb::init<const std::vector<Tensor>&>())
      .def("finish",
           [](capture::Recording& r, const std::vector<Tensor>& outputs) -> nb::object {
             std::shared_ptr<capture::Graph> g = r.finish(outputs);
             if (!g) return nb::none();
             return nb::cast(PyGraph{std::move(g)});
           })
      .def("abandon", &capture::Recording::abandon)
      .def_prop_ro("broken", &capture::Recording::broken)
      .def_prop_ro("why", &capture::Recording::why);
}

}  // namespace ember::py
