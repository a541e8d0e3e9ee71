#include "common.h"

namespace ember::py {

void bind_reduce(nb::module_& m) {}

}  // namespace ember::py
