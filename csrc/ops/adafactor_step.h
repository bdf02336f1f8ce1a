#pragma once
// Adafactor's step over a list of parameters as one call (Note [Adafactor steps] in
// adafactor_step.cpp): genesis.optim.Adafactor calls it once per parameter group.
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace genesis::ops {

// The options of a call, as PyTorch's Python floats.
struct AdafactorOptions {
  double lr = 1e-2;
  double beta2_decay = -0.8;
  // None: the machine epsilon of the first parameter's dtype (PyTorch's default implementation
  // sets it once, from the first parameter it steps).
  std::optional<double> eps1;
  double eps2 = 1e-3;
  double d = 1.0;  // the clipping threshold of the update's RMS
  double weight_decay = 0.0;
  bool maximize = false;
};

// One Adafactor step in place for every i. grads[i] has params[i]'s dtype, shape and device.
// row_vars, col_vars and variances hold one entry per parameter, an undefined Tensor where the
// parameter does not keep that state: a parameter of 2 or more dims keeps row_var (its shape with
// the last dim 1) and col_var (its shape with dim -2 of 1), one of 0 or 1 dims keeps variance (its
// shape). steps: each parameter's step count, a 0-d float32 CPU tensor incremented here first. A
// parameter without elements only has its step counted.
void adafactor_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                    const std::vector<Tensor>& row_vars, const std::vector<Tensor>& col_vars,
                    const std::vector<Tensor>& variances, const std::vector<Tensor>& steps,
                    const AdafactorOptions& options);

}  // namespace genesis::ops
