// The fused attention forward pass (host contract in flash_attention.cuh).
//
// Note [Fused attention]: softmax(q k^T * scale + mask) v is computed one block of 64 query rows
// at a time (a thread block of four warps, 16 rows each) streaming over blocks of keys, so the
// L x S scores never exist in memory, only one 64 x 32 tile of them in registers (Note [Fused
// attention tiles]); the next key block loads (cp.async) while this one is computed, and only
// blocks at an edge (past L or S, across the causal diagonal, or with a mask) look at each
// score's position. Per key block the warp multiplies its query rows by the keys on tensor
// cores (float accumulators, Note [Fragments of m16n8k16] in flash_tiles.cuh), masks and
// scales the scores into base-2 units, and keeps the running softmax of each row: its maximum m
// and the sum l of 2^(x - m); when a block raises m the output so far and l are rescaled by
// 2^(m_old - m_new), so the result is exact without a second pass. The weights 2^(x - m),
// rounded to 16 bits, multiply the value block straight from the accumulator registers. At the
// end each row is divided by l and its log-sum-exp (m + log2 l, in natural units) is kept for
// the backward pass, which recomputes the weights from it instead of storing them. A row whose
// keys are all masked (or with no keys) has l = 0: its output is zero and its lse -inf, the
// math backend's safe softmax. Under a causal mask key blocks past the block's last query are
// skipped, and the last query blocks (the most keys) are launched first. Dropout (Note [Dropout
// in fused attention] in vocab/attention_dropout.h) drops the rounded weights' multiplicands,
// never the sum l.
#include <cuda_runtime.h>

#include <cmath>

#include "kernels/dtype_traits.cuh"
#include "kernels/flash_attention.cuh"
#include "kernels/flash_dropout.cuh"
#include "kernels/flash_tiles.cuh"
#include "vocab/attention_dropout.h"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 128;  // 4 warps
constexpr float kLog2e = 1.4426950408889634f;

// Note [Fused attention tiles]: a block holds 64 query rows (16 per warp) and streams over KB
// keys at a time, with at least MINB resident blocks per SM (the register budget). Measured on
// an H200 (bf16, causal, forward at B 4, H 16, S 4096, d 128): KB 32 with 4 blocks 1.70 ms; KB
// 64 with the query fragments kept in registers (2 blocks) 2.39 ms; 32 rows per warp (each key
// fragment feeds two query tiles, but half the resident warps) 2.42-2.55 ms: resident warps
// hide the latency of the dependent ldmatrix -> mma -> exp2 chains better than reuse does.
constexpr int kRows = 64;

template <int D, int KB>
constexpr size_t forward_shared_bytes() {
  // the query block and two buffers of keys and values (the next block loads during this one)
  return static_cast<size_t>(kRows + 4 * KB) * (D + 8) * sizeof(uint16_t);
}

