#pragma once
// Host launchers of GradScaler's ops (Note [Gradient scaling] in ops/grad_scaling.cpp; device
// code in grad_scaling.cu).
#include <cstdint>

namespace genesis::kernels {

// Up to kMaxTensors gradients of one dtype, passed whole as the kernel's parameter, as
// StepTable (Note [Multi-tensor steps] in optimizer_step.cu).
struct ScaleTable {
  static constexpr int kMaxTensors = 512;
  int tensors = 0;
  int64_t first_chunk[kMaxTensors + 1];  // tensor t's chunks: [first_chunk[t], first_chunk[t+1])
  int64_t numel[kMaxTensors];
  void* data[kMaxTensors];
};

// The elements a block unscales.
constexpr int64_t kScaleChunk = 16384;

// dtype: a DtypeCode of dtype_traits.cuh (float16, bfloat16, float32 or float64); found_inf and
// inv_scale: one float on the device each.
void launch_unscale(const ScaleTable& table, int dtype, float* found_inf, const float* inv_scale,
                    void* stream);
// One thread: scale, growth_tracker (int32) and found_inf, one item each on the device.
void launch_update_scale(float* scale, int32_t* growth_tracker, const float* found_inf,
                         double growth_factor, double backoff_factor, int growth_interval,
                         void* stream);

}  // namespace genesis::kernels
