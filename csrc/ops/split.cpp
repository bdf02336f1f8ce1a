#include "ops/split.h"

#include <algorithm>

#include "core/errors.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

int64_t split_dim(const Tensor& t, int64_t dim, const char* op) {
  GENESIS_CHECK_INDEX(t.ndim() > 0, op, "expects at least a 1-dimensional tensor");
  return wrap_dim(dim, t.ndim(), op);
}

}  // namespace

std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim) {
  int64_t d = split_dim(t, dim, "split");
  int64_t size = t.sizes()[d];
  GENESIS_CHECK_SHAPE(split_size >= 0, "split", "split_size must be non-negative, got ",
                      split_size);
  GENESIS_CHECK_SHAPE(split_size > 0 || size == 0, "split",
                      "split_size can only be 0 if the dimension size is 0, but got dimension "
                      "size ",
                      size);
  if (size == 0) return {t};
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(size / split_size + 1));
  for (int64_t start = 0; start < size; start += std::min(split_size, size - start))
    out.push_back(narrow(t, d, start, std::min(split_size, size - start)));
  return out;
}

std::vector<Tensor> split_with_sizes(const Tensor& t, const Shape& sizes, int64_t dim) {
  int64_t d = split_dim(t, dim, "split");
  int64_t size = t.sizes()[d], total = 0;
  for (int64_t s : sizes) {
    GENESIS_CHECK_SHAPE(s >= 0, "split", "split sizes must be non-negative, got ",
                        shape_str(sizes));
    total = s <= size - total ? total + s : size + 1;  // past the size, without overflow
  }
  GENESIS_CHECK_SHAPE(total == size, "split", "split sizes ", shape_str(sizes),
                      " must add up exactly to the size ", size, " of dimension ", d);
  std::vector<Tensor> out;
  out.reserve(sizes.size());
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(narrow(t, d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim) {
  GENESIS_CHECK_SHAPE(chunks > 0, "chunk", "chunks must be greater than 0, got ", chunks);
  int64_t d = split_dim(t, dim, "chunk");
  int64_t size = t.sizes()[d];
  if (size == 0) return std::vector<Tensor>(static_cast<size_t>(chunks), t);
  int64_t piece = size / chunks + (size % chunks != 0);
  return split(t, piece, d);
}

std::vector<Tensor> tensor_split(const Tensor& t, int64_t sections, int64_t dim) {
  GENESIS_CHECK_SHAPE(sections > 0, "tensor_split", "sections must be greater than 0, got ",
                      sections);
  int64_t d = split_dim(t, dim, "tensor_split");
  int64_t size = t.sizes()[d], base = size / sections, longer = size % sections;
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(sections));
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    int64_t length = base + (i < longer);
    out.push_back(narrow(t, d, start, length));
    start += length;
  }
  return out;
}

std::vector<std::pair<int64_t, int64_t>> tensor_split_ranges(int64_t size, const Shape& indices) {
  auto clamp_index = [size](int64_t i) {
    if (i < 0) i = std::max<int64_t>(i + size, 0);  // i + size cannot overflow: size >= 0 > i
    return std::min(i, size);
  };
  std::vector<std::pair<int64_t, int64_t>> out;
  out.reserve(indices.size() + 1);
  int64_t start = 0;
  for (int64_t index : indices) {
    int64_t stop = clamp_index(index);
    out.emplace_back(std::min(start, size), std::max<int64_t>(stop - start, 0));
    start = stop;
  }
  out.emplace_back(start, size - start);
  return out;
}

std::vector<Tensor> tensor_split_at(const Tensor& t, const Shape& indices, int64_t dim) {
  int64_t d = split_dim(t, dim, "tensor_split");
  std::vector<Tensor> out;
  for (auto [start, length] : tensor_split_ranges(t.sizes()[d], indices))
    out.push_back(narrow(t, d, start, length));
  return out;
}

std::vector<Tensor> unbind(const Tensor& t, int64_t dim) {
  int64_t d = split_dim(t, dim, "unbind");
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(t.sizes()[d]));
  for (int64_t i = 0; i < t.sizes()[d]; ++i) out.push_back(select(t, d, i));
  return out;
}

}  // namespace genesis::ops
