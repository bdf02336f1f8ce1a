// The fused attention forward pass (host contract in flash_attention.cuh).
//
// Note [Fused attention]: softmax(q k^T * scale + mask) v is computed one block of 64 query rows
// at a time (a thread block of four warps, 16 rows each) streaming over blocks of keys, so the
// L x S scores never exist in memory, only one 64 x 64 (32 for head dims above 128) tile of
// them in registers. Per key block the warp multiplies its query rows by the keys on tensor
// cores (float accumulators, Note [Fragments of m16n8k16] in flash_tiles.cuh), masks and
// scales the scores into base-2 units, and keeps the running softmax of each row: its maximum m
// and the sum l of 2^(x - m); when a block raises m the output so far and l are rescaled by
// 2^(m_old - m_new), so the result is exact without a second pass. The weights 2^(x - m),
// rounded to 16 bits, multiply the value block straight from the accumulator registers. At the
// end each row is divided by l and its log-sum-exp (m + log2 l, in natural units) is kept for
// the backward pass, which recomputes the weights from it instead of storing them. A row whose
// keys are all masked (or with no keys) has l = 0: its output is zero and its lse -inf, the
// math backend's safe softmax. Under a causal mask key blocks past the block's last query are
// skipped, and the last query blocks (the most keys) are launched first.
#include <cuda_runtime.h>

#include <cmath>

#include "kernels/dtype_traits.cuh"
#include "kernels/flash_attention.cuh"
#include "kernels/flash_tiles.cuh"

namespace genesis::kernels {

namespace {

constexpr int kQueryBlock = 64;  // 4 warps x 16 rows
constexpr int kThreads = 128;
constexpr float kLog2e = 1.4426950408889634f;

template <int D>
constexpr int key_block() {
  return D <= 128 ? 64 : 32;  // the score tile and the output rows share the registers
}

template <int D>
constexpr size_t forward_shared_bytes() {
  return static_cast<size_t>(kQueryBlock + 2 * key_block<D>()) * (D + 8) * sizeof(uint16_t);
}

template <typename T, int D>
__global__ void __launch_bounds__(kThreads)
    flash_forward(FlashAttentionArgs a, uint16_t* out, float* lse, bool vec) {
  constexpr int kKeys = key_block<D>(), kStride = D + 8;
  constexpr int kScoreTiles = kKeys / 8, kOutTiles = D / 8;
  extern __shared__ __align__(16) uint16_t shared[];
  uint16_t* sq = shared;
  uint16_t* sk = sq + kQueryBlock * kStride;
  uint16_t* sv = sk + kKeys * kStride;

  const int64_t qblocks = (a.L + kQueryBlock - 1) / kQueryBlock;
  const int64_t bh = blockIdx.x / qblocks;
  const int64_t q0 = (qblocks - 1 - blockIdx.x % qblocks) * kQueryBlock;
  const int64_t b = bh / a.heads, h = bh % a.heads, hk = h / a.kv_group;
  const auto* q = static_cast<const uint16_t*>(a.q) + b * a.q_stride[0] + h * a.q_stride[1] +
                  q0 * a.q_stride[2];
  const auto* k = static_cast<const uint16_t*>(a.k) + b * a.k_stride[0] + hk * a.k_stride[1];
  const auto* v = static_cast<const uint16_t*>(a.v) + b * a.v_stride[0] + hk * a.v_stride[1];
  const int64_t mask_base = b * a.mask_stride[0] + h * a.mask_stride[1];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t row[2] = {q0 + warp * 16 + lane / 4, q0 + warp * 16 + lane / 4 + 8};

  flash::load_tile<kQueryBlock, D>(
      sq, q, a.q_stride[2], static_cast<int>(min(static_cast<int64_t>(kQueryBlock), a.L - q0)), a.E,
      vec);

  float acc[kOutTiles][4] = {};
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
  const float scale2 = a.scale * kLog2e;
  const int64_t key_end = a.causal ? min(a.S, q0 + kQueryBlock) : a.S;
  for (int64_t k0 = 0; k0 < key_end; k0 += kKeys) {
    __syncthreads();  // the previous block's keys and values are read
    const int keys = static_cast<int>(min(static_cast<int64_t>(kKeys), a.S - k0));
    flash::load_tile<kKeys, D>(sk, k + k0 * a.k_stride[2], a.k_stride[2], keys, a.E, vec);
    flash::load_tile<kKeys, D>(sv, v + k0 * a.v_stride[2], a.v_stride[2], keys, a.E, vec);
    __syncthreads();

    float s[kScoreTiles][4] = {};
#pragma unroll
    for (int kk = 0; kk < D; kk += 16) {
      uint32_t qa[4];
      flash::load_a(qa, sq, kStride, warp * 16, kk, lane);
#pragma unroll
      for (int n = 0; n < kScoreTiles; n += 2) {
        uint32_t kb[4];
        flash::load_b_of_rows(kb, sk, kStride, n * 8, kk, lane);
        flash::mma<T>(s[n], qa, kb[0], kb[1]);
        flash::mma<T>(s[n + 1], qa, kb[2], kb[3]);
      }
    }

    float top[2] = {m[0], m[1]};
#pragma unroll
    for (int n = 0; n < kScoreTiles; ++n) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int64_t i = row[e / 2], j = k0 + n * 8 + 2 * (lane % 4) + e % 2;
        const bool keep = j < a.S && i < a.L && !(a.causal && j > i);
        float x = s[n][e] * scale2;
        if (keep && a.mask)
          x += kLog2e * flash::mask_bias(a.mask, a.mask_dtype,
                                         mask_base + i * a.mask_stride[2] + j * a.mask_stride[3]);
        x = keep ? x : -INFINITY;
        s[n][e] = x;
        top[e / 2] = fmaxf(top[e / 2], x);
      }
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      top[r] = fmaxf(top[r], __shfl_xor_sync(0xffffffffu, top[r], 1));
      top[r] = fmaxf(top[r], __shfl_xor_sync(0xffffffffu, top[r], 2));
      const float rescale = top[r] == -INFINITY ? 1.0f : exp2f(m[r] - top[r]);
      m[r] = top[r];
      l[r] *= rescale;
#pragma unroll
      for (int d = 0; d < kOutTiles; ++d) {
        acc[d][2 * r] *= rescale;
        acc[d][2 * r + 1] *= rescale;
      }
    }
#pragma unroll
    for (int n = 0; n < kScoreTiles; ++n) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float mr = m[e / 2];
        const float p = mr == -INFINITY ? 0.0f : exp2f(s[n][e] - mr);
        s[n][e] = p;
        l[e / 2] += p;
      }
    }
