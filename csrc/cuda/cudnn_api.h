#pragma once
// The cuDNN functions genesis calls, found at run time (Note [Loading cuDNN] in cudnn.cpp), and
// the per-device handle they run on. Types and constants are written from the cuDNN
// documentation (its enums are ints in the C ABI); cudnn.cpp checks them against the headers
// where those exist. Internal to csrc/cuda's cuDNN files.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>

#include "core/tensor.h"
#include "cuda/device_guard.h"

namespace genesis::cuda::cudnn {

using Handle = struct CudnnContext*;              // cudnnHandle_t
using TensorDesc = struct CudnnTensorStruct*;     // cudnnTensorDescriptor_t
using FilterDesc = struct CudnnFilterStruct*;     // cudnnFilterDescriptor_t
using ConvDesc = struct CudnnConvolutionStruct*;  // cudnnConvolutionDescriptor_t
using Status = int;                               // cudnnStatus_t
constexpr Status kSuccess = 0;
constexpr int kFloat = 0, kDouble = 1, kHalf = 2, kBFloat16 = 9;  // cudnnDataType_t
constexpr int kNchw = 0;                                          // cudnnTensorFormat_t
constexpr int kNhwc = 1;
constexpr int kCrossCorrelation = 1;  // cudnnConvolutionMode_t
constexpr int kDefaultMath = 0, kTensorOpMath = 1, kTensorOpMathAllowConversion = 2,
              kFmaMath = 3;        // cudnnMathType_t
constexpr int kDeterministic = 1;  // cudnnDeterminism_t

// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t: one layout for the three directions.
struct AlgoPerf {
  int algo;
  Status status;
  float time;
  size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};

struct Api {
  int64_t version = 0;
  const char* (*error_string)(Status);
  Status (*create)(Handle*);
  Status (*set_stream)(Handle, cudaStream_t);
  Status (*create_tensor)(TensorDesc*);
  Status (*destroy_tensor)(TensorDesc);
  Status (*set_tensor)(TensorDesc, int dtype, int rank, const int* dims, const int* strides);
  Status (*create_filter)(FilterDesc*);
  Status (*destroy_filter)(FilterDesc);
  Status (*set_filter)(FilterDesc, int dtype, int format, int rank, const int* dims);
  Status (*create_conv)(ConvDesc*);
  Status (*destroy_conv)(ConvDesc);
  Status (*set_conv)(ConvDesc, int spatial, const int* pad, const int* stride, const int* dilation,
                     int mode, int compute_type);
  Status (*set_group_count)(ConvDesc, int);
  Status (*set_math_type)(ConvDesc, int);
  // forward: (x, w) -> y
  Status (*forward_heuristics)(Handle, TensorDesc, FilterDesc, ConvDesc, TensorDesc, int, int*,
                               AlgoPerf*);
  Status (*forward_find)(Handle, TensorDesc, const void*, FilterDesc, const void*, ConvDesc,
                         TensorDesc, void*, int, int*, AlgoPerf*, void*, size_t);
  Status (*forward_workspace)(Handle, TensorDesc, FilterDesc, ConvDesc, TensorDesc, int, size_t*);
  Status (*forward)(Handle, const void*, TensorDesc, const void*, FilterDesc, const void*, ConvDesc,
                    int, void*, size_t, const void*, TensorDesc, void*);
  // backward data: (w, dy) -> dx
  Status (*data_heuristics)(Handle, FilterDesc, TensorDesc, ConvDesc, TensorDesc, int, int*,
                            AlgoPerf*);
  Status (*data_find)(Handle, FilterDesc, const void*, TensorDesc, const void*, ConvDesc,
                      TensorDesc, void*, int, int*, AlgoPerf*, void*, size_t);
  Status (*data_workspace)(Handle, FilterDesc, TensorDesc, ConvDesc, TensorDesc, int, size_t*);
  Status (*backward_data)(Handle, const void*, FilterDesc, const void*, TensorDesc, const void*,
                          ConvDesc, int, void*, size_t, const void*, TensorDesc, void*);
  // backward filter: (x, dy) -> dw
  Status (*filter_heuristics)(Handle, TensorDesc, TensorDesc, ConvDesc, FilterDesc, int, int*,
                              AlgoPerf*);
  Status (*filter_find)(Handle, TensorDesc, const void*, TensorDesc, const void*, ConvDesc,
                        FilterDesc, void*, int, int*, AlgoPerf*, void*, size_t);
  Status (*filter_workspace)(Handle, TensorDesc, TensorDesc, ConvDesc, FilterDesc, int, size_t*);
  Status (*backward_filter)(Handle, const void*, TensorDesc, const void*, TensorDesc, const void*,
                            ConvDesc, int, void*, size_t, const void*, FilterDesc, void*);
};

// The loaded API; raises RuntimeError naming op when cuDNN cannot be loaded.
const Api& api(const char* op);

// The loaded library's dlopen() handle (for the functions cudnn_frontend_symbols.cpp resolves);
// raises as api() does.
void* library(const char* op);

// Raises "[op] <call> failed: <cuDNN's message>" for a status other than success.
void check(Status s, const char* call, const char* op);

// The device's handle, locked and pointed at the current stream, for one call.
class Session {
 public:
  Session(int device, const char* op);
  Handle handle() const { return handle_; }

 private:
  DeviceGuard guard_;
  std::unique_lock<std::mutex> lock_;
  Handle handle_ = nullptr;
};

}  // namespace genesis::cuda::cudnn
