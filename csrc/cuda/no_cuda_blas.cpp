// cuBLAS in a CPU-only build: there are no CUDA tensors to multiply or factor, so these only
// raise. The settings are kept all the same, so code that sets them runs anywhere (as PyTorch's).
#include <atomic>

#include "cuda/blas.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

namespace {
std::atomic<bool> g_allow_tf32{false}, g_prefer_lt{true};
}  // namespace

void set_allow_tf32(bool allow) { g_allow_tf32.store(allow, std::memory_order_relaxed); }
bool allow_tf32() { return g_allow_tf32.load(std::memory_order_relaxed); }
void set_prefer_cublaslt(bool prefer) { g_prefer_lt.store(prefer, std::memory_order_relaxed); }
bool prefer_cublaslt() { return g_prefer_lt.load(std::memory_order_relaxed); }
LtStats lt_stats() { return {}; }

void gemm_strided_batched(const Tensor&, const Tensor&, const Tensor&) { no_device(); }
bool gemm_bias(const Tensor&, const Tensor&, const Tensor&, const Tensor&, double, BiasActivation,
               const Tensor*) {
  no_device();
}
bool gemm_accumulate(const Tensor&, const Tensor&, const Tensor&, bool) { no_device(); }
void getrf_batched(Device, ScalarType, int, void* const*, int, int*, int*, int, const char*) {
  no_device();
}
void getrs_batched(Device, ScalarType, int, int, void* const*, int, const int*, void* const*, int,
                   int, const char*) {
  no_device();
}

}  // namespace genesis::cuda
