// Note [Multi-tensor steps]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// An optimizer step reads and writes every parameter and state once; it is bound by memory
// bandwidth, and over hundreds of tensors a launch per tensor (or per op per tensor) would cost
// more in launches than in memory traffic. So one launch steps up to StepTable::kMaxTensors
// tensors: the table of their addresses, sizes and factors is the kernel's parameter itself
// (__grid_constant__, read from the constant bank, no copy to the device beforehand, and so
// also captured whole by a CUDA graph). Each tensor is cut into chunks of kStepChunk elements,
// block b takes global chunk b, and finds its tensor by a binary search over the chunks' prefix
// sums. A tensor whose pointers are all 16-byte aligned (any tensor that starts its storage) is
// read and written in 16-byte packs; the rest of it, and unaligned tensors, one element at a
// time.
//
// Measured on an H200 (AdamW over 124M float32 parameters in 210 tensors, tools/
// step_kernel_sweep.cu, CUDA events, session 24): this kernel takes 0.91 ms (3.84 TB/s of the
// 28 bytes a parameter moves), one flat buffer per operand streamed by a grid-stride loop
// 0.87 ms (3.99 TB/s: the ceiling for these bytes), torch's fused kernels 1.00 ms (8 launches
// of 126 us). None of 256/512/128 threads, chunks of 8K-64K elements, two or four packs loaded
// per thread before computing, or streaming cache hints (__ldcs/__stcs) beat it by more than
// 3%; four packs of 512 threads was 15% slower. So the kernel is at the memory's floor, and
// what is left of a step is host work before the launch (Note [Optimizer steps] in
// ops/optimizer_step.cpp).
#include <cuda_runtime.h>

#include <type_traits>

#include "kernels/dtype_traits.cuh"
#include "kernels/multi_tensor.cuh"
#include "kernels/optimizer_step.cuh"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;

// Steps V elements at `at` (of each of p, g and the states), T items held as compute type C.
template <typename T, typename G, typename C, int kStates, int V, typename Update>
__device__ __forceinline__ void step_pack(const Update& update, T* p, const G* g, T* const* s,
                                          G* narrow, int64_t at) {
  using P = Pack<T, V>;
  using GP = Pack<G, V>;
  P pp = *reinterpret_cast<const P*>(p + at);
  GP gp = *reinterpret_cast<const GP*>(g + at);
  P sp[kStates];
#pragma unroll
  for (int k = 0; k < kStates; ++k)
    if (s[k] != nullptr) sp[k] = *reinterpret_cast<const P*>(s[k] + at);
#pragma unroll
  for (int e = 0; e < V; ++e) {
    C pv = convert<C>(pp.v[e]);
    C sv[kStates];
#pragma unroll
    for (int k = 0; k < kStates; ++k) sv[k] = s[k] != nullptr ? convert<C>(sp[k].v[e]) : C(0);
    update(pv, convert<C>(gp.v[e]), sv);
    pp.v[e] = convert<T>(pv);
#pragma unroll
    for (int k = 0; k < kStates; ++k)
      if (s[k] != nullptr) sp[k].v[e] = convert<T>(sv[k]);
  }
  *reinterpret_cast<P*>(p + at) = pp;
#pragma unroll
  for (int k = 0; k < kStates; ++k)
    if (s[k] != nullptr) *reinterpret_cast<P*>(s[k] + at) = sp[k];
  if constexpr (!std::is_same_v<G, T>) {
    if (narrow != nullptr) {
      GP np;
#pragma unroll
      for (int e = 0; e < V; ++e) np.v[e] = convert<G>(pp.v[e]);
      *reinterpret_cast<GP*>(narrow + at) = np;
    }
  }
}

// The rule with the learning rate read from the device where the call gives one there (Note
// [Capturable steps]).
template <typename Rule>
__device__ __forceinline__ Rule rule_on_device(const Rule& rule, const StepTable& table) {
  Rule r = rule;
  if constexpr (Rule::kLrOnDevice)
    if (table.lr != nullptr)
      r.lr = table.lr_is_double ? *static_cast<const double*>(table.lr)
                                : double{*static_cast<const float*>(table.lr)};
  return r;
}

