#include "ops/dropout.h"

// Note [Fused dropout]
// ~~~~~~~~~~~~~~~~~~~~
// Dropout composed of ops (a bernoulli_ draw into a tensor of the input's dtype, a division by
// 1 - p, a product) reads and writes the input's size five times over, plus float64 uniforms;
// here one pass reads x and writes the result and a bool mask (1 byte per element), and the
// backward is one more pass over the gradient and the mask: PyTorch's fused dropout.
// Draws: the elements go in groups of four; group j takes Philox counter offset + j of the
// generator (one call gives four 32-bit words) and element 4j + e keeps iff the word e, as a
// uniform float in [0, 1) (philox::uniform_float), is below float(1 - p). The CPU loop and the
// CUDA kernel make the same draws, so a seed gives the same mask on every device; a capture
// draws from its graph's counters (Note [Random ops in graphs]).
// Values: the scale 1 / (1 - p) is rounded to the input's dtype first and the product is
// taken in float (double for float64), as PyTorch's CPU dropout computes x * (mask / (1 - p))
// in the input's dtype; a dropped NaN or infinity stays NaN (x * 0), as in PyTorch.
#include "core/errors.h"
#include "cpu/dropout.h"
#include "cuda/dropout.h"
#include "fusion/group.h"
#include "ops/convert.h"

namespace genesis::ops {

std::pair<Tensor, Tensor> fused_dropout(const Tensor& x, double p, const char* op, Generator* gen) {
  GENESIS_CHECK_TYPE(is_floating_point(x.dtype()), op, "expected a floating point input, got ",
                     scalar_type_name(x.dtype()));
  GENESIS_CHECK_VALUE(p > 0 && p < 1, op, "the fused dropout takes 0 < p < 1, got ", p);
  const Tensor in = contiguous(x);
  Tensor out = Tensor::empty(x.sizes(), x.dtype(), x.device());
  Tensor mask = Tensor::empty(x.sizes(), ScalarType::Bool, x.device());
  const int64_t n = x.numel();
  if (n == 0) return {out, mask};
  const float keep = static_cast<float>(1 - p);
  const double scale = 1 / (1 - p);
  const int64_t groups = (n + 3) / 4;  // one Philox counter per four elements
  Generator& g = generator_or_default(gen);
  if (x.is_cuda()) {
    const cuda::PhiloxArgs rng = cuda_counters(g, x.device().index, groups);
    // In a compiled region the draws join the fused group (not in a capture, whose counters
    // live on the device: Note [Random ops in graphs]).
    if (rng.state == nullptr && fusion::region_active() &&
        fusion::defer_dropout(out, mask, in, keep, scale, rng.seed, rng.offset))
      return {out, mask};
    cuda::fused_dropout(in, out, mask, keep, scale, rng);
  } else {
    Counters c = g.reserve(groups);
    if (fusion::region_active() &&
        fusion::defer_dropout(out, mask, in, keep, scale, c.seed, c.offset))
      return {out, mask};
    cpu::fused_dropout(in, out, mask, keep, scale, c.seed, c.offset);
  }
  return {out, mask};
}

Tensor dropout_masked_scale(const Tensor& grad, const Tensor& mask, double scale, const char* op) {
  GENESIS_CHECK_TYPE(is_floating_point(grad.dtype()), op,
                     "expected a floating point gradient, got ", scalar_type_name(grad.dtype()));
  GENESIS_CHECK_TYPE(mask.dtype() == ScalarType::Bool, op, "expected a bool mask, got ",
                     scalar_type_name(mask.dtype()));
  GENESIS_CHECK(mask.sizes() == grad.sizes() && mask.device() == grad.device(), op, "the mask (",
                shape_str(mask.sizes()), ", ", mask.device().str(),
                ") does not match the gradient (", shape_str(grad.sizes()), ", ",
                grad.device().str(), ")");
  const Tensor g = contiguous(grad), m = contiguous(mask);
  Tensor out = Tensor::empty(grad.sizes(), grad.dtype(), grad.device());
  if (out.numel() == 0) return out;
  if (fusion::region_active() && fusion::defer_masked_scale(out, g, m, scale)) return out;
  if (out.is_cuda())
    cuda::dropout_masked_scale(g, m, out, scale);
  else
    cpu::dropout_masked_scale(g, m, out, scale);
  return out;
}

}  // namespace genesis::ops
