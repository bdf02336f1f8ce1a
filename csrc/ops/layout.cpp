#include "ops/layout.h"

#include "ops/copy.h"

// Note [Layouts that results keep]
// A model written for PyTorch that moves its weights and images to channels_last expects the
// layout to last through the network: PyTorch's elementwise ops, casts and copies (to, clone,
// the *_like creators: memory_format=preserve_format) give results laid out as their operand,
// and cuDNN runs a channels-last convolution without transposing in and out. genesis does the
// same for the two formats PyTorch names, channels_last (4-D) and channels_last_3d (5-D): a
// unary op's result, a cast's, a copy's (to, clone), an *_like creator's, and a binary op's or
// where's come back channels-last when the operand that decides is: for these, the first
// operand of the result's sizes that is contiguous or channels-last (an operand of other
// strides, such as a gradient expanded from a mean, is passed over, as PyTorch's stride-0 dims
// do not vote).
// Every other layout (a transposed matrix, a permuted 3-D tensor) comes back contiguous, as
// before: those stay where internal code may rely on it. Kernels read any strides, and an
// output laid out exactly as its operands still runs the flat loop (elementwise_is_flat).
// contiguous() always returns a contiguous tensor.

namespace genesis::ops {

bool prefers_channels_last(const Tensor& t) {
  return (t.ndim() == 4 || t.ndim() == 5) && !t.is_contiguous() &&
         is_channels_last(t.sizes(), t.strides());
}

Tensor empty_channels_last(const Shape& sizes, ScalarType dtype, Device device) {
  return Tensor::empty(Shape{numel_of(sizes)}, dtype, device)
      .as_strided(sizes, channels_last_strides(sizes), 0);
}

Tensor as_channels_last(const Tensor& t) {
  if (is_channels_last(t.sizes(), t.strides())) return t;
  Tensor out = empty_channels_last(t.sizes(), t.dtype(), t.device());
  copy_(out, t);
  return out;
}

Tensor empty_in_layout_of(const Shape& sizes, ScalarType dtype, Device device,
                          const Tensor& model) {
  if (model.defined() && model.sizes() == sizes && prefers_channels_last(model))
    return empty_channels_last(sizes, dtype, device);
  return Tensor::empty(sizes, dtype, device);
}

Tensor uniform_in_layout_of(const Tensor& fresh, const Tensor& model) {
  if (model.sizes() != fresh.sizes() || !prefers_channels_last(model)) return fresh;
  return fresh.as_strided(fresh.sizes(), channels_last_strides(fresh.sizes()), 0);
}

}  // namespace genesis::ops
