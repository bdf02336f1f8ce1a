// The fused attention in float32 (host contract in flash_attention.cuh: the launchers there
// send dtype kFloat32 here).
//
// Note [Fused attention in float32]: float32 attention keeps float32's precision, so it cannot
// take the 16-bit tensor-core products of Note [Fused attention]; these kernels multiply with
// fused multiply-adds on the CUDA cores, in the same streaming order: a block of 32 query rows
// walks over blocks of 32 keys keeping each row's running maximum and sum (the forward), or a
// block of 32 keys walks over blocks of 32 queries keeping its keys' dk and dv, adding dq to a
// float buffer with atomics (the backward, Note [Fused attention backward]). The L x S scores
// never exist in memory, only one 32 x 32 tile in shared memory, so memory stays linear in the
// sequence where the composed path's grows with L x S. Each of the 128 threads owns two rows and
// every eighth column of the tiles it computes (rows 2 (t / 8) and 2 (t / 8) + 1, columns
// t % 8 + 8 c), so a row's maximum and sum gather over eight lanes of one warp, and rows of
// shared memory are padded by one item so that the eight lanes' rows fall in different banks.
// Masks, the causal flag, grouped key heads, the log-sum-exp and dropout (each weight's keep
// bit by the rule of Note [Dropout in fused attention]) mean what they mean for the 16-bit
// kernels, so either pass can check against the other's semantics.
#include <cuda_runtime.h>

#include <cmath>

#include "kernels/dtype_traits.cuh"
#include "kernels/flash_attention.cuh"
#include "kernels/flash_tiles.cuh"
#include "vocab/attention_dropout.h"