// Tensor t's scalar states (Note [Capturable steps]), as an array a rule's functions take.
struct ScalarStates {
  float* data[StepTable::kMaxDeviceStates];
};
__device__ __forceinline__ ScalarStates scalar_states(const StepTable& table, int t) {
  ScalarStates out;
#pragma unroll
  for (int k = 0; k < StepTable::kMaxDeviceStates; ++k) out.data[k] = table.scalar_states[k][t];
  return out;
}

// Tensor t's update: from the host's factors, or (Note [Capturable steps]) from its count, its
// scalar states and the learning rate on the device.
template <typename C, typename Rule>
__device__ __forceinline__ auto tensor_update(const Rule& rule, const StepTable& table, int t) {
  const Rule r = rule_on_device(rule, table);
  if constexpr (Rule::kCountsOnDevice) {
    if (table.counts[t] != nullptr) {
      if constexpr (DeviceStatesOf<Rule>::value > 0) {
        return r.template update<C>(r.factors(*table.counts[t], scalar_states(table, t).data));
      } else {
        return r.template update<C>(r.factors(*table.counts[t]));
      }
    }
  }
  return r.template update<C>(table.factors[t]);
}

// Before a capturable step (Note [Capturable steps]), one thread per tensor: its count + 1, and
// its scalar states advanced where the step reads the advanced values.
template <typename Rule>
__global__ void count_step(const __grid_constant__ StepTable table, const Rule rule) {
  const int t = static_cast<int>(threadIdx.x);
  if (t >= table.tensors) return;
  const float count = *table.counts[t] += 1;
  if constexpr (DeviceStatesOf<Rule>::value > 0) {
    if constexpr (!Rule::kAdvanceAfterStep)
      rule_on_device(rule, table).advance(count, scalar_states(table, t).data);
  }
}

// After a capturable step whose rule advances its scalar states afterwards: one thread per
// tensor.
template <typename Rule>
__global__ void advance_after_step(const __grid_constant__ StepTable table, const Rule rule) {
  const int t = static_cast<int>(threadIdx.x);
  if (t < table.tensors)
    rule_on_device(rule, table).advance(*table.counts[t], scalar_states(table, t).data);
}

// G: the gradients' type, T's except under master weights (T float, G 16-bit), where the
// narrow slot (data[2 + kStates], else null) receives each stepped value rounded to G.
template <typename T, typename G, typename C, typename Rule>
__global__ void __launch_bounds__(kThreads)
    multi_tensor_step(const __grid_constant__ StepTable table, const Rule rule) {
  const int64_t chunk = blockIdx.x;
  const int t = chunk_owner(table.first_chunk, table.tensors, chunk);
  const int64_t begin = (chunk - table.first_chunk[t]) * kStepChunk;
  const int64_t rest = table.numel[t] - begin;
  const int64_t n = rest < kStepChunk ? rest : kStepChunk;
  const int states = table.states;
  T* p = static_cast<T*>(table.data[0][t]) + begin;
  const G* g = static_cast<const G*>(table.data[1][t]) + begin;
  void* narrow_base = table.data[2 + Rule::kStates][t];
  G* narrow = narrow_base != nullptr ? static_cast<G*>(narrow_base) + begin : nullptr;
  T* s[Rule::kStates];
  uintptr_t addresses = reinterpret_cast<uintptr_t>(p) | reinterpret_cast<uintptr_t>(g) |
                        reinterpret_cast<uintptr_t>(narrow);
#pragma unroll
  for (int k = 0; k < Rule::kStates; ++k) {
    void* state = k < states ? table.data[2 + k][t] : nullptr;  // null: not held, reads 0
    s[k] = state != nullptr ? static_cast<T*>(state) + begin : nullptr;
    addresses |= reinterpret_cast<uintptr_t>(s[k]);
  }
  const auto update = tensor_update<C>(rule, table, t);
  constexpr int V = 16 / sizeof(T);
  const int64_t packed = addresses % 16 == 0 ? n / V * V : 0;
  for (int64_t at = int64_t{threadIdx.x} * V; at < packed; at += int64_t{kThreads} * V)
    step_pack<T, G, C, Rule::kStates, V>(update, p, g, s, narrow, at);
  for (int64_t at = packed + threadIdx.x; at < n; at += kThreads)
    step_pack<T, G, C, Rule::kStates, 1>(update, p, g, s, narrow, at);
}

