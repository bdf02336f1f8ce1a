#include "core/shape.h"

#include <algorithm>
#include <string>

#include "core/errors.h"

namespace genesis {

std::string shape_str(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  if (s.size() == 1) out += ",";
  return out + ")";
}

int64_t checked_numel(const Shape& sizes, const char* op) {
  GENESIS_CHECK_SHAPE(static_cast<int64_t>(sizes.size()) <= kMaxDims, op, "a tensor has at most ",
                      kMaxDims, " dimensions, got ", sizes.size());
  int64_t n = 1;
  for (int64_t s : sizes)
    GENESIS_CHECK_SHAPE(s >= 0, op, "negative dimension ", s, " in size ", shape_str(sizes));
  // Any zero size makes the count 0, whatever the others are (they still must be >= 0).
  for (int64_t s : sizes)
    if (s == 0) return 0;
  for (int64_t s : sizes) {
    GENESIS_CHECK_SHAPE(n <= INT64_MAX / s, op, "size ", shape_str(sizes),
                        " has too many elements (more than 2^63 - 1)");
    n *= s;
  }
  return n;
}

int64_t checked_nbytes(int64_t numel, int64_t itemsize, const char* op) {
  GENESIS_CHECK(numel <= INT64_MAX / itemsize, op, numel, " elements of ", itemsize,
                " bytes are more bytes than 2^63 - 1");
  return numel * itemsize;
}

int64_t checked_mul(int64_t a, int64_t b, const char* op) {
  GENESIS_CHECK_SHAPE(a == 0 || b <= INT64_MAX / a, op, "size overflow: ", a, " * ", b,
                      " does not fit 64 bits");
  return a * b;
}

int64_t checked_add(int64_t a, int64_t b, const char* op) {
  GENESIS_CHECK_SHAPE(b <= INT64_MAX - a, op, "size overflow: ", a, " + ", b,
                      " does not fit 64 bits");
  return a + b;
}

int64_t numel_of(const Shape& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

Shape contiguous_strides(const Shape& sizes) {
  Shape strides(sizes.size());
  int64_t step = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = step;
    step *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return strides;
}

bool is_contiguous(const Shape& sizes, const Shape& strides) {
  for (int64_t s : sizes)
    if (s == 0) return true;  // no element is ever addressed
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

Shape channels_last_strides(const Shape& sizes) {
  const size_t n = sizes.size();
  Shape st(n, 1);
  if (n < 2) return contiguous_strides(sizes);
  int64_t step = std::max<int64_t>(sizes[1], 1);
  for (size_t d = n - 1; d >= 2; --d) {
    st[d] = step;
    step *= std::max<int64_t>(sizes[d], 1);
  }
  st[0] = step;
  return st;
}

bool is_channels_last(const Shape& sizes, const Shape& strides) {
  if (sizes.size() < 3) return false;
  for (int64_t s : sizes)
    if (s == 0) return true;
  const Shape want = channels_last_strides(sizes);
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] != 1 && strides[d] != want[d]) return false;
  return true;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = ndim > 0 ? ndim : 1;
  GENESIS_CHECK_INDEX(dim >= -n && dim < n, op,
                      "dimension out of range (expected to be in range of [", -n, ", ", n - 1,
                      "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

Shape infer_size(const Shape& requested, int64_t numel, const char* op) {
  GENESIS_CHECK_SHAPE(static_cast<int64_t>(requested.size()) <= kMaxDims, op,
                      "a tensor has at most ", kMaxDims, " dimensions, got ", requested.size());
  Shape out = requested;
  int64_t known = 1;
  int infer_at = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      GENESIS_CHECK_SHAPE(infer_at < 0, op, "only one dimension can be inferred in shape ",
                          shape_str(requested));
      infer_at = static_cast<int>(i);
    } else {
      GENESIS_CHECK_SHAPE(out[i] >= 0, op, "invalid shape dimension ", out[i], " in ",
                          shape_str(requested));
      // Checked: a wrapped product could match numel (a huge shape over a small storage).
      GENESIS_CHECK_SHAPE(out[i] == 0 || known <= INT64_MAX / out[i], op, "shape ",
                          shape_str(requested), " is invalid for input of size ", numel);
      known *= out[i];
    }
  }
  if (infer_at >= 0) {
    GENESIS_CHECK_SHAPE(known != 0 && numel % known == 0, op, "shape ", shape_str(requested),
                        " is invalid for input of size ", numel);
    out[infer_at] = numel / known;
  } else {
    GENESIS_CHECK_SHAPE(known == numel, op, "shape ", shape_str(requested),
                        " is invalid for input of size ", numel);
  }
  return out;
}

std::optional<Shape> view_strides(const Shape& sizes, const Shape& strides,
                                  const Shape& new_sizes) {
  Shape out(new_sizes.size());
  if (numel_of(sizes) == 0 || is_contiguous(sizes, strides)) return contiguous_strides(new_sizes);
  // Walk the old dims from the innermost, grouping them into chunks that are contiguous among
  // themselves; each chunk must be covered exactly by a run of new dims.
  int64_t new_dim = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.empty() ? 1 : strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    bool chunk_ends =
        d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride);
    if (chunk_ends) {
      while (new_dim >= 0 && (view_numel < tensor_numel || new_sizes[new_dim] == 1)) {
        out[new_dim] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[new_dim];
        --new_dim;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (new_dim != -1) return std::nullopt;
  return out;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    GENESIS_CHECK_SHAPE(da == db || da == 1 || db == 1, op, "shapes ", shape_str(a), " and ",
                        shape_str(b), " cannot be broadcast together (dimension ", i, ": ", da,
                        " vs ", db, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace genesis
