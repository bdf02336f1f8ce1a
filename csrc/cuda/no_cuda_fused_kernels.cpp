// genesis built without CUDA: no generated kernel runs (fusion/ runs CPU groups only).
#include "core/errors.h"
#include "cuda/fused_kernels.h"

namespace genesis::cuda {

namespace {
[[noreturn]] void not_built() {
  GENESIS_FAIL(ErrorKind::Runtime, "compile", "genesis was built without CUDA");
}
}  // namespace

int device_architecture(int) { not_built(); }
void* fused_kernel(const std::string&, const std::string&) { not_built(); }
void launch_fused(void*, int, uintptr_t, unsigned, unsigned, void**, unsigned) { not_built(); }
int multiprocessors(int) { not_built(); }

}  // namespace genesis::cuda
