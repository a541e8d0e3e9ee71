// <ATen/ATen.h> for ember: the at:: names of torch/torch.h (docs/cpp.md).
#pragma once
#include "../torch/torch.h"
