// Recurrent layers through cuDNN's RNN API (cuda/cudnn_rnn.h).
#include "cuda/cudnn_rnn.h"

// Note [Recurrences through cuDNN]
// genesis.nn's recurrences step through time in ops (Note [Recurrence in steps]): a product
// and a few elementwise ops per step and layer, each a launch, forward and backward. On CUDA
// a stack without projection, packing or inter-layer dropout in training goes instead to
// cuDNN's RNN API (cudnnRNNForward, cudnnRNNBackwardData_v8 and cudnnRNNBackwardWeights_v8,
// as PyTorch's does), which runs the whole recurrence in a few kernels.
// Weights: cuDNN reads them from one buffer in its own layout, where cudnnGetRNNWeightParams
// gives each gate matrix's and bias's place. PyTorch's gate orders (i, f, g, o for LSTM; r, z,
// n for GRU) are cuDNN's linear-layer ids, so each gate's rows of w_ih / w_hh (and its slice of
// b_ih / b_hh) are one contiguous device copy into that buffer at each forward (the parameters
// stay ordinary genesis tensors), and the weight gradients one copy each out of the buffer
// cudnnRNNBackwardWeights_v8 accumulates into (zeroed first). The forward keeps the packed
// buffer and cuDNN's reserve space for the backward.
// Loading: the functions come from the libcudnn genesis loaded (Note [Loading cuDNN] in
// cudnn.cpp), found by name and typed by cudnn.h's declarations. Math: float16 and bfloat16 on
// tensor cores with float accumulation, float32 in TF32 only under
// genesis.backends.cudnn.allow_tf32, float64 in double. A configuration cuDNN will not set up
// (cudnnSetRNNDescriptor_v8 or the weight-space query fails) is remembered as refused and keeps
// genesis's own steps.
// Sequence lengths: every sequence has the full length; cuDNN reads the lengths from device
// memory, one int32 array per (device, batch, steps) made once and kept for the process (so
// later calls, captures included, copy nothing from the host).
#include <cudnn.h>
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/cudnn.h"
#include "cuda/cudnn_api.h"
#include "cuda/stream.h"

