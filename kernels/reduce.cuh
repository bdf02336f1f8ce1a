#pragma once
// Host launchers for the reduction kernels (plain C++; csrc/cuda/reduce.cpp includes it). The
// input is a contiguous [outer, reduce, inner] block; results go to a contiguous [outer, inner].
#include <cstddef>
#include <cstdint>

#include "vocab/reducers.h"

namespace genesis::kernels {

struct ReduceLaunch {
  ops::ReduceOp op = ops::ReduceOp::Sum;
  int dtype = 0;  // of the input; value results have the same dtype
  const void* in = nullptr;
  void* out = nullptr;           // values (may be null for argmax/argmin); MinMax: the minima
  void* out_max = nullptr;       // MinMax: the maxima
  int64_t* out_index = nullptr;  // argmax/argmin
  const void* center = nullptr;  // SumSquares: one value per output, input dtype
  ops::ReduceShape shape;
  ops::ReduceFinish finish;
  int64_t chunks = 1;  // > 1: partial results per chunk of the reduced dim first
  int64_t chunk_len = 0;
  void* workspace = nullptr;  // chunks * outputs accumulators
  int64_t item_bytes = 4;     // of the input's dtype
  // The final kernel may start while the chunks' kernel finishes (programmatic dependent
  // launch, compute capability 9.0 and newer; Note [Reduction chunks] in kernels/reduce_sum.cu).
  bool programmatic_final = false;
};

// Splits the reduced dim so that the GPU (sm_count multiprocessors) has enough parallel work;
// sets chunks/chunk_len and returns the workspace bytes the launch needs (0 for none).
size_t plan_reduce(ReduceLaunch& launch, int sm_count);
void launch_reduce(const ReduceLaunch& launch, void* stream);

}  // namespace genesis::kernels
