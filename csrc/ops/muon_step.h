#pragma once
// Muon's step over a list of parameters as one call (Note [Muon steps] in muon_step.cpp):
// genesis.optim.Muon calls it once per parameter group.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace genesis::ops {

// The options of a call, as torch.optim.Muon's param group holds them.
struct MuonOptions {
  double lr = 1e-3;
  double weight_decay = 0.1;
  double momentum = 0.95;
  bool nesterov = true;
  std::vector<double> ns_coefficients = {3.4445, -4.7750, 2.0315};  // (a, b, c); 3 of them
  double eps = 1e-7;
  int64_t ns_steps = 5;                     // fewer than 100
  std::optional<std::string> adjust_lr_fn;  // None, "original" or "match_rms_adamw"
};

// One Muon step in place for every i. params[i] is a 2-D floating tensor; grads[i] (2-D, or
// PyTorch's ValueError) and momentum_buffers[i] have its dtype, shape and device. `narrow`:
// empty, or under master weights (Note [Master weights] in optimizer_step.cpp) one entry per
// parameter, the float16/bfloat16 parameter whose float32 copy params[i] is (its gradient is
// the 16-bit one, its buffer float32) or undefined; each stepped copy is then written into its
// 16-bit parameter, rounded. Everything is checked before anything is written. A parameter
// without elements is left as it is.
void muon_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
               const std::vector<Tensor>& momentum_buffers, const MuonOptions& options,
               const std::vector<Tensor>& narrow = {});

}  // namespace genesis::ops
