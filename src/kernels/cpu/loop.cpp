#include "kernels/cpu/loop.h"

#include <algorithm>

namespace ember::kernels {

Loop::Loop(IntList shape_in, std::span<const Operand> ops) {
  nargs = int(ops.size());
  numel = numel_of(shape_in);
  // Drop size-1 dims (their stride never matters), then merge neighbours whose strides
  // chain for every operand.
  Dims sh;
  Dims st[kMaxArgs];
  for (size_t d = 0; d < shape_in.size(); ++d) {
    if (shape_in[d] == 1) continue;
    sh.push_back(shape_in[d]);
    int k = 0;
    for (const Operand& op : ops) st[k++].push_back(op.strides[d] * op.itemsize);
  }
  int k = 0;
  for (const Operand& op : ops) ptrs[k++] = op.ptr;
  if (sh.empty()) {
    sh.push_back(1);
    for (int a = 0; a < nargs; ++a) st[a].push_back(0);
  }
  shape.push_back(sh[0]);
  for (int a = 0; a < nargs; ++a) strides[a].push_back(st[a][0]);
  for (size_t d = 1; d < sh.size(); ++d) {
    size_t last = shape.size() - 1;
    bool merge = true;
    for (int a = 0; a < nargs && merge; ++a) merge = strides[a][last] == st[a][d] * sh[d];
    if (merge) {
      shape[last] *= sh[d];
      for (int a = 0; a < nargs; ++a) strides[a][last] = st[a][d];
    } else {
      shape.push_back(sh[d]);
      for (int a = 0; a < nargs; ++a) strides[a].push_back(st[a][d]);
    }
  }
}

}  // namespace ember::kernels
