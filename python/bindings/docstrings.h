// The docstrings of the names bound in C++. A nanobind function's __doc__ is read-only, so
// the text has to go in when the name is registered: def_both() and the binding files pass
// docstring("name") to every overload of a name (nanobind prints one text when all overloads
// carry the same one). The texts live in tables by concept, python/bindings/docstrings/*.cpp.
#pragma once
#include <span>
#include <string_view>

namespace ember::py {

struct Docstring {
  std::string_view
      name;          // "add" (the function, and the method unless it has its own), "Tensor.add"
  const char* text;  // signature line, what it does, a >>> example (doctest runs it)
};

// The text registered for `name`, or "" (nanobind then shows the signatures only).
const char* docstring(std::string_view name);
// A Tensor method's text: "Tensor.<name>" if registered, else the function's.
const char* method_docstring(std::string_view name);

// The tables, one per concept file in python/bindings/docstrings/.
std::span<const Docstring> pointwise_docstrings();
std::span<const Docstring> arithmetic_docstrings();
std::span<const Docstring> complex_docstrings();
std::span<const Docstring> indexing_docstrings();
std::span<const Docstring> layers_docstrings();
std::span<const Docstring> autograd_docstrings();
std::span<const Docstring> cpu_settings_docstrings();
std::span<const Docstring> convolution_pooling_docstrings();
std::span<const Docstring> linalg_docstrings();
std::span<const Docstring> loss_docstrings();
std::span<const Docstring> random_docstrings();
std::span<const Docstring> reduction_docstrings();
std::span<const Docstring> runtime_docstrings();
std::span<const Docstring> scan_sort_docstrings();
std::span<const Docstring> special_docstrings();
std::span<const Docstring> tensor_docstrings();
std::span<const Docstring> unary_math_docstrings();
std::span<const Docstring> views_docstrings();

}  // namespace ember::py
