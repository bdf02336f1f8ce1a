#pragma once
// CPU-only builds: every csrc/cuda/no_cuda*.cpp stub raises this one error.
namespace genesis::cuda {

[[noreturn]] void unavailable();

}  // namespace genesis::cuda