namespace genesis::kernels {

namespace {

constexpr int kTile = 32;  // query rows and keys of a block's tiles
constexpr int kThreads = 128;
constexpr int kScoreStride = kTile + 1;
constexpr float kLog2e = 1.4426950408889634f;

template <int D>
constexpr int float_column_block() {
  return D <= 128 ? D : D / 2;  // the backward's accumulators: 192 -> 96, 256 -> 128
}

template <int D>
constexpr size_t float_forward_shared_bytes() {
  // queries, keys and values, and the weights' tile
  return (3 * static_cast<size_t>(kTile) * (D + 1) + kTile * kScoreStride) * sizeof(float);
}

template <int D>
constexpr size_t float_backward_shared_bytes() {
  // keys, values, queries and output gradients; the dropped weights' and dS's tiles (keys as
  // rows); lse and delta of the queries
  return (4 * static_cast<size_t>(kTile) * (D + 1) + 2 * kTile * kScoreStride + 2 * kTile) *
         sizeof(float);
}

// Copies `rows` rows of E items (the row stride `stride`) into a tile of kTile rows of stride
// D + 1, zero past them: the zero columns add nothing to a product, the zero rows are masked.
template <int D>
__device__ void load_rows(float* tile, const float* src, int64_t stride, int rows, int E) {
  for (int at = threadIdx.x; at < kTile * D; at += kThreads) {
    const int r = at / D, c = at % D;
    tile[r * (D + 1) + c] = r < rows && c < E ? src[r * stride + c] : 0.0f;
  }
}

// The weight's score in base-2 units (mask added), or -inf where position (i, j) is masked.
__device__ __forceinline__ float masked_score(const FlashAttentionArgs& a, float x, int64_t i,
                                              int64_t j, int64_t mask_base) {
  if (j >= a.S || i >= a.L || (a.causal && j > i)) return -INFINITY;
  if (a.mask)
    x += kLog2e * flash::mask_bias(a.mask, a.mask_dtype,
                                   mask_base + i * a.mask_stride[2] + j * a.mask_stride[3]);
  return x;
}

__device__ __forceinline__ bool kept(const FlashAttentionArgs& a, uint64_t seed, uint64_t offset,
                                     int64_t bh, int64_t i, int64_t j) {
  const philox::Words w = attention_dropout::block_words(seed, offset, bh, i, j, a.L, a.S);
  return attention_dropout::keeps(w, i, j, a.keep);
}

template <int D>
__global__ void __launch_bounds__(kThreads)
    flash_forward_float(FlashAttentionArgs a, float* out, float* lse) {
  constexpr int kStride = D + 1, kCols = D / 8;
  extern __shared__ float shared_f[];
  float* sq = shared_f;
  float* sk = sq + kTile * kStride;
  float* sv = sk + kTile * kStride;
  float* sp = sv + kTile * kStride;

  const int64_t qblocks = (a.L + kTile - 1) / kTile;
  const int64_t bh = blockIdx.x / qblocks;
  const int64_t q0 = (qblocks - 1 - blockIdx.x % qblocks) * kTile;  // most keys first
  const int64_t b = bh / a.heads, h = bh % a.heads, hk = h / a.kv_group;
  const auto* q = static_cast<const float*>(a.q) + b * a.q_stride[0] + h * a.q_stride[1];
  const auto* k = static_cast<const float*>(a.k) + b * a.k_stride[0] + hk * a.k_stride[1];
  const auto* v = static_cast<const float*>(a.v) + b * a.v_stride[0] + hk * a.v_stride[1];
  const int64_t mask_base = b * a.mask_stride[0] + h * a.mask_stride[1];
  const int group = threadIdx.x / 8, part = threadIdx.x % 8;
  const int64_t row[2] = {q0 + 2 * group, q0 + 2 * group + 1};
  const int64_t key_end = a.causal ? min(a.S, q0 + kTile) : a.S;
  const float scale2 = a.scale * kLog2e;
  uint64_t seed = a.seed, offset = a.offset;
  if (a.keep < 1.0f) {
    if (a.state) seed = a.state[0], offset += a.state[1];  // a graph's draw
    if (blockIdx.x == 0 && threadIdx.x == 0) a.rng[0] = seed, a.rng[1] = offset;
  }

  load_rows<D>(sq, q + q0 * a.q_stride[2], a.q_stride[2],
               static_cast<int>(min(static_cast<int64_t>(kTile), a.L - q0)), a.E);
  float acc[2][kCols] = {};
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
  for (int64_t k0 = 0; k0 < key_end; k0 += kTile) {
    __syncthreads();  // every thread is done with the last block's keys, values and weights
    const int keys = static_cast<int>(min(static_cast<int64_t>(kTile), a.S - k0));
    load_rows<D>(sk, k + k0 * a.k_stride[2], a.k_stride[2], keys, a.E);
    load_rows<D>(sv, v + k0 * a.v_stride[2], a.v_stride[2], keys, a.E);
    __syncthreads();

    float s[2][4] = {};
#pragma unroll 8
    for (int d = 0; d < D; ++d) {
      const float x0 = sq[(2 * group) * kStride + d], x1 = sq[(2 * group + 1) * kStride + d];
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const float y = sk[(part + 8 * c) * kStride + d];
        s[0][c] = fmaf(x0, y, s[0][c]);
        s[1][c] = fmaf(x1, y, s[1][c]);
      }
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float top = m[r];
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        s[r][c] = masked_score(a, s[r][c] * scale2, row[r], k0 + part + 8 * c, mask_base);
        top = fmaxf(top, s[r][c]);
      }
      top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 1));
      top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 2));
      top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 4));
      const float rescale = top == -INFINITY ? 1.0f : exp2f(m[r] - top);
      m[r] = top;
      l[r] *= rescale;
#pragma unroll
      for (int c = 0; c < kCols; ++c) acc[r][c] *= rescale;
      const float base = top == -INFINITY ? 0.0f : top;
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        float p = exp2f(s[r][c] - base);  // 0 for masked items
        l[r] += p;
        if (a.keep < 1.0f)
          p = kept(a, seed, offset, bh, row[r], k0 + part + 8 * c) ? p * a.keep_scale : 0.0f;
        sp[(2 * group + r) * kScoreStride + part + 8 * c] = p;
      }
    }
    __syncthreads();  // the weights' tile is in

