#include "ops/rearrange.h"

#include <vector>

#include "core/errors.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/views.h"

namespace genesis::ops {

Tensor flip(const Tensor& t, const Shape& dims) {
  std::vector<bool> seen(static_cast<size_t>(t.ndim()), false);
  Tensor reversed = t;
  for (int64_t dim : dims) {
    int64_t d = wrap_dim(dim, t.ndim(), "flip");
    if (t.ndim() == 0) continue;
    GENESIS_CHECK_VALUE(!seen[d], "flip", "dim ", d, " appears more than once in ",
                        shape_str(dims));
    seen[d] = true;
    reversed = slice(reversed, d, std::nullopt, std::nullopt, -1);  // a negative-stride view
  }
  return clone(reversed);
}

namespace {

// Rolls one dim: the last `shift` elements move to the front, by two copies into the output.
Tensor roll_dim(const Tensor& t, int64_t shift, int64_t d) {
  int64_t size = t.sizes()[d];
  Tensor out = Tensor::empty(t.sizes(), t.dtype(), t.device());
  if (size == 0 || t.numel() == 0) return out;
  int64_t s = shift % size;
  if (s < 0) s += size;
  copy_(narrow(out, d, s, size - s), narrow(t, d, 0, size - s));
  if (s > 0) copy_(narrow(out, d, 0, s), narrow(t, d, size - s, s));
  return out;
}

}  // namespace

Tensor roll(const Tensor& t, const Shape& shifts, const Shape& dims) {
  GENESIS_CHECK_VALUE(!shifts.empty(), "roll", "shifts must be non-empty");
  if (dims.empty()) {
    GENESIS_CHECK_VALUE(shifts.size() == 1, "roll", "with no dims, shifts must be one number, got ",
                        shape_str(shifts));
    return view(roll_dim(flatten(t, 0, -1), shifts[0], 0), t.sizes());
  }
  GENESIS_CHECK_VALUE(shifts.size() == dims.size(), "roll", "shifts ", shape_str(shifts),
                      " and dims ", shape_str(dims), " must have the same length");
  Tensor out = t;
  for (size_t i = 0; i < dims.size(); ++i) {
    GENESIS_CHECK_INDEX(t.ndim() > 0, "roll", "cannot roll a 0-dim tensor along a dim");
    out = roll_dim(out, shifts[i], wrap_dim(dims[i], t.ndim(), "roll"));
  }
  return out;
}

}  // namespace genesis::ops
