#pragma once
// Host launchers of the multi-tensor optimizer steps (device code and Note [Multi-tensor steps]
// in optimizer_step.cu).
#include <cstdint>

#include "vocab/optimizer_rules.h"

namespace genesis::kernels {

// Up to kMaxTensors tensors of one dtype, passed whole as the kernel's parameter (CUDA 12.1 and
// sm_70 take up to 32764 bytes of them). data[0] the parameters, data[1] the gradients,
// data[2 + k] the rule's k-th state (states of them in use; a null address is a state the call
// does not hold, read as 0 and not written), data[2 + states]: under master weights the 16-bit
// parameters that receive the stepped float32 values rounded (else null).
struct StepTable {
  static constexpr int kMaxTensors = 224;
  static constexpr int kMaxSlots = 6;
  int tensors = 0, states = 0;
  int64_t first_chunk[kMaxTensors + 1];  // tensor t's chunks: [first_chunk[t], first_chunk[t+1])
  int64_t numel[kMaxTensors];
  void* data[kMaxSlots][kMaxTensors];
  StepFactors factors[kMaxTensors];
  // Capturable steps (Note [Capturable steps] in vocab/optimizer_rules.h): each tensor's step
  // count on the device, incremented by the launch before the step's (all null: `factors` are
  // the host's), the rule's scalar states of each tensor there (DeviceStatesOf<Rule>), and the
  // learning rate on the device, float32 or (lr_is_double) float64 (null: the rule's).
  static constexpr int kMaxDeviceStates = 2;
  float* counts[kMaxTensors];
  float* scalar_states[kMaxDeviceStates][kMaxTensors];
  const void* lr = nullptr;
  bool lr_is_double = false;
};

// dtype: a DtypeCode of dtype_traits.cuh (float16, bfloat16, float32 or float64) of the stepped
// values and states; grad_dtype: the gradients' (dtype's, or float16/bfloat16 under master
// weights, where dtype is float32).
// The elements a block steps.
constexpr int64_t kStepChunk = 16384;

void launch_sgd_step(const StepTable& table, const SgdRule& rule, int dtype, int grad_dtype,
                     void* stream);
void launch_adam_step(const StepTable& table, const AdamRule& rule, int dtype, int grad_dtype,
                      void* stream);
void launch_rmsprop_step(const StepTable& table, const RmspropRule& rule, int dtype, int grad_dtype,
                         void* stream);
void launch_adagrad_step(const StepTable& table, const AdagradRule& rule, int dtype, int grad_dtype,
                         void* stream);
void launch_adamax_step(const StepTable& table, const AdamaxRule& rule, int dtype, int grad_dtype,
                        void* stream);
void launch_adadelta_step(const StepTable& table, const AdadeltaRule& rule, int dtype,
                          int grad_dtype, void* stream);
void launch_nadam_step(const StepTable& table, const NadamRule& rule, int dtype, int grad_dtype,
                       void* stream);
void launch_radam_step(const StepTable& table, const RadamRule& rule, int dtype, int grad_dtype,
                       void* stream);
void launch_lion_step(const StepTable& table, const LionRule& rule, int dtype, int grad_dtype,
                      void* stream);
void launch_rprop_step(const StepTable& table, const RpropRule& rule, int dtype, int grad_dtype,
                       void* stream);
void launch_asgd_step(const StepTable& table, const AsgdRule& rule, int dtype, int grad_dtype,
                      void* stream);

}  // namespace genesis::kernels