#pragma unroll 4
    for (int j = 0; j < kTile; ++j) {
      const float p0 = sp[(2 * group) * kScoreStride + j];
      const float p1 = sp[(2 * group + 1) * kScoreStride + j];
#pragma unroll
      for (int c = 0; c < kCols; ++c) {
        const float y = sv[j * kStride + part + 8 * c];
        acc[0][c] = fmaf(p0, y, acc[0][c]);
        acc[1][c] = fmaf(p1, y, acc[1][c]);
      }
    }
  }

#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 4);
    if (row[r] >= a.L) continue;
    const float inv = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
    if (part == 0) lse[bh * a.L + row[r]] = l[r] > 0.0f ? (m[r] + log2f(l[r])) / kLog2e : -INFINITY;
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      const int col = part + 8 * c;
      if (col < a.E) out[(bh * a.L + row[r]) * a.E + col] = acc[r][c] * inv;
    }
  }
}

// delta[r] = sum_c dout[r, c] * out[r, c] over the rows of (batch, heads, L): one warp a row.
__global__ void flash_delta_float(FlashAttentionArgs a, const float* out, const float* dout,
                                  int64_t ds0, int64_t ds1, int64_t ds2, float* delta) {
  const int64_t r = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (r >= a.batch * a.heads * a.L) return;
  const int64_t bh = r / a.L, i = r % a.L, b = bh / a.heads, h = bh % a.heads;
  const float* o = out + r * a.E;
  const float* g = dout + b * ds0 + h * ds1 + i * ds2;
  float sum = 0.0f;
  for (int c = lane; c < a.E; c += 32) sum = fmaf(o[c], g[c], sum);
#pragma unroll
  for (int w = 16; w > 0; w /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, w);
  if (lane == 0) delta[r] = sum;
}

