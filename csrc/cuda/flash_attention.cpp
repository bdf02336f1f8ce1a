#include "cuda/flash_attention.h"

#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"
#include "kernels/flash_attention.cuh"

namespace genesis::cuda {

namespace {

void strides_of(const Tensor& t, int64_t (&out)[3]) {
  for (int i = 0; i < 3; ++i) out[i] = t.strides()[i];
}

kernels::FlashAttentionArgs args_of(const FlashAttentionOperands& o) {
  kernels::FlashAttentionArgs a{};
  a.dtype = static_cast<int>(o.q.dtype());
  a.batch = o.q.sizes()[0];
  a.heads = o.q.sizes()[1];
  a.kv_group = o.k.sizes()[1] > 0 ? a.heads / o.k.sizes()[1] : 1;
  a.L = o.q.sizes()[2];
  a.S = o.k.sizes()[2];
  a.E = static_cast<int>(o.q.sizes()[3]);
  a.q = o.q.data();
  a.k = o.k.data();
  a.v = o.v.data();
  strides_of(o.q, a.q_stride);
  strides_of(o.k, a.k_stride);
  strides_of(o.v, a.v_stride);
  a.mask = o.mask.defined() ? o.mask.data() : nullptr;
  a.mask_dtype = o.mask.defined() ? static_cast<int>(o.mask.dtype()) : -1;
  for (int i = 0; i < 4; ++i)
    a.mask_stride[i] = o.mask.defined() && o.mask.sizes()[i] != 1 ? o.mask.strides()[i] : 0;
  a.scale = static_cast<float>(o.scale);
  a.causal = o.causal;
  if (o.dropout_p > 0) {
    a.keep = static_cast<float>(1 - o.dropout_p);
    a.keep_scale = static_cast<float>(1 / (1 - o.dropout_p));
    a.seed = o.draw.seed;
    a.offset = o.draw.offset;
    a.state = o.draw.state;
    a.rng = static_cast<uint64_t*>(o.rng.mutable_data());
  }
  return a;
}

void* stream_for(int device) { return reinterpret_cast<void*>(current_stream(device)); }

}  // namespace

bool flash_attention_supported(int device) {
  DeviceGuard guard(device);
  return kernels::flash_attention_device_supported(device);
}

void flash_attention_forward(const FlashAttentionOperands& o, const Tensor& out,
                             const Tensor& lse) {
  const int device = o.q.device().index;
  DeviceGuard guard(device);
  kernels::launch_flash_attention_forward(
      args_of(o), out.mutable_data(), static_cast<float*>(lse.mutable_data()), stream_for(device));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void flash_attention_backward(const FlashAttentionOperands& o, const Tensor& out,
                              const Tensor& dout, const Tensor& lse, const Tensor& delta,
                              const Tensor& dq_accum, const Tensor& dk, const Tensor& dv) {
  const int device = o.q.device().index;
  DeviceGuard guard(device);
  kernels::FlashAttentionGrads g{};
  g.out = out.data();
  g.dout = dout.data();
  strides_of(dout, g.dout_stride);
  g.lse = static_cast<const float*>(lse.data());
  g.delta = static_cast<float*>(delta.mutable_data());
  g.dq_accum = static_cast<float*>(dq_accum.mutable_data());
  g.dk = dk.mutable_data();
  g.dv = dv.mutable_data();
  kernels::launch_flash_attention_backward(args_of(o), g, stream_for(device));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda
