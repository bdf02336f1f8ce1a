#pragma once
// Every CUDA runtime call goes through GENESIS_CUDA_CHECK, so a failure names the expression.
#include <cuda_runtime_api.h>

#include "core/errors.h"

#define GENESIS_CUDA_CHECK(expr)                                                          \
  do {                                                                                    \
    cudaError_t genesis_err_ = (expr);                                                    \
    if (genesis_err_ != cudaSuccess) [[unlikely]] {                                       \
      cudaGetLastError(); /* clear the sticky-free error so the next call starts clean */ \
      ::genesis::throw_error(                                                             \
          ::genesis::ErrorKind::Runtime, "cuda",                                          \
          ::genesis::str_cat(#expr, " failed: ", cudaGetErrorString(genesis_err_)));      \
    }                                                                                     \
  } while (0)
