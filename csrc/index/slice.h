#pragma once
// Python slice semantics: clamp start/stop into the dim for the step's direction.
#include <cstdint>
#include <optional>

namespace genesis {

struct SliceRange {
  int64_t start;   // first index taken (meaningful when length > 0)
  int64_t length;  // number of indices taken
};

// Raises ValueError for step 0.
SliceRange normalize_slice(std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step,
                           int64_t size);

}  // namespace genesis
