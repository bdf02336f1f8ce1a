// CPU-only builds: the fused CUDA LSTM cell, never reached (no CUDA tensor can exist).
#include "cuda/lstm_cell.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void lstm_cell_forward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                       const Tensor&) {
  no_device();
}

void lstm_cell_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                        const Tensor&, const Tensor&) {
  no_device();
}

}  // namespace genesis::cuda
