#include "common.h"

namespace ember::py {

void bind_indexing(nb::module_& m) {}

}  // namespace ember::py
