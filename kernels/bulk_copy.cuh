#pragma once
// Note [Rows staged by the copy engine]: on Hopper (sm_90+) one thread can ask the copy engine
// (TMA) to move a contiguous run of global memory into shared memory with one instruction
// (cp.async.bulk); the bytes in flight hold no registers, and an mbarrier counts them in. A
// row kernel that reads its row more than once (group norm: statistics, then the result) stages
// the row in shared memory this way and reads it there, instead of holding it in registers (which
// caps the packs in flight) or hoping it stays in L1 between passes (it did not when several
// blocks' rows shared an SM's L1: extra HBM reads). Several blocks per SM keep loads and
// the other blocks' compute and stores overlapping.
//
// These helpers compile to a trap below sm_90: callers launch staged kernels only on sm_90+
// devices running sm_90+ code (group_norm.cu's staging_allowed).
#include <cuda_runtime.h>

#include <cstdint>

namespace genesis::kernels::bulk_copy {

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// An mbarrier that completes a phase when one thread has arrived and all expected bytes landed.
__device__ __forceinline__ void init_barrier(uint64_t* barrier) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(barrier)) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
  __trap();
#endif
}

// Called by one thread: the barrier's next phase waits for `bytes` more bytes (the sum of the
// load_expected calls that follow). Every thread of the block must be done reading their
// destinations (a __syncthreads) before.
__device__ __forceinline__ void expect(uint64_t* barrier, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // generic-proxy reads of the destinations are ordered before the copy engine's writes
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)),
      "r"(bytes)
      : "memory");
#else
  __trap();
#endif
}

// dst, src 16-byte aligned; bytes a multiple of 16; a phase's bytes below 2^20.
__device__ __forceinline__ void load_expected(void* dst, const void* src, uint32_t bytes,
                                              uint64_t* barrier) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(shared_address(dst)),
      "l"(src), "r"(bytes), "r"(shared_address(barrier))
      : "memory");
#else
  __trap();
#endif
}

// One expected load.
__device__ __forceinline__ void load(void* dst, const void* src, uint32_t bytes,
                                     uint64_t* barrier) {
  expect(barrier, bytes);
  load_expected(dst, src, bytes, barrier);
}

// Every thread waits for the phase of parity `phase` (0 for a barrier's first phase, then 1, 0...).
__device__ __forceinline__ void wait(uint64_t* barrier, uint32_t phase) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  uint32_t bar = shared_address(barrier), done = 0;
  do {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, "
        "p; }"
        : "=r"(done)
        : "r"(bar), "r"(phase)
        : "memory");
  } while (!done);
#else
  __trap();
#endif
}

}  // namespace genesis::kernels::bulk_copy
