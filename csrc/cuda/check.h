#pragma once
// Every CUDA runtime call goes through GENESIS_CUDA_CHECK, so a failure names the expression.
#include <cuda_runtime_api.h>

#include "core/errors.h"

namespace genesis::cuda {
// Raises "[cuda] <expr> failed: <reason>", or the fork error of Note [CUDA after fork] in a
// child whose parent had started CUDA (there every call fails, and the reason is the fork).
[[noreturn]] void throw_cuda_error(const char* expr, cudaError_t err);
}  // namespace genesis::cuda

#define GENESIS_CUDA_CHECK(expr)                              \
  do {                                                        \
    cudaError_t genesis_err_ = (expr);                        \
    if (genesis_err_ != cudaSuccess) [[unlikely]]             \
      ::genesis::cuda::throw_cuda_error(#expr, genesis_err_); \
  } while (0)
