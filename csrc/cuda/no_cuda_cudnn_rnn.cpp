// Builds without CUDA or without cudnn.h (CMakeLists.txt picks this file then): no cuDNN
// recurrences, and genesis.nn's recurrent layers step through time in ops.
#include "cuda/cudnn_rnn.h"

#include "core/errors.h"

namespace genesis::cuda {

bool cudnn_rnn_usable(const CudnnRnn&, const char*) { return false; }

RnnForward cudnn_rnn_forward(const CudnnRnn&, const Tensor&, const Tensor&, const Tensor*,
                             const TensorRefs&, bool, const char* op) {
  GENESIS_FAIL(ErrorKind::Runtime, op, "this build has no cuDNN recurrences");
}

RnnBackward cudnn_rnn_backward(const CudnnRnn&, const Tensor&, const Tensor&, const Tensor*,
                               const Tensor&, const Tensor&, const Tensor*, const Tensor*,
                               const TensorRefs&, const Tensor&, const Tensor&, const char* op) {
  GENESIS_FAIL(ErrorKind::Runtime, op, "this build has no cuDNN recurrences");
}

}  // namespace genesis::cuda
