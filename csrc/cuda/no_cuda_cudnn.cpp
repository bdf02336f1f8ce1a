// CPU-only builds: no cuDNN (cudnn_available() is false, so genesis.nn never asks for it).
#include "cuda/cudnn.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

bool cudnn_available() { return false; }
int64_t cudnn_version() { return 0; }
void set_cudnn_search_dirs(std::vector<std::string>) {}

void cudnn_convolution_forward(const CudnnConvolution&, const Tensor&, const Tensor&, const Tensor&,
                               const char*) {
  no_device();
}
void cudnn_convolution_backward_data(const CudnnConvolution&, const Tensor&, const Tensor&,
                                     const Tensor&, const char*) {
  no_device();
}
void cudnn_convolution_backward_filter(const CudnnConvolution&, const Tensor&, const Tensor&,
                                       const Tensor&, const char*) {
  no_device();
}

}  // namespace genesis::cuda