// Calls go(T, G, C) with the stepped values' type T, the gradients' G and the compute type C.
template <typename Go>
void step_by_dtype(const Go& go, int dtype, int grad_dtype) {
  if (grad_dtype != dtype) {  // master weights: float32 values, 16-bit gradients
    if (grad_dtype == kFloat16) return go(float{}, __half{}, float{});
    return go(float{}, __nv_bfloat16{}, float{});
  }
  switch (dtype) {
    case kFloat16:
      return go(__half{}, __half{}, float{});
    case kBFloat16:
      return go(__nv_bfloat16{}, __nv_bfloat16{}, float{});
    case kFloat32:
      return go(float{}, float{}, float{});
    default:
      return go(double{}, double{}, double{});
  }
}

template <typename Rule>
void launch(const StepTable& table, const Rule& rule, int dtype, int grad_dtype, void* stream) {
  unsigned blocks = static_cast<unsigned>(table.first_chunk[table.tensors]);
  if (blocks == 0) return;
  auto cuda_stream = static_cast<cudaStream_t>(stream);
  // Counts on the device (all or none of a table's): incremented first (Note [Capturable steps]).
  const bool counted = Rule::kCountsOnDevice && table.counts[0] != nullptr;
  if (counted) count_step<<<1, StepTable::kMaxTensors, 0, cuda_stream>>>(table, rule);
  auto go = [&](auto t, auto g, auto c) {
    multi_tensor_step<decltype(t), decltype(g), decltype(c), Rule>
        <<<blocks, kThreads, 0, cuda_stream>>>(table, rule);
  };
  step_by_dtype(go, dtype, grad_dtype);
  if constexpr (DeviceStatesOf<Rule>::value > 0) {
    if constexpr (Rule::kAdvanceAfterStep)
      if (counted) advance_after_step<<<1, StepTable::kMaxTensors, 0, cuda_stream>>>(table, rule);
  }
}

}  // namespace

void launch_sgd_step(const StepTable& table, const SgdRule& rule, int dtype, int grad_dtype,
                     void* stream) {
  launch(table, rule, dtype, grad_dtype, stream);
}

void launch_adam_step(const StepTable& table, const AdamRule& rule, int dtype, int grad_dtype,
                      void* stream) {
  launch(table, rule, dtype, grad_dtype, stream);
}

void launch_rmsprop_step(const StepTable& table, const RmspropRule& rule, int dtype, int grad_dtype,
                         void* stream) {
  launch(table, rule, dtype, grad_dtype, stream);
}

void launch_adagrad_step(const StepTable& table, const AdagradRule& rule, int dtype, int grad_dtype,
                         void* stream) {
  launch(table, rule, dtype, grad_dtype, stream);
}

void launch_adamax_step(const StepTable& table, const AdamaxRule& rule, int dtype, int grad_dtype,
                        void* stream) {
  launch(table, rule, dtype, grad_dtype, stream);
}

void launch_adadelta_step(const StepTable& table, const AdadeltaRule& rule, int dtype,
                          int grad_dtype, void* stream) {
  launch(table, rule, dtype, grad_dtype, stream);
}

void launch_nadam_step(const StepTable& table, const NadamRule& rule, int dtype, int grad_dtype,
                       void* stream) {
  launch(table, rule, dtype, grad_dtype, stream);
}

void launch_radam_step(const StepTable& table, const RadamRule& rule, int dtype, int grad_dtype,
                       void* stream) {
  launch(table, rule, dtype, grad_dtype, stream);
}

void launch_lion_step(const StepTable& table, const LionRule& rule, int dtype, int grad_dtype,
                      void* stream) {
  launch(table, rule, dtype, grad_dtype, stream);
}

void launch_rprop_step(const StepTable& table, const RpropRule& rule, int dtype, int grad_dtype,
                       void* stream) {
  launch(table, rule, dtype, grad_dtype, stream);
}

void launch_asgd_step(const StepTable& table, const AsgdRule& rule, int dtype, int grad_dtype,
                      void* stream) {
  launch(table, rule, dtype, grad_dtype, stream);
}

}  // namespace genesis::kernels
