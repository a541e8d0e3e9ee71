// ember.profiler's C++ side: start/stop the op profiler and read its table.
#include <optional>

#include "common.h"
#include "ember/profiler.h"

namespace ember::py {

namespace {
// A user-named scope (ember.profiler.record_function): opened by __enter__, closed by __exit__.
struct UserScope {
  std::string name;
  std::optional<profiler::Scope> scope;
};
}  // namespace

void bind_profiler(nb::module_& m) {
  m.def("_profiler_start", &profiler::start);
  m.def("_profiler_enabled", &profiler::enabled);
  m.def("_profiler_stop", [] {
    nb::list out;
    for (const profiler::OpStats& s : profiler::stop()) {
      nb::dict d;
      d["name"] = s.name;
      d["backward"] = s.backward;
      d["calls"] = s.calls;
      d["total_ns"] = s.total_ns;
      d["self_ns"] = s.self_ns;
      d["total_bytes"] = s.total_bytes;
      d["self_bytes"] = s.self_bytes;
      out.append(d);
    }
    return out;
  });
  nb::class_<UserScope>(m, "_UserScope")
      .def(nb::init<std::string>())
      .def("__enter__", [](UserScope& u) { u.scope.emplace(u.name, false); })
      .def("__exit__", [](UserScope& u, nb::args) { u.scope.reset(); });
}

}  // namespace ember::py
