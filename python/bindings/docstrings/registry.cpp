// One lookup over every docstring table. A name listed twice keeps its first text (keep one
// entry per name); tests/python/test_docstring_examples.py checks that every overload of a
// nanobind name carries the same text (nanobind prints "Overloaded function." otherwise).
#include <string>
#include <unordered_map>

#include "../docstrings.h"

namespace ember::py {
namespace {

const std::unordered_map<std::string_view, const char*>& all_docstrings() {
  static const auto table = [] {
    std::unordered_map<std::string_view, const char*> out;
    for (auto tables : {
             pointwise_docstrings(),
             arithmetic_docstrings(),
             complex_docstrings(),
             indexing_docstrings(),
             layers_docstrings(),
             autograd_docstrings(),
             cpu_settings_docstrings(),
             convolution_pooling_docstrings(),
             linalg_docstrings(),
             loss_docstrings(),
             random_docstrings(),
             reduction_docstrings(),
             runtime_docstrings(),
             scan_sort_docstrings(),
             special_docstrings(),
             tensor_docstrings(),
             unary_math_docstrings(),
             views_docstrings(),
         })
      for (const Docstring& d : tables) out.emplace(d.name, d.text);
    return out;
  }();
  return table;
}

}  // namespace

const char* docstring(std::string_view name) {
  auto it = all_docstrings().find(name);
  return it == all_docstrings().end() ? "" : it->second;
}

const char* method_docstring(std::string_view name) {
  auto it = all_docstrings().find("Tensor." + std::string(name));
  return it == all_docstrings().end() ? docstring(name) : it->second;
}

}  // namespace ember::py