// kDropout: a variant of its own, so that the kernels without dropout keep their registers.
template <typename T, int D, int KB, int MINB, bool kDropout>
__global__ void __launch_bounds__(kThreads, MINB)
    flash_forward(FlashAttentionArgs a, uint16_t* out, float* lse, bool vec) {
  constexpr int kKeys = KB, kStride = D + 8;
  constexpr int kScoreTiles = kKeys / 8, kOutTiles = D / 8;
  constexpr int kTile = kKeys * kStride;
  extern __shared__ __align__(16) uint16_t shared[];
  uint16_t* sq = shared;
  uint16_t* skv = sq + kRows * kStride;  // [buffer][keys, values]

  const int64_t qblocks = (a.L + kRows - 1) / kRows;
  const int64_t bh = blockIdx.x / qblocks;
  const int64_t q0 = (qblocks - 1 - blockIdx.x % qblocks) * kRows;
  const int64_t b = bh / a.heads, h = bh % a.heads, hk = h / a.kv_group;
  const auto* q = static_cast<const uint16_t*>(a.q) + b * a.q_stride[0] + h * a.q_stride[1] +
                  q0 * a.q_stride[2];
  const auto* k = static_cast<const uint16_t*>(a.k) + b * a.k_stride[0] + hk * a.k_stride[1];
  const auto* v = static_cast<const uint16_t*>(a.v) + b * a.v_stride[0] + hk * a.v_stride[1];
  const int64_t mask_base = b * a.mask_stride[0] + h * a.mask_stride[1];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_row = warp * 16;  // the warp's first row in the block
  const int64_t row[2] = {q0 + warp_row + lane / 4, q0 + warp_row + lane / 4 + 8};
  const int64_t key_end = a.causal ? min(a.S, q0 + kRows) : a.S;
  uint64_t seed = a.seed, offset = a.offset;
  if constexpr (kDropout) {
    if (a.state) seed = a.state[0], offset += a.state[1];  // a graph's draw
    if (blockIdx.x == 0 && threadIdx.x == 0) a.rng[0] = seed, a.rng[1] = offset;
  }

  auto load_keys = [&](int64_t k0, int buffer) {
    const int keys = static_cast<int>(min(static_cast<int64_t>(kKeys), a.S - k0));
    uint16_t* sk = skv + buffer * 2 * kTile;
    flash::load_tile_async<kKeys, D>(sk, k + k0 * a.k_stride[2], a.k_stride[2], keys, a.E, vec);
    flash::load_tile_async<kKeys, D>(sk + kTile, v + k0 * a.v_stride[2], a.v_stride[2], keys, a.E,
                                     vec);
  };
  flash::load_tile_async<kRows, D>(
      sq, q, a.q_stride[2], static_cast<int>(min(static_cast<int64_t>(kRows), a.L - q0)), a.E, vec);
  if (key_end > 0) load_keys(0, 0);
  flash::async_commit();

  float acc[kOutTiles][4] = {};
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
  const float scale2 = a.scale * kLog2e;
  int buffer = 0;
  for (int64_t k0 = 0; k0 < key_end; k0 += kKeys, buffer ^= 1) {
    flash::async_wait_all();
    __syncthreads();  // this block's keys are in; every warp is done with the other buffer
    if (k0 + kKeys < key_end) load_keys(k0 + kKeys, buffer ^ 1);
    flash::async_commit();
    const uint16_t* sk = skv + buffer * 2 * kTile;
    const uint16_t* sv = sk + kTile;

    float s[kScoreTiles][4] = {};
    flash::rows_times_rows<T, D>(s, sq, kStride, warp_row, sk, kStride, lane);

    // Scores in base-2 units; only blocks that reach past S or L, cross the causal diagonal of
    // this warp's rows or have a mask look at each item.
    const bool edge = k0 + kKeys > a.S || a.mask != nullptr || q0 + kRows > a.L ||
                      (a.causal && k0 + kKeys - 1 > q0 + warp_row);
    float top[2] = {m[0], m[1]};
#pragma unroll
    for (int n = 0; n < kScoreTiles; ++n) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float x = s[n][e] * scale2;
        if (edge) {
          const int64_t i = row[e / 2], j = k0 + n * 8 + 2 * (lane % 4) + e % 2;
          const bool keep = j < a.S && i < a.L && !(a.causal && j > i);
          if (keep && a.mask)
            x += kLog2e * flash::mask_bias(a.mask, a.mask_dtype,
                                           mask_base + i * a.mask_stride[2] + j * a.mask_stride[3]);
          x = keep ? x : -INFINITY;
        }
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
    const float base[2] = {m[0] == -INFINITY ? 0.0f : m[0], m[1] == -INFINITY ? 0.0f : m[1]};
#pragma unroll
    for (int n = 0; n < kScoreTiles; ++n) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float p = exp2f(s[n][e] - base[e / 2]);  // exp2(-inf) = 0 for masked items
        s[n][e] = p;
        l[e / 2] += p;
      }
    }
    if constexpr (kDropout) {
      // The weights' 2 x 2 blocks: this lane holds keys j, j + 1 of rows row[0] and row[1], the
      // lane four apart those of the rows beside them; this lane draws the block of row[own].
      const int own = (lane >> 2) & 1;  // row[0]'s parity
#pragma unroll
      for (int n = 0; n < kScoreTiles; ++n) {
        const int64_t j = k0 + n * 8 + 2 * (lane % 4);
        const philox::Words w =
            attention_dropout::block_words(seed, offset, bh, own ? row[1] : row[0], j, a.L, a.S);
        uint32_t bits[2];
        flash::traded_keep_bits<true>(w, own, a.keep, bits[0], bits[1]);
#pragma unroll
        for (int r = 0; r < 2; ++r) {
#pragma unroll
          for (int c = 0; c < 2; ++c)
            s[n][2 * r + c] = bits[r] >> c & 1u ? s[n][2 * r + c] * a.keep_scale : 0.0f;
        }
      }
    }
    flash::accumulators_times_columns<T, kKeys>(acc, s, sv, kStride, 0, lane);
  }
  flash::async_wait_all();  // nothing may be left in flight at exit

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
  constexpr int kKeys = 32, kMinBlocks = D <= 128 ? 4 : 1;
  const int64_t qblocks = (a.L + kRows - 1) / kRows;
  const int64_t blocks = a.batch * a.heads * qblocks;
  if (blocks == 0) return;
  const bool vec = flash::moves_in_pieces(a.q, a.q_stride, 3, a.E) &&
                   flash::moves_in_pieces(a.k, a.k_stride, 3, a.E) &&
                   flash::moves_in_pieces(a.v, a.v_stride, 3, a.E);
  constexpr size_t bytes = forward_shared_bytes<D, kKeys>();
  // Dropout's Philox calls need registers: one resident block fewer (at d 128, four spilled).
  auto kernel = a.keep < 1.0f
                    ? flash_forward<T, D, kKeys, (kMinBlocks > 1 ? kMinBlocks - 1 : 1), true>
                    : flash_forward<T, D, kKeys, kMinBlocks, false>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(bytes));
  kernel<<<static_cast<unsigned>(blocks), kThreads, bytes, stream>>>(a, static_cast<uint16_t*>(out),
                                                                     lse, vec);
}

}  // namespace

void launch_flash_attention_forward(const FlashAttentionArgs& a, void* out, float* lse,
                                    void* stream) {
  if (a.dtype == kFloat32) return launch_flash_attention_forward_float(a, out, lse, stream);
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
  if (cudaFuncGetAttributes(&attributes, flash_forward<__half, 64, 32, 4, false>) != cudaSuccess)
    return false;
  return attributes.binaryVersion >= 80 || attributes.ptxVersion >= 80;
}

}  // namespace genesis::kernels
