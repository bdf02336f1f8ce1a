// CPU-only builds: the fused attention kernels, never reached (no CUDA tensor can exist).
#include "cuda/flash_attention.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

bool flash_attention_supported(int) { return false; }

void flash_attention_forward(const FlashAttentionOperands&, const Tensor&, const Tensor&) {
  no_device();
}

void flash_attention_backward(const FlashAttentionOperands&, const Tensor&, const Tensor&,
                              const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                              const Tensor&) {
  no_device();
}

}  // namespace genesis::cuda
