#pragma once
// Recording an out-of-range index on the device (Note [Deferred index errors] in
// core/index_check.h), for kernels outside index.cu that read through indices (cross_entropy's
// targets).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/index.cuh"

namespace genesis::kernels {

// Records index `v` of dim `dim` (of `size` items) as out of range: the first record of the
// device wins, and the winner fills the host's mapped copy, its flag last, so a host that sees
// the flag after a wait sees the rest.
__device__ __forceinline__ void record_index_error(IndexSite error, int64_t v, int64_t dim,
                                                   int64_t size) {
  IndexError* r = error.record;
  if (atomicCAS(&r->flag, 0, 1) == 0) {
    r->op = error.op;
    r->seq = error.seq;
    r->value = v;
    r->dim = dim;
    r->size = size;
    __threadfence();  // the scatter of the same op reads seq after flag
    volatile IndexError* m = error.mirror;
    m->op = error.op;
    m->seq = error.seq;
    m->value = v;
    m->dim = dim;
    m->size = size;
    __threadfence_system();
    m->flag = 1;
  }
}

}  // namespace genesis::kernels
