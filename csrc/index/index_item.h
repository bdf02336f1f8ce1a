#pragma once
// A Python-free index expression: what the bindings make of `x[...]`'s key, item by item.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace genesis {

struct IndexItem {
  enum class Kind : int8_t { Integer, Slice, None, Ellipsis, Boolean, Tensor };
  Kind kind = Kind::None;
  int64_t integer = 0;                 // Integer
  std::optional<int64_t> start, stop;  // Slice
  int64_t step = 1;                    // Slice
  bool boolean = false;                // Boolean (a Python bool)
  genesis::Tensor tensor;              // Tensor (integer or boolean index tensor)

  static IndexItem make_integer(int64_t i) {
    IndexItem it;
    it.kind = Kind::Integer;
    it.integer = i;
    return it;
  }
  static IndexItem make_slice(std::optional<int64_t> start, std::optional<int64_t> stop,
                              int64_t step) {
    IndexItem it;
    it.kind = Kind::Slice;
    it.start = start;
    it.stop = stop;
    it.step = step;
    return it;
  }
  static IndexItem make(Kind k) {
    IndexItem it;
    it.kind = k;
    return it;
  }
  static IndexItem make_boolean(bool b) {
    IndexItem it;
    it.kind = Kind::Boolean;
    it.boolean = b;
    return it;
  }
  static IndexItem make_tensor(genesis::Tensor t) {
    IndexItem it;
    it.kind = Kind::Tensor;
    it.tensor = std::move(t);
    return it;
  }
};

using IndexList = std::vector<IndexItem>;

}  // namespace genesis
