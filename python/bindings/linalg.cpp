#include "common.h"

namespace ember::py {

void bind_linalg(nb::module_& m) {}

}  // namespace ember::py