#pragma unroll
    for (int kk = 0; kk < kKeys / 16; ++kk) {
      uint32_t pa[4];
      flash::accumulators_as_a<T>(pa, s[2 * kk], s[2 * kk + 1]);
#pragma unroll
      for (int d = 0; d < kOutTiles; d += 2) {
        uint32_t vb[4];
        flash::load_b_of_columns(vb, sv, kStride, d * 8, kk * 16, lane);
        flash::mma<T>(acc[d], pa, vb[0], vb[1]);
        flash::mma<T>(acc[d + 1], pa, vb[2], vb[3]);
      }
    }
  }

  float inv[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
    inv[r] = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
    if (lane % 4 == 0 && row[r] < a.L)
      lse[bh * a.L + row[r]] = l[r] > 0.0f ? (m[r] + log2f(l[r])) / kLog2e : -INFINITY;
  }
#pragma unroll
  for (int d = 0; d < kOutTiles; ++d) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int64_t i = row[e / 2];
      const int c = d * 8 + 2 * (lane % 4) + e % 2;
      if (i < a.L && c < a.E)
        out[(bh * a.L + i) * a.E + c] = flash::bits_of<T>(acc[d][e] * inv[e / 2]);
    }
  }
}

template <typename T, int D>
void forward_typed(const FlashAttentionArgs& a, void* out, float* lse, cudaStream_t stream) {
  const int64_t qblocks = (a.L + kQueryBlock - 1) / kQueryBlock;
  const int64_t blocks = a.batch * a.heads * qblocks;
  if (blocks == 0) return;
  const bool vec = flash::moves_in_pieces(a.q, a.q_stride, 3, a.E) &&
                   flash::moves_in_pieces(a.k, a.k_stride, 3, a.E) &&
                   flash::moves_in_pieces(a.v, a.v_stride, 3, a.E);
  constexpr size_t bytes = forward_shared_bytes<D>();
  cudaFuncSetAttribute(flash_forward<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(bytes));
  flash_forward<T, D><<<static_cast<unsigned>(blocks), kThreads, bytes, stream>>>(
      a, static_cast<uint16_t*>(out), lse, vec);
}

}  // namespace

void launch_flash_attention_forward(const FlashAttentionArgs& a, void* out, float* lse,
                                    void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  flash::with_head_dim(a.E, [&](auto d) {
    if (a.dtype == kBFloat16)
      forward_typed<__nv_bfloat16, decltype(d)::value>(a, out, lse, s);
    else
      forward_typed<__half, decltype(d)::value>(a, out, lse, s);
  });
}

bool flash_attention_device_supported(int device) {
  int major = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess)
    return false;
  if (major < 8) return false;
  // The build must hold sm_80+ code for this device (GENESIS_CUDA_ARCHITECTURES).
  cudaFuncAttributes attributes{};
  if (cudaFuncGetAttributes(&attributes, flash_forward<__half, 64>) != cudaSuccess) return false;
  return attributes.binaryVersion >= 80 || attributes.ptxVersion >= 80;
}

}  // namespace genesis::kernels
