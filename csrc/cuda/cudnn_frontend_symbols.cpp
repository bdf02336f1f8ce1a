// The cuDNN backend API's entry points the frontend calls, forwarded to the loaded libcudnn
// (Note [cuDNN's graph API] in cudnn_graph_api.h), and the NVRTC calls of engines genesis never
// reaches.
#include <dlfcn.h>

#include "cuda/cudnn_api.h"
#include "cuda/cudnn_graph_api.h"

namespace genesis_cudnn_symbols {

// The address of `name` in the loaded libcudnn.so.9 (null when absent: an older cuDNN).
inline void* cudnn_symbol(const char* name) {
  void* lib = genesis::cuda::cudnn::library("cuDNN");
  return lib ? dlsym(lib, name) : nullptr;
}

template <typename Fn>
Fn* resolve(const char* name) {
  return reinterpret_cast<Fn*>(cudnn_symbol(name));
}

}  // namespace genesis_cudnn_symbols

// The backend API entry points the frontend calls (Note [cuDNN's graph API]). Each
// resolves once; a function missing from the loaded library answers NOT_SUPPORTED, which the
// frontend reports as a refusal.
#define GENESIS_CUDNN_FORWARD(name, params, args)                              \
  extern "C" __attribute__((visibility("hidden"))) cudnnStatus_t name params { \
    static auto* fn = genesis_cudnn_symbols::resolve<decltype(::name)>(#name); \
    return fn ? fn args : CUDNN_STATUS_NOT_SUPPORTED;                          \
  }

GENESIS_CUDNN_FORWARD(cudnnBackendCreateDescriptor,
                      (cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t* desc),
                      (type, desc))
GENESIS_CUDNN_FORWARD(cudnnBackendDestroyDescriptor, (cudnnBackendDescriptor_t desc), (desc))
GENESIS_CUDNN_FORWARD(cudnnBackendInitialize, (cudnnBackendDescriptor_t desc), (desc))
GENESIS_CUDNN_FORWARD(cudnnBackendFinalize, (cudnnBackendDescriptor_t desc), (desc))
GENESIS_CUDNN_FORWARD(cudnnBackendSetAttribute,
                      (cudnnBackendDescriptor_t desc, cudnnBackendAttributeName_t name,
                       cudnnBackendAttributeType_t type, int64_t count, const void* values),
                      (desc, name, type, count, values))
GENESIS_CUDNN_FORWARD(cudnnBackendGetAttribute,
                      (cudnnBackendDescriptor_t const desc, cudnnBackendAttributeName_t name,
                       cudnnBackendAttributeType_t type, int64_t requested, int64_t* count,
                       void* values),
                      (desc, name, type, requested, count, values))
GENESIS_CUDNN_FORWARD(cudnnBackendExecute,
                      (cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                       cudnnBackendDescriptor_t pack),
                      (handle, plan, pack))
#if CUDNN_VERSION >= 92300
// Frontends built against cuDNN 9.23+ headers (nvidia-cudnn-frontend 1.32 and later) ask the
// loaded library for a plan's workspace through this call.
GENESIS_CUDNN_FORWARD(cudnnGetExecutionPlanWorkspaceSize,
                      (cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                       cudnnBackendDescriptor_t pack, size_t* workspace_bytes),
                      (handle, plan, pack, workspace_bytes))
#endif
GENESIS_CUDNN_FORWARD(cudnnGetStream, (cudnnHandle_t handle, cudaStream_t* stream),
                      (handle, stream))
GENESIS_CUDNN_FORWARD(cudnnSetStream, (cudnnHandle_t handle, cudaStream_t stream), (handle, stream))
GENESIS_CUDNN_FORWARD(cudnnCreate, (cudnnHandle_t * handle), (handle))
GENESIS_CUDNN_FORWARD(cudnnDestroy, (cudnnHandle_t handle), (handle))

extern "C" __attribute__((visibility("hidden"))) size_t cudnnGetVersion() {
  static auto* fn = genesis_cudnn_symbols::resolve<decltype(::cudnnGetVersion)>("cudnnGetVersion");
  return fn ? fn() : 0;
}

extern "C" __attribute__((visibility("hidden"))) const char* cudnnGetErrorString(
    cudnnStatus_t status) {
  static auto* fn =
      genesis_cudnn_symbols::resolve<decltype(::cudnnGetErrorString)>("cudnnGetErrorString");
  return fn ? fn(status) : "cuDNN error";
}

extern "C" __attribute__((visibility("hidden"))) void cudnnGetLastErrorString(char* message,
                                                                              size_t max_size) {
  static auto* fn = genesis_cudnn_symbols::resolve<decltype(::cudnnGetLastErrorString)>(
      "cudnnGetLastErrorString");
  if (fn) {
    fn(message, max_size);
  } else if (max_size > 0) {
    message[0] = '\0';
  }
}

#undef GENESIS_CUDNN_FORWARD

// The frontend also carries engines it compiles with NVRTC (Blackwell norms) that attention
// never reaches; their NVRTC calls answer "not supported" here rather than linking NVRTC.
#define GENESIS_NO_NVRTC(name, params)                                       \
  extern "C" __attribute__((visibility("hidden"))) nvrtcResult name params { \
    return NVRTC_ERROR_INVALID_INPUT;                                        \
  }
GENESIS_NO_NVRTC(nvrtcCreateProgram, (nvrtcProgram*, const char*, const char*, int,
                                      const char* const*, const char* const*))
GENESIS_NO_NVRTC(nvrtcCompileProgram, (nvrtcProgram, int, const char* const*))
GENESIS_NO_NVRTC(nvrtcDestroyProgram, (nvrtcProgram*))
GENESIS_NO_NVRTC(nvrtcGetCUBIN, (nvrtcProgram, char*))
GENESIS_NO_NVRTC(nvrtcGetCUBINSize, (nvrtcProgram, size_t*))
GENESIS_NO_NVRTC(nvrtcGetProgramLog, (nvrtcProgram, char*))
GENESIS_NO_NVRTC(nvrtcGetProgramLogSize, (nvrtcProgram, size_t*))
#undef GENESIS_NO_NVRTC
