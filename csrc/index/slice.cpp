#include "index/slice.h"

#include "core/errors.h"

namespace genesis {

SliceRange normalize_slice(std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step,
                           int64_t size) {
  GENESIS_CHECK_VALUE(step != 0, "slice", "slice step cannot be zero");
  int64_t lo, hi;
  if (step > 0) {
    lo = start.value_or(0);
    hi = stop.value_or(size);
    if (lo < 0) lo = lo + size < 0 ? 0 : lo + size;
    if (lo > size) lo = size;
    if (hi < 0) hi = hi + size < 0 ? 0 : hi + size;
    if (hi > size) hi = size;
    // (hi - lo - 1) / step + 1: hi - lo + step - 1 could overflow for a step near 2^63.
    int64_t len = hi > lo ? (hi - lo - 1) / step + 1 : 0;
    return {lo, len};
  }
  // Negative step: start defaults to the last index, stop to "before the first".
  lo = start.value_or(size - 1);
  hi = stop.has_value() ? *stop : -1;
  if (start.has_value()) {
    if (lo < 0) lo = lo + size < 0 ? -1 : lo + size;
    if (lo >= size) lo = size - 1;
  }
  if (stop.has_value()) {
    if (hi < 0) hi = hi + size < 0 ? -1 : hi + size;
    if (hi >= size) hi = size - 1;
  }
  // In unsigned arithmetic: -step overflows for a step of -2^63.
  uint64_t by = 0 - static_cast<uint64_t>(step);
  int64_t len = lo > hi ? static_cast<int64_t>(static_cast<uint64_t>(lo - hi - 1) / by) + 1 : 0;
  return {lo, len};
}

}  // namespace genesis