template <int D>
__global__ void __launch_bounds__(kThreads)
    flash_backward_float(FlashAttentionArgs a, FlashAttentionGrads g) {
  constexpr int kStride = D + 1, kBlockCols = float_column_block<D>(), kCols = kBlockCols / 8;
  extern __shared__ float shared_f[];
  float* sk = shared_f;
  float* sv = sk + kTile * kStride;
  float* sq = sv + kTile * kStride;
  float* sdo = sq + kTile * kStride;
  float* spd = sdo + kTile * kStride;       // dropped weights, keys as rows
  float* sds = spd + kTile * kScoreStride;  // dS, keys as rows
  float* slse = sds + kTile * kScoreStride;
  float* sdelta = slse + kTile;

  constexpr int kChunks = D / kBlockCols;
  const int64_t kblocks = (a.S + kTile - 1) / kTile;
  const int64_t chunk = blockIdx.x % kChunks;
  const int64_t kb = (blockIdx.x / kChunks) % kblocks;
  const int64_t bh = blockIdx.x / kChunks / kblocks;
  const int64_t b = bh / a.heads, h = bh % a.heads, hk = h / a.kv_group;
  const int64_t k0 = kb * kTile;
  const int c0 = static_cast<int>(chunk) * kBlockCols;
  const auto* k = static_cast<const float*>(a.k) + b * a.k_stride[0] + hk * a.k_stride[1];
  const auto* v = static_cast<const float*>(a.v) + b * a.v_stride[0] + hk * a.v_stride[1];
  const auto* q = static_cast<const float*>(a.q) + b * a.q_stride[0] + h * a.q_stride[1];
  const auto* dout =
      static_cast<const float*>(g.dout) + b * g.dout_stride[0] + h * g.dout_stride[1];
  const int64_t mask_base = b * a.mask_stride[0] + h * a.mask_stride[1];
  // This thread's two keys (tile rows 2 group, 2 group + 1) and every eighth query / column;
  // in the dq product its two queries (tile rows 2 group, 2 group + 1) and every eighth column.
  const int group = threadIdx.x / 8, part = threadIdx.x % 8;
  const int64_t key[2] = {k0 + 2 * group, k0 + 2 * group + 1};
  const float scale2 = a.scale * kLog2e;
  const bool dropout = a.keep < 1.0f;
  const uint64_t seed = dropout ? a.rng[0] : 0, offset = dropout ? a.rng[1] : 0;

  const int keys = static_cast<int>(min(static_cast<int64_t>(kTile), a.S - k0));
  load_rows<D>(sk, k + k0 * a.k_stride[2], a.k_stride[2], keys, a.E);
  load_rows<D>(sv, v + k0 * a.v_stride[2], a.v_stride[2], keys, a.E);

  float dk[2][kCols] = {}, dv[2][kCols] = {};
  const int64_t first = a.causal ? k0 : 0;  // under a causal mask queries before k0 see none
  for (int64_t q0 = first; q0 < a.L; q0 += kTile) {
    __syncthreads();  // every thread is done with the last block's queries and tiles
    const int rows = static_cast<int>(min(static_cast<int64_t>(kTile), a.L - q0));
    load_rows<D>(sq, q + q0 * a.q_stride[2], a.q_stride[2], rows, a.E);
    load_rows<D>(sdo, dout + q0 * g.dout_stride[2], g.dout_stride[2], rows, a.E);
    for (int i = threadIdx.x; i < kTile; i += kThreads) {
      slse[i] = i < rows ? g.lse[bh * a.L + q0 + i] * kLog2e : -INFINITY;
      sdelta[i] = i < rows ? g.delta[bh * a.L + q0 + i] : 0.0f;
    }
    __syncthreads();

    // P^T and dP^T = v dout^T for this thread's keys and queries part + 8 c
    float p[2][4] = {}, dp[2][4] = {};
#pragma unroll 8
    for (int d = 0; d < D; ++d) {
      const float k0d = sk[(2 * group) * kStride + d], k1d = sk[(2 * group + 1) * kStride + d];
      const float v0d = sv[(2 * group) * kStride + d], v1d = sv[(2 * group + 1) * kStride + d];
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const float qd = sq[(part + 8 * c) * kStride + d];
        const float gd = sdo[(part + 8 * c) * kStride + d];
        p[0][c] = fmaf(k0d, qd, p[0][c]);
        p[1][c] = fmaf(k1d, qd, p[1][c]);
        dp[0][c] = fmaf(v0d, gd, dp[0][c]);
        dp[1][c] = fmaf(v1d, gd, dp[1][c]);
      }
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const int il = part + 8 * c;
        const int64_t i = q0 + il;
        const float x = masked_score(a, p[r][c] * scale2, i, key[r], mask_base);
        // lse = -inf (every key of the row masked) gives P = 0, as exp2(x + inf) would not
        const float w = x == -INFINITY || slse[il] == -INFINITY ? 0.0f : exp2f(x - slse[il]);
        const bool keep =
            !dropout || (i < a.L && key[r] < a.S && kept(a, seed, offset, bh, i, key[r]));
        const float scaled = dropout ? a.keep_scale : 1.0f;
        spd[(2 * group + r) * kScoreStride + il] = keep ? w * scaled : 0.0f;
        sds[(2 * group + r) * kScoreStride + il] =
            w * ((keep ? dp[r][c] * scaled : 0.0f) - sdelta[il]);
      }
    }
    __syncthreads();  // the weights' and dS's tiles are in

    // dv += Pd^T dout[:, chunk], dk += dS^T q[:, chunk] for this thread's keys
#pragma unroll 4
    for (int i = 0; i < kTile; ++i) {
      const float w0 = spd[(2 * group) * kScoreStride + i],
                  w1 = spd[(2 * group + 1) * kScoreStride + i];
      const float s0 = sds[(2 * group) * kScoreStride + i],
                  s1 = sds[(2 * group + 1) * kScoreStride + i];
#pragma unroll
      for (int c = 0; c < kCols; ++c) {
        const int col = c0 + part + 8 * c;
        const float gd = sdo[i * kStride + col], qd = sq[i * kStride + col];
        dv[0][c] = fmaf(w0, gd, dv[0][c]);
        dv[1][c] = fmaf(w1, gd, dv[1][c]);
        dk[0][c] = fmaf(s0, qd, dk[0][c]);
        dk[1][c] = fmaf(s1, qd, dk[1][c]);
      }
    }

    // dq[queries 2 group, 2 group + 1][chunk] += scale dS k
    float dq[2][kCols] = {};
