#include "cuda/optimizer_step.h"

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"
#include "kernels/optimizer_step.cuh"

namespace genesis::cuda {

namespace {

// Fills tables of up to StepTable::kMaxTensors tensors and launches each (Note [Multi-tensor
// steps] in kernels/optimizer_step.cu); the table is copied into the launch's parameters, so
// one table object serves every launch.
template <typename Rule, typename Launch>
void step(const StepSlots& slots, const std::vector<StepFactors>& factors, const Rule& rule,
          const DeviceScalars& scalars, const Launch& launch) {
  if (slots[0].empty()) return;
  int device = slots[0][0]->device().index;
  DeviceGuard guard(device);
  void* stream = reinterpret_cast<void*>(current_stream(device));
  int dtype = static_cast<int>(slots[0][0]->dtype());
  int grad_dtype = static_cast<int>(slots[1][0]->dtype());
  kernels::StepTable table;
  table.states = static_cast<int>(slots.size()) - 3;  // the last list: master weights' narrows
  table.first_chunk[0] = 0;
  table.lr = scalars.lr != nullptr ? scalars.lr->data() : nullptr;
  table.lr_is_double = scalars.lr != nullptr && scalars.lr->dtype() == ScalarType::Float64;
  GENESIS_CHECK(scalars.states.size() <= kernels::StepTable::kMaxDeviceStates, "optimizer_step",
                "at most ", kernels::StepTable::kMaxDeviceStates, " scalar states per tensor");
  auto flush = [&] {
    if (table.tensors == 0) return;
    launch(table, rule, dtype, grad_dtype, stream);
    GENESIS_CUDA_CHECK(cudaGetLastError());
    table.tensors = 0;
  };
  for (size_t i = 0; i < slots[0].size(); ++i) {
    int64_t n = slots[0][i]->numel();
    if (n == 0) continue;
    int t = table.tensors++;
    table.numel[t] = n;
    table.first_chunk[t + 1] =
        table.first_chunk[t] + (n + kernels::kStepChunk - 1) / kernels::kStepChunk;
    for (size_t k = 0; k < slots.size(); ++k) {
      // Not held (Note [Multi-tensor steps]), or no master weights (for this tensor).
      const Tensor* tensor = slots[k].empty() ? nullptr : slots[k][i];
      if (tensor == nullptr)
        table.data[k][t] = nullptr;
      else
        table.data[k][t] = k == 1 ? const_cast<void*>(tensor->data()) : tensor->mutable_data();
    }
    table.factors[t] = factors[i];
    table.counts[t] =
        scalars.counts.empty() ? nullptr : scalars.counts[i]->mutable_data_as<float>();
    for (size_t k = 0; k < scalars.states.size(); ++k)
      table.scalar_states[k][t] = scalars.states[k][i]->mutable_data_as<float>();
    // A grid stays well under its 2^31 - 1 blocks.
    if (table.tensors == kernels::StepTable::kMaxTensors ||
        table.first_chunk[table.tensors] > (int64_t{1} << 30))
      flush();
  }
  flush();
}

}  // namespace

void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const SgdRule& rule, const DeviceScalars& scalars) {
  step(slots, factors, rule, scalars, kernels::launch_sgd_step);
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdamRule& rule, const DeviceScalars& scalars) {
  step(slots, factors, rule, scalars, kernels::launch_adam_step);
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const RmspropRule& rule, const DeviceScalars& scalars) {
  step(slots, factors, rule, scalars, kernels::launch_rmsprop_step);
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdagradRule& rule, const DeviceScalars& scalars) {
  step(slots, factors, rule, scalars, kernels::launch_adagrad_step);
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdamaxRule& rule, const DeviceScalars& scalars) {
  step(slots, factors, rule, scalars, kernels::launch_adamax_step);
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdadeltaRule& rule, const DeviceScalars& scalars) {
  step(slots, factors, rule, scalars, kernels::launch_adadelta_step);
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const NadamRule& rule, const DeviceScalars& scalars) {
  step(slots, factors, rule, scalars, kernels::launch_nadam_step);
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const RadamRule& rule, const DeviceScalars& scalars) {
  step(slots, factors, rule, scalars, kernels::launch_radam_step);
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const LionRule& rule, const DeviceScalars& scalars) {
  step(slots, factors, rule, scalars, kernels::launch_lion_step);
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const RpropRule& rule, const DeviceScalars& scalars) {
  step(slots, factors, rule, scalars, kernels::launch_rprop_step);
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AsgdRule& rule, const DeviceScalars& scalars) {
  step(slots, factors, rule, scalars, kernels::launch_asgd_step);
}

}  // namespace genesis::cuda
