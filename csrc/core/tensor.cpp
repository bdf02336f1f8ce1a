#include "core/tensor.h"

#include "core/device_backend.h"
#include "core/errors.h"

namespace genesis {

Tensor Tensor::empty(const Shape& sizes, ScalarType dtype, Device device) {
  return empty(Shape(sizes), dtype, device);
}

Tensor Tensor::empty(Shape&& sizes, ScalarType dtype, Device device) {
  int64_t n = checked_numel(sizes, "empty");
  if (!device.is_cpu()) device = device_backend(device.type).resolve(device);
  auto bytes = static_cast<size_t>(
      checked_nbytes(n, static_cast<int64_t>(genesis::itemsize(dtype)), "empty"));
  Shape strides = contiguous_strides(sizes);
  return Tensor(Storage::allocate(bytes, device), std::move(sizes), std::move(strides), 0, dtype);
}

int64_t Tensor::size(int64_t dim) const {
  GENESIS_CHECK_INDEX(ndim() > 0, "size", "dimension specified as ", dim,
                      " but tensor has no dimensions");
  return sizes_[wrap_dim(dim, ndim(), "size")];
}

int64_t Tensor::stride(int64_t dim) const {
  GENESIS_CHECK_INDEX(ndim() > 0, "stride", "dimension specified as ", dim,
                      " but tensor has no dimensions");
  return strides_[wrap_dim(dim, ndim(), "stride")];
}

namespace {
template <typename Char>
Char* at_offset(Char* base, int64_t offset, size_t itemsize) {
  return base == nullptr ? nullptr : base + offset * static_cast<int64_t>(itemsize);
}
}  // namespace

const void* Tensor::data() const {
  return at_offset(static_cast<const char*>(storage_.data()), offset_, itemsize());
}

void* Tensor::mutable_data() const {
  return at_offset(static_cast<char*>(storage_.mutable_data()), offset_, itemsize());
}

void* Tensor::share_data() const {
  return at_offset(static_cast<char*>(storage_.share_data()), offset_, itemsize());
}

}  // namespace genesis
