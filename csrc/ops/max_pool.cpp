#include "ops/max_pool.h"

#include "core/errors.h"
#include "cpu/max_pool.h"
#include "cuda/max_pool.h"
#include "ops/convert.h"
#include "ops/layout.h"

namespace genesis::ops {

std::pair<Tensor, Tensor> max_pool(const Tensor& x, const Shape& kernel, const Shape& stride,
                                   const Shape& padding, const Shape& dilation, const Shape& out) {
  const char* op = "max_pool";
  ScalarType d = x.dtype();
  GENESIS_CHECK_TYPE(d == ScalarType::Float16 || d == ScalarType::BFloat16 ||
                         d == ScalarType::Float32 || d == ScalarType::Float64,
                     op, "expected a floating point input, got ", scalar_type_name(d));
  int64_t nd = static_cast<int64_t>(kernel.size());
  GENESIS_CHECK(nd >= 1 && nd <= 3 && x.ndim() == nd + 2 && stride.size() == kernel.size() &&
                    padding.size() == kernel.size() && dilation.size() == kernel.size() &&
                    out.size() == kernel.size(),
                op, "expected an (N, C, *spatial) input and one kernel, stride, padding, ",
                "dilation and output size per spatial dim");
  PoolGeometry g{};
  g.planes = x.sizes()[0] * x.sizes()[1];
  for (int64_t i = 0; i < 3; ++i) {
    int64_t j = i - (3 - nd);  // the spatial dim behind geometry dim i, or < 0: a dim of 1
    bool real = j >= 0;
    g.in[i] = real ? x.sizes()[2 + j] : 1;
    g.out[i] = real ? out[j] : 1;
    g.kernel[i] = real ? kernel[j] : 1;
    g.stride[i] = real ? stride[j] : 1;
    g.pad[i] = real ? padding[j] : 0;
    g.dilation[i] = real ? dilation[j] : 1;
    GENESIS_CHECK(
        g.out[i] >= 0 && g.kernel[i] > 0 && g.stride[i] > 0 && g.dilation[i] > 0 && g.pad[i] >= 0,
        op, "expected positive kernel sizes, strides and dilations");
  }
  Shape out_sizes{x.sizes()[0], x.sizes()[1]};
  out_sizes.insert(out_sizes.end(), out.begin(), out.end());
  // A channels-last input gives channels-last results (Note [Layouts that results keep] in
  // ops/layout.cpp): CUDA pools it where it lies, the CPU pools a contiguous copy.
  const bool channels_last = prefers_channels_last(x);
  g.channels = x.sizes()[1];
  g.channels_last = channels_last && x.is_cuda();
  auto result = [&](ScalarType dtype) {
    return g.channels_last ? empty_channels_last(out_sizes, dtype, x.device())
                           : Tensor::empty(out_sizes, dtype, x.device());
  };
  Tensor values = result(d), indices = result(ScalarType::Int64);
  if (values.numel() == 0) return {values, indices};
  if (x.is_cuda()) {
    cuda::max_pool(g.channels_last ? x : contiguous(x), g, values, indices);
    return {values, indices};
  }
  cpu::max_pool(contiguous(x), g, values, indices);
  if (channels_last) return {as_channels_last(values), as_channels_last(indices)};
  return {values, indices};
}

}  // namespace genesis::ops