#pragma unroll 4
    for (int j = 0; j < kTile; ++j) {
      const float s0 = sds[j * kScoreStride + 2 * group],
                  s1 = sds[j * kScoreStride + 2 * group + 1];
#pragma unroll
      for (int c = 0; c < kCols; ++c) {
        const float kd = sk[j * kStride + c0 + part + 8 * c];
        dq[0][c] = fmaf(s0, kd, dq[0][c]);
        dq[1][c] = fmaf(s1, kd, dq[1][c]);
      }
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int64_t i = q0 + 2 * group + r;
      if (i >= a.L) continue;
#pragma unroll
      for (int c = 0; c < kCols; ++c) {
        const int col = c0 + part + 8 * c;
        if (col < a.E) atomicAdd(g.dq_accum + (bh * a.L + i) * a.E + col, dq[r][c] * a.scale);
      }
    }
  }

  auto* dk_out = static_cast<float*>(g.dk);
  auto* dv_out = static_cast<float*>(g.dv);
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    if (key[r] >= a.S) continue;
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      const int col = c0 + part + 8 * c;
      if (col < a.E) {
        dk_out[(bh * a.S + key[r]) * a.E + col] = dk[r][c] * a.scale;
        dv_out[(bh * a.S + key[r]) * a.E + col] = dv[r][c];
      }
    }
  }
}

template <int D>
void forward_float(const FlashAttentionArgs& a, float* out, float* lse, cudaStream_t stream) {
  const int64_t blocks = a.batch * a.heads * ((a.L + kTile - 1) / kTile);
  if (blocks == 0) return;
  constexpr size_t bytes = float_forward_shared_bytes<D>();
  cudaFuncSetAttribute(flash_forward_float<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(bytes));
  flash_forward_float<D><<<static_cast<unsigned>(blocks), kThreads, bytes, stream>>>(a, out, lse);
}

template <int D>
void backward_float(const FlashAttentionArgs& a, const FlashAttentionGrads& g,
                    cudaStream_t stream) {
  const int64_t rows = a.batch * a.heads * a.L;
  if (rows > 0) {
    const int64_t warps_per_block = 8;
    const int64_t blocks = (rows + warps_per_block - 1) / warps_per_block;
    flash_delta_float<<<static_cast<unsigned>(blocks), 32 * warps_per_block, 0, stream>>>(
        a, static_cast<const float*>(g.out), static_cast<const float*>(g.dout), g.dout_stride[0],
        g.dout_stride[1], g.dout_stride[2], g.delta);
  }
  const int64_t blocks =
      a.batch * a.heads * ((a.S + kTile - 1) / kTile) * (D / float_column_block<D>());
  if (blocks == 0) return;
  constexpr size_t bytes = float_backward_shared_bytes<D>();
  cudaFuncSetAttribute(flash_backward_float<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(bytes));
  flash_backward_float<D><<<static_cast<unsigned>(blocks), kThreads, bytes, stream>>>(a, g);
}

}  // namespace

void launch_flash_attention_forward_float(const FlashAttentionArgs& a, void* out, float* lse,
                                          void* stream) {
  flash::with_head_dim(a.E, [&](auto d) {
    forward_float<decltype(d)::value>(a, static_cast<float*>(out), lse,
                                      static_cast<cudaStream_t>(stream));
  });
}

void launch_flash_attention_backward_float(const FlashAttentionArgs& a,
                                           const FlashAttentionGrads& g, void* stream) {
  flash::with_head_dim(a.E, [&](auto d) {
    backward_float<decltype(d)::value>(a, g, static_cast<cudaStream_t>(stream));
  });
}

}  // namespace genesis::kernels
