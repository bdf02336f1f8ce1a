#pragma once
// Docstrings by name, for the bindings that define many functions in a loop over a table
// (math, reduce, join): the loop passes `find(kTable, name)` and the tables stay untouched.
#include <cstddef>
#include <string_view>

namespace genesis::python::docs {

struct NamedDoc {
  std::string_view name;
  const char* doc;
};

// The docstring for `name`, or nullptr (no docstring; tests/project/test_docstrings.py reports it).
template <size_t N>
const char* find(const NamedDoc (&table)[N], std::string_view name) {
  for (const NamedDoc& entry : table)
    if (entry.name == name) return entry.doc;
  return nullptr;
}

}  // namespace genesis::python::docs