namespace genesis::cuda {

namespace {

// clang-format off
#define GENESIS_RNN_FUNCTIONS(X)                                              \
  X(cudnnCreateRNNDescriptor) X(cudnnDestroyRNNDescriptor)                    \
  X(cudnnSetRNNDescriptor_v8) X(cudnnCreateRNNDataDescriptor)                 \
  X(cudnnDestroyRNNDataDescriptor) X(cudnnSetRNNDataDescriptor)               \
  X(cudnnCreateTensorDescriptor) X(cudnnDestroyTensorDescriptor)              \
  X(cudnnSetTensorNdDescriptor) X(cudnnGetRNNWeightSpaceSize)                 \
  X(cudnnGetRNNWeightParams) X(cudnnGetRNNTempSpaceSizes) X(cudnnRNNForward)  \
  X(cudnnRNNBackwardData_v8) X(cudnnRNNBackwardWeights_v8) X(cudnnGetErrorString)
// clang-format on

// The RNN functions of the loaded library (null where it lacks one).
struct RnnApi {
#define GENESIS_DECLARE(name) decltype(&::name) name = nullptr;
  GENESIS_RNN_FUNCTIONS(GENESIS_DECLARE)
#undef GENESIS_DECLARE
  bool complete = false;
};

const RnnApi& rnn_api(const char* op) {
  static const RnnApi api = [op] {
    RnnApi a;
    void* lib = cudnn::library(op);
    bool all = true;
#define GENESIS_RESOLVE(name)                                      \
  a.name = reinterpret_cast<decltype(&::name)>(dlsym(lib, #name)); \
  all = all && a.name != nullptr;
    GENESIS_RNN_FUNCTIONS(GENESIS_RESOLVE)
#undef GENESIS_RESOLVE
    a.complete = all;
    return a;
  }();
  return api;
}

void check(cudnnStatus_t s, const char* call, const char* op) {
  GENESIS_CHECK(s == CUDNN_STATUS_SUCCESS, op, call,
                " failed: ", rnn_api(op).cudnnGetErrorString(s));
}

// Descriptors destroyed with their owner.
struct RnnDescriptor {
  cudnnRNNDescriptor_t d = nullptr;
  ~RnnDescriptor() {
    if (d) rnn_api("").cudnnDestroyRNNDescriptor(d);
  }
};
struct DataDescriptor {
  cudnnRNNDataDescriptor_t d = nullptr;
  ~DataDescriptor() {
    if (d) rnn_api("").cudnnDestroyRNNDataDescriptor(d);
  }
};
struct TensorDescriptor {
  cudnnTensorDescriptor_t d = nullptr;
  ~TensorDescriptor() {
    if (d) rnn_api("").cudnnDestroyTensorDescriptor(d);
  }
};

int gates(const CudnnRnn& r) { return r.mode == CUDNN_LSTM ? 4 : r.mode == CUDNN_GRU ? 3 : 1; }
int directions(const CudnnRnn& r) { return r.bidirectional ? 2 : 1; }

cudnnDataType_t data_type(ScalarType t) {
  switch (t) {
    case ScalarType::Float16:
      return CUDNN_DATA_HALF;
    case ScalarType::BFloat16:
      return CUDNN_DATA_BFLOAT16;
    case ScalarType::Float64:
      return CUDNN_DATA_DOUBLE;
    default:
      return CUDNN_DATA_FLOAT;
  }
}

cudnnStatus_t describe(const RnnApi& a, cudnnRNNDescriptor_t d, const CudnnRnn& r) {
  const bool dbl = r.dtype == ScalarType::Float64;
  const cudnnMathType_t math = dbl ? CUDNN_DEFAULT_MATH
                               : r.dtype != ScalarType::Float32
                                   ? CUDNN_TENSOR_OP_MATH
                                   : (r.allow_tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH);
  // projSize == hiddenSize: no recurrent projection; no dropout descriptor: no dropout.
  return a.cudnnSetRNNDescriptor_v8(
      d, CUDNN_RNN_ALGO_STANDARD, static_cast<cudnnRNNMode_t>(r.mode),
      r.bias ? CUDNN_RNN_DOUBLE_BIAS : CUDNN_RNN_NO_BIAS,
      r.bidirectional ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT,
      data_type(r.dtype), dbl ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT, math, r.input_size,
      r.hidden_size, r.hidden_size, r.num_layers, nullptr, CUDNN_RNN_PADDED_IO_ENABLED);
}

auto key_of(const CudnnRnn& r) {
  return std::make_tuple(static_cast<int>(r.dtype), r.mode, r.input_size, r.hidden_size,
                         r.num_layers, r.bidirectional, r.bias, r.allow_tf32, r.device);
}

// The full-length sequence lengths on the device (Note [Recurrences through cuDNN]).
const int32_t* device_lengths(int device, int batch, int steps) {
  static std::mutex mutex;
  static auto* kept = new std::map<std::tuple<int, int, int>, void*>();  // never freed
  std::lock_guard<std::mutex> lock(mutex);
  void*& at = (*kept)[{device, batch, steps}];
  if (at == nullptr) {
    std::vector<int32_t> host(static_cast<size_t>(batch), steps);
    GENESIS_CUDA_CHECK(cudaMalloc(&at, host.size() * sizeof(int32_t)));
    GENESIS_CUDA_CHECK(
        cudaMemcpy(at, host.data(), host.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
  }
  return static_cast<const int32_t*>(at);
}

// What one call of r over (steps, batch) hands cuDNN.
struct Setup {
  RnnDescriptor rnn;
  DataDescriptor x, y;
  TensorDescriptor h, c;
  size_t weight_bytes = 0;
  const int32_t* lengths = nullptr;

  Setup(const RnnApi& a, const CudnnRnn& r, int steps, int batch, cudnnHandle_t handle,
        const char* op) {
    check(a.cudnnCreateRNNDescriptor(&rnn.d), "cudnnCreateRNNDescriptor", op);
    check(describe(a, rnn.d, r), "cudnnSetRNNDescriptor_v8", op);
    const std::vector<int> host_lengths(static_cast<size_t>(batch), steps);
    const int d = directions(r);
    for (auto [desc, width] : {std::pair{&x, r.input_size}, std::pair{&y, d * r.hidden_size}}) {
      check(a.cudnnCreateRNNDataDescriptor(&desc->d), "cudnnCreateRNNDataDescriptor", op);
      check(a.cudnnSetRNNDataDescriptor(desc->d, data_type(r.dtype),
                                        CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, steps, batch,
                                        width, host_lengths.data(), nullptr),
            "cudnnSetRNNDataDescriptor", op);
    }
    const int dims[3] = {r.num_layers * d, batch, r.hidden_size};
    const int strides[3] = {batch * r.hidden_size, r.hidden_size, 1};
    for (TensorDescriptor* desc : {&h, &c}) {
      check(a.cudnnCreateTensorDescriptor(&desc->d), "cudnnCreateTensorDescriptor", op);
      check(a.cudnnSetTensorNdDescriptor(desc->d, data_type(r.dtype), 3, dims, strides),
            "cudnnSetTensorNdDescriptor", op);
    }
    check(a.cudnnGetRNNWeightSpaceSize(handle, rnn.d, &weight_bytes), "cudnnGetRNNWeightSpaceSize",
          op);
    lengths = device_lengths(r.device, batch, steps);
  }
};

// Copies each gate matrix and bias of `tensors` (weights' layout, cuda/cudnn_rnn.h) into the
// cuDNN buffer `space` (into_space) or out of it into them.
void transfer(const RnnApi& a, const Setup& s, const CudnnRnn& r, cudnnHandle_t handle,
              const std::vector<const Tensor*>& tensors, void* space, bool into_space,
              cudaStream_t stream, const char* op) {
  const int g = gates(r), per = r.bias ? 4 : 2;
  const int64_t h = r.hidden_size;
  const size_t item = itemsize(r.dtype);
  TensorDescriptor m, b;
  check(a.cudnnCreateTensorDescriptor(&m.d), "cudnnCreateTensorDescriptor", op);
  check(a.cudnnCreateTensorDescriptor(&b.d), "cudnnCreateTensorDescriptor", op);
  auto copy = [&](void* at_space, const Tensor& t, size_t offset, size_t bytes) {
    char* at_tensor = static_cast<char*>(const_cast<void*>(t.data())) + offset;
    GENESIS_CUDA_CHECK(cudaMemcpyAsync(into_space ? at_space : at_tensor,
                                       into_space ? at_tensor : at_space, bytes,
                                       cudaMemcpyDeviceToDevice, stream));
  };
  const int pseudo_layers = r.num_layers * directions(r);
  for (int p = 0; p < pseudo_layers; ++p) {
    for (int l = 0; l < 2 * g; ++l) {
      void* m_at = nullptr;
      void* b_at = nullptr;
      check(a.cudnnGetRNNWeightParams(handle, s.rnn.d, p, s.weight_bytes, space, l, m.d, &m_at, b.d,
                                      &b_at),
            "cudnnGetRNNWeightParams", op);
      const int gate = l % g;
      const Tensor& w = *tensors[static_cast<size_t>(p * per + (l < g ? 0 : 1))];
      const size_t cols = static_cast<size_t>(w.sizes()[1]);
      copy(m_at, w, gate * h * cols * item, h * cols * item);
      if (r.bias) {
        const Tensor& bias = *tensors[static_cast<size_t>(p * per + (l < g ? 2 : 3))];
        copy(b_at, bias, gate * h * item, h * item);
      }
    }
  }
}

void* address(const Tensor* t) { return t ? const_cast<void*>(t->data()) : nullptr; }

}  // namespace

bool cudnn_rnn_usable(const CudnnRnn& r, const char* op) {
  if (!cudnn_available() || r.input_size <= 0 || r.hidden_size <= 0 || r.num_layers <= 0)
    return false;
  static std::mutex mutex;
  static std::map<decltype(key_of(r)), bool> answers;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = answers.find(key_of(r));
  if (it != answers.end()) return it->second;
  const RnnApi& a = rnn_api(op);
  bool usable = a.complete;
  if (usable) {
    cudnn::Session session(r.device, op);
    RnnDescriptor d;
    size_t bytes = 0;
    usable = a.cudnnCreateRNNDescriptor(&d.d) == CUDNN_STATUS_SUCCESS &&
             describe(a, d.d, r) == CUDNN_STATUS_SUCCESS &&
             a.cudnnGetRNNWeightSpaceSize(reinterpret_cast<cudnnHandle_t>(session.handle()), d.d,
                                          &bytes) == CUDNN_STATUS_SUCCESS;
  }
  answers.emplace(key_of(r), usable);
  return usable;
}

RnnForward cudnn_rnn_forward(const CudnnRnn& r, const Tensor& x, const Tensor& hx, const Tensor* cx,
                             const TensorRefs& weights, bool training, const char* op) {
  const RnnApi& a = rnn_api(op);
  const int steps = static_cast<int>(x.sizes()[0]), batch = static_cast<int>(x.sizes()[1]);
  const Device device = x.device();
  cudnn::Session session(r.device, op);
  auto handle = reinterpret_cast<cudnnHandle_t>(session.handle());
  auto stream = reinterpret_cast<cudaStream_t>(current_stream(r.device));
  Setup s(a, r, steps, batch, handle, op);
  RnnForward out;
  out.weight_space =
      Tensor::empty({static_cast<int64_t>(s.weight_bytes)}, ScalarType::UInt8, device);
  transfer(a, s, r, handle, weights, out.weight_space.mutable_data(), true, stream, op);
  const cudnnForwardMode_t mode = training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE;
  size_t work_bytes = 0, reserve_bytes = 0;
  check(a.cudnnGetRNNTempSpaceSizes(handle, s.rnn.d, mode, s.x.d, &work_bytes, &reserve_bytes),
        "cudnnGetRNNTempSpaceSizes", op);
  const int64_t d = directions(r), h = r.hidden_size;
  out.y = Tensor::empty({steps, batch, d * h}, r.dtype, device);
  out.hy = Tensor::empty(hx.sizes(), r.dtype, device);
  if (cx != nullptr) out.cy = Tensor::empty(cx->sizes(), r.dtype, device);
  if (training && reserve_bytes > 0)
    out.reserve = Tensor::empty({static_cast<int64_t>(reserve_bytes)}, ScalarType::UInt8, device);
  Tensor work;
  if (work_bytes > 0)
    work = Tensor::empty({static_cast<int64_t>(work_bytes)}, ScalarType::UInt8, device);
  check(a.cudnnRNNForward(handle, s.rnn.d, mode, s.lengths, s.x.d, x.data(), s.y.d,
                          out.y.mutable_data(), s.h.d, hx.data(), out.hy.mutable_data(), s.c.d,
                          address(cx), cx ? out.cy.mutable_data() : nullptr, s.weight_bytes,
                          out.weight_space.data(), work_bytes,
                          work.defined() ? work.mutable_data() : nullptr,
                          out.reserve.defined() ? reserve_bytes : 0,
                          out.reserve.defined() ? out.reserve.mutable_data() : nullptr),
        "cudnnRNNForward", op);
  return out;
}

RnnBackward cudnn_rnn_backward(const CudnnRnn& r, const Tensor& x, const Tensor& hx,
                               const Tensor* cx, const Tensor& y, const Tensor& dy,
                               const Tensor* dhy, const Tensor* dcy, const TensorRefs& weights,
                               const Tensor& weight_space, const Tensor& reserve, const char* op) {
  const RnnApi& a = rnn_api(op);
  const int steps = static_cast<int>(x.sizes()[0]), batch = static_cast<int>(x.sizes()[1]);
  const Device device = x.device();
  cudnn::Session session(r.device, op);
  auto handle = reinterpret_cast<cudnnHandle_t>(session.handle());
  auto stream = reinterpret_cast<cudaStream_t>(current_stream(r.device));
  Setup s(a, r, steps, batch, handle, op);
  GENESIS_CHECK(static_cast<size_t>(weight_space.numel()) == s.weight_bytes, op,
                "the packed weights do not match the layer (", weight_space.numel(), " bytes, ",
                s.weight_bytes, " expected)");
  size_t work_bytes = 0, reserve_bytes = 0;
  check(a.cudnnGetRNNTempSpaceSizes(handle, s.rnn.d, CUDNN_FWD_MODE_TRAINING, s.x.d, &work_bytes,
                                    &reserve_bytes),
        "cudnnGetRNNTempSpaceSizes", op);
  GENESIS_CHECK(static_cast<size_t>(reserve.numel()) == reserve_bytes, op,
                "the backward needs the reserve space of a training forward");
  Tensor work;
  if (work_bytes > 0)
    work = Tensor::empty({static_cast<int64_t>(work_bytes)}, ScalarType::UInt8, device);
  void* work_at = work.defined() ? work.mutable_data() : nullptr;
  RnnBackward out;
  out.dx = Tensor::empty(x.sizes(), r.dtype, device);
  out.dhx = Tensor::empty(hx.sizes(), r.dtype, device);
  if (cx != nullptr) out.dcx = Tensor::empty(cx->sizes(), r.dtype, device);
  void* reserve_at = const_cast<void*>(reserve.data());
  check(a.cudnnRNNBackwardData_v8(
            handle, s.rnn.d, s.lengths, s.y.d, y.data(), dy.data(), s.x.d, out.dx.mutable_data(),
            s.h.d, hx.data(), address(dhy), out.dhx.mutable_data(), s.c.d, address(cx),
            address(dcy), cx ? out.dcx.mutable_data() : nullptr, s.weight_bytes,
            weight_space.data(), work_bytes, work_at, reserve_bytes, reserve_at),
        "cudnnRNNBackwardData_v8", op);
  Tensor dspace = Tensor::empty({static_cast<int64_t>(s.weight_bytes)}, ScalarType::UInt8, device);
  GENESIS_CUDA_CHECK(cudaMemsetAsync(dspace.mutable_data(), 0, s.weight_bytes, stream));
  check(a.cudnnRNNBackwardWeights_v8(handle, s.rnn.d, CUDNN_WGRAD_MODE_ADD, s.lengths, s.x.d,
                                     x.data(), s.h.d, hx.data(), s.y.d, y.data(), s.weight_bytes,
                                     dspace.mutable_data(), work_bytes, work_at, reserve_bytes,
                                     reserve_at),
        "cudnnRNNBackwardWeights_v8", op);
  std::vector<const Tensor*> targets;
  out.dweights.reserve(weights.size());
  for (const Tensor* w : weights)
    out.dweights.push_back(Tensor::empty(w->sizes(), r.dtype, device));
  for (const Tensor& t : out.dweights) targets.push_back(&t);
  transfer(a, s, r, handle, targets, dspace.mutable_data(), false, stream, op);
  return out;
}

}  // namespace genesis::cuda
