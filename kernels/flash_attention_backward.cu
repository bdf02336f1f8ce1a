// The fused attention backward pass (host contract in flash_attention.cuh).
//
// Note [Fused attention backward]: with P = softmax(S) recomputed from the forward's lse
// (P = exp(S - lse), Note [Fused attention]) and delta_i = sum_c dout[i, c] out[i, c], the
// gradients are dv = P^T dout, dS = P * (dout v^T - delta), dq = scale dS k and
// dk = scale dS^T q. A thread block owns 64 keys (four warps of 16) and streams over blocks of
// 32 queries, keeping its keys' dk and dv rows in registers; each warp works on the transposed
// scores S^T (its 16 keys as rows) so that P^T and dS^T feed the dv and dk products from the
// accumulator registers. dq, which sums over every key block, is added to a float buffer with
// atomics after one shared-memory round trip of dS (32 x 64 items), so its summation order,
// and its last bits, can change between runs. Head dims above 128 are split over blocks of 128
// output columns (the products that need the whole head dim are then recomputed per block) so
// that the accumulators fit in registers. Under a causal mask the query blocks before the
// block's first key are skipped. The next block of queries loads (cp.async) while this one is
// computed. Measured on an H200 (bf16, causal, B 4, H 16, S 4096, d 128, backward about 6.4
// ms): blocks of 64 output columns (more resident warps, S and dP computed twice) 8.6-9.5 ms;
// dq from a second kernel over query blocks (no atomics, S and dP computed twice) 5.8 ms at
// d 128 but slower at d 64, not worth a second kernel. Dropout (Note [Dropout in fused
// attention] in vocab/attention_dropout.h) draws each weight's keep bit again from the forward's
// counters: dv takes the dropped weights, dS the undropped ones times the dropped dP.
#include <cuda_runtime.h>

#include <cmath>

#include "kernels/dtype_traits.cuh"
#include "kernels/flash_attention.cuh"
#include "kernels/flash_dropout.cuh"
#include "kernels/flash_tiles.cuh"
#include "vocab/attention_dropout.h"

namespace genesis::kernels {

namespace {

constexpr int kKeyBlock = 64;  // 4 warps x 16 keys
constexpr int kQueries = 32;
constexpr int kThreads = 128;
constexpr int kScoreStride = kKeyBlock + 8;
constexpr float kLog2e = 1.4426950408889634f;

template <int D>
constexpr int column_block() {
  return D <= 128 ? D : D / 2;  // 192 -> 96, 256 -> 128
}

template <int D>
constexpr size_t backward_shared_bytes() {
  // keys and values, two buffers of queries and output gradients, dS, lse and delta per buffer
  return static_cast<size_t>(2 * kKeyBlock + 4 * kQueries) * (D + 8) * sizeof(uint16_t) +
         static_cast<size_t>(kQueries) * kScoreStride * sizeof(uint16_t) +
         4 * kQueries * sizeof(float);
}

// delta[r] = sum_c dout[r, c] * out[r, c] over the rows of (batch, heads, L): one warp a row.
template <typename T>
__global__ void flash_delta(FlashAttentionArgs a, const uint16_t* out, const uint16_t* dout,
                            int64_t ds0, int64_t ds1, int64_t ds2, float* delta) {
  const int64_t r = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (r >= a.batch * a.heads * a.L) return;
  const int64_t bh = r / a.L, i = r % a.L, b = bh / a.heads, h = bh % a.heads;
  const uint16_t* o = out + r * a.E;
  const uint16_t* g = dout + b * ds0 + h * ds1 + i * ds2;
  float sum = 0.0f;
  for (int c = lane; c < a.E; c += 32) sum += flash::float_of<T>(o[c]) * flash::float_of<T>(g[c]);
#pragma unroll
  for (int w = 16; w > 0; w /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, w);
  if (lane == 0) delta[r] = sum;
}

// kDropout: a variant of its own, so that the kernels without dropout keep their registers.
template <typename T, int D, bool kDropout>
__global__ void __launch_bounds__(kThreads)
    flash_backward(FlashAttentionArgs a, FlashAttentionGrads g, bool vec) {
  constexpr int kStride = D + 8, kCols = column_block<D>(), kColTiles = kCols / 8;
  constexpr int kScoreTiles = kQueries / 8;
  constexpr int kQTile = kQueries * kStride;
  extern __shared__ __align__(16) uint16_t shared[];
  uint16_t* sk = shared;
  uint16_t* sv = sk + kKeyBlock * kStride;
  uint16_t* sqo = sv + kKeyBlock * kStride;  // [buffer][queries, output gradients]
  uint16_t* sds = sqo + 4 * kQTile;          // dS, queries as rows
  float* sstat = reinterpret_cast<float*>(sds + kQueries * kScoreStride);  // [buffer][lse, delta]

  constexpr int kChunks = D / kCols;
  const int64_t kblocks = (a.S + kKeyBlock - 1) / kKeyBlock;
  const int64_t chunk = blockIdx.x % kChunks;
  const int64_t kb = (blockIdx.x / kChunks) % kblocks;
  const int64_t bh = blockIdx.x / kChunks / kblocks;
  const int64_t b = bh / a.heads, h = bh % a.heads, hk = h / a.kv_group;
  const int64_t k0 = kb * kKeyBlock;
  const int c0 = static_cast<int>(chunk) * kCols;
  const auto* k = static_cast<const uint16_t*>(a.k) + b * a.k_stride[0] + hk * a.k_stride[1];
  const auto* v = static_cast<const uint16_t*>(a.v) + b * a.v_stride[0] + hk * a.v_stride[1];
  const auto* q = static_cast<const uint16_t*>(a.q) + b * a.q_stride[0] + h * a.q_stride[1];
  const auto* dout =
      static_cast<const uint16_t*>(g.dout) + b * g.dout_stride[0] + h * g.dout_stride[1];
  const int64_t mask_base = b * a.mask_stride[0] + h * a.mask_stride[1];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t key[2] = {k0 + warp * 16 + lane / 4, k0 + warp * 16 + lane / 4 + 8};
  const float scale2 = a.scale * kLog2e;
  const uint64_t seed = kDropout ? a.rng[0] : 0, offset = kDropout ? a.rng[1] : 0;

  const int keys = static_cast<int>(min(static_cast<int64_t>(kKeyBlock), a.S - k0));
  flash::load_tile_async<kKeyBlock, D>(sk, k + k0 * a.k_stride[2], a.k_stride[2], keys, a.E, vec);
  flash::load_tile_async<kKeyBlock, D>(sv, v + k0 * a.v_stride[2], a.v_stride[2], keys, a.E, vec);
  auto load_queries = [&](int64_t q0, int buffer) {
    const int rows = static_cast<int>(min(static_cast<int64_t>(kQueries), a.L - q0));
    uint16_t* sq = sqo + buffer * 2 * kQTile;
    flash::load_tile_async<kQueries, D>(sq, q + q0 * a.q_stride[2], a.q_stride[2], rows, a.E, vec);
    flash::load_tile_async<kQueries, D>(sq + kQTile, dout + q0 * g.dout_stride[2], g.dout_stride[2],
                                        rows, a.E, vec);
    float* stat = sstat + buffer * 2 * kQueries;
    for (int i = threadIdx.x; i < kQueries; i += kThreads) {
      const bool in = i < rows;
      stat[i] = in ? g.lse[bh * a.L + q0 + i] * kLog2e : -INFINITY;
      stat[kQueries + i] = in ? g.delta[bh * a.L + q0 + i] : 0.0f;
    }
  };

  float dk[kColTiles][4] = {}, dv[kColTiles][4] = {};
  const int64_t first = a.causal ? (k0 / kQueries) * kQueries : 0;
  if (first < a.L) load_queries(first, 0);
  flash::async_commit();
  int buffer = 0;
  for (int64_t q0 = first; q0 < a.L; q0 += kQueries, buffer ^= 1) {
    flash::async_wait_all();
    __syncthreads();  // this block's queries are in; the other buffer and dS are free
    if (q0 + kQueries < a.L) load_queries(q0 + kQueries, buffer ^ 1);
    flash::async_commit();
    const uint16_t* sq = sqo + buffer * 2 * kQTile;
    const uint16_t* sdo = sq + kQTile;
    const float* slse = sstat + buffer * 2 * kQueries;
    const float* sdelta = slse + kQueries;

    // P^T: this warp's 16 keys against the block's queries.
    float p[kScoreTiles][4] = {};
    flash::rows_times_rows<T, D>(p, sk, kStride, warp * 16, sq, kStride, lane);
    // Only blocks that reach past L or S, cross the causal diagonal of this warp's keys or have
    // a mask look at each item; lse = -inf (a row with every key masked) gives P = 0 as
    // exp2(x + inf) would not.
    const bool edge = q0 + kQueries > a.L || k0 + kKeyBlock > a.S || a.mask != nullptr ||
                      (a.causal && k0 + warp * 16 + 15 > q0);
#pragma unroll
    for (int n = 0; n < kScoreTiles; ++n) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int il = n * 8 + 2 * (lane % 4) + e % 2;
        const float lse2 = slse[il];
        float x = p[n][e] * scale2;
        bool keep = lse2 != -INFINITY;
        if (edge) {
          const int64_t i = q0 + il, j = key[e / 2];
          keep = keep && j < a.S && i < a.L && !(a.causal && j > i);
          if (keep && a.mask)
            x += kLog2e * flash::mask_bias(a.mask, a.mask_dtype,
                                           mask_base + i * a.mask_stride[2] + j * a.mask_stride[3]);
        }
        p[n][e] = keep ? exp2f(x - lse2) : 0.0f;
      }
    }

    // Dropout: this lane holds queries i, i + 1 of keys key[0] and key[1] (bit n * 4 + e of
    // `kept`), the lane four apart those of the keys beside them; this lane draws the block of
    // key[own] (Note [Dropout in fused attention]). dv takes the dropped weights.
    uint32_t kept = 0xffffffffu;
    if constexpr (kDropout) {
      kept = 0;
      const int own = (lane >> 2) & 1;  // key[0]'s parity
      float pd[kScoreTiles][4];
#pragma unroll
      for (int n = 0; n < kScoreTiles; ++n) {
        const int64_t i = q0 + n * 8 + 2 * (lane % 4);
        const philox::Words w =
            attention_dropout::block_words(seed, offset, bh, i, own ? key[1] : key[0], a.L, a.S);
        uint32_t bits[2];
        flash::traded_keep_bits<false>(w, own, a.keep, bits[0], bits[1]);
#pragma unroll
        for (int r = 0; r < 2; ++r) {
#pragma unroll
          for (int c = 0; c < 2; ++c) {
            const int e = 2 * r + c;
            kept |= (bits[r] >> c & 1u) << (n * 4 + e);
            pd[n][e] = bits[r] >> c & 1u ? p[n][e] * a.keep_scale : 0.0f;
          }
        }
      }
      // dv += (P M / (1 - p))^T dout[:, chunk]
      flash::accumulators_times_columns<T, kQueries>(dv, pd, sdo, kStride, c0, lane);
    } else {
      // dv += P^T dout[:, chunk]
      flash::accumulators_times_columns<T, kQueries>(dv, p, sdo, kStride, c0, lane);
    }

    // dP^T = v dout^T (times M / (1 - p) under dropout), then dS^T = P^T (dP^T - delta)
    float ds[kScoreTiles][4] = {};
    flash::rows_times_rows<T, D>(ds, sv, kStride, warp * 16, sdo, kStride, lane);
#pragma unroll
    for (int n = 0; n < kScoreTiles; ++n) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int il = n * 8 + 2 * (lane % 4) + e % 2;
        const float dp =
            kDropout ? (kept >> (n * 4 + e) & 1u ? ds[n][e] * a.keep_scale : 0.0f) : ds[n][e];
        ds[n][e] = p[n][e] * (dp - sdelta[il]);
        sds[il * kScoreStride + warp * 16 + lane / 4 + (e / 2) * 8] = flash::bits_of<T>(ds[n][e]);
      }
    }

    // dk += dS^T q[:, chunk]
    flash::accumulators_times_columns<T, kQueries>(dk, ds, sq, kStride, c0, lane);
    __syncthreads();  // dS is in shared memory

    // dq[q0 + 16 (warp % 2) .., chunk half warp / 2] += scale dS k
    constexpr int kHalfTiles = kColTiles / 2;
    float dq[kHalfTiles][4] = {};
    const int cw = c0 + (warp / 2) * (kCols / 2);
#pragma unroll
    for (int kk = 0; kk < kKeyBlock; kk += 16) {
      uint32_t sa[4];
      flash::load_a(sa, sds, kScoreStride, (warp % 2) * 16, kk, lane);
#pragma unroll
      for (int d = 0; d < kHalfTiles; d += 2) {
        uint32_t kb2[4];
        flash::load_b_of_columns(kb2, sk, kStride, cw + d * 8, kk, lane);
        flash::mma<T>(dq[d], sa, kb2[0], kb2[1]);
        flash::mma<T>(dq[d + 1], sa, kb2[2], kb2[3]);
      }
    }
#pragma unroll
    for (int d = 0; d < kHalfTiles; ++d) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int64_t i = q0 + (warp % 2) * 16 + lane / 4 + (e / 2) * 8;
        const int c = cw + d * 8 + 2 * (lane % 4) + e % 2;
        if (i < a.L && c < a.E)
          atomicAdd(g.dq_accum + (bh * a.L + i) * a.E + c, dq[d][e] * a.scale);
      }
    }
  }

  flash::async_wait_all();  // nothing may be left in flight at exit

  auto* dk_out = static_cast<uint16_t*>(g.dk);
  auto* dv_out = static_cast<uint16_t*>(g.dv);
#pragma unroll
  for (int d = 0; d < kColTiles; ++d) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int64_t j = key[e / 2];
      const int c = c0 + d * 8 + 2 * (lane % 4) + e % 2;
      if (j < a.S && c < a.E) {
        dk_out[(bh * a.S + j) * a.E + c] = flash::bits_of<T>(dk[d][e] * a.scale);
        dv_out[(bh * a.S + j) * a.E + c] = flash::bits_of<T>(dv[d][e]);
      }
    }
  }
}

template <typename T, int D>
void backward_typed(const FlashAttentionArgs& a, const FlashAttentionGrads& g,
                    cudaStream_t stream) {
  const int64_t rows = a.batch * a.heads * a.L;
  if (rows > 0) {
    const int64_t warps_per_block = 8;
    const int64_t blocks = (rows + warps_per_block - 1) / warps_per_block;
    flash_delta<T><<<static_cast<unsigned>(blocks), 32 * warps_per_block, 0, stream>>>(
        a, static_cast<const uint16_t*>(g.out), static_cast<const uint16_t*>(g.dout),
        g.dout_stride[0], g.dout_stride[1], g.dout_stride[2], g.delta);
  }
  const int64_t kblocks = (a.S + kKeyBlock - 1) / kKeyBlock;
  const int64_t blocks = a.batch * a.heads * kblocks * (D / column_block<D>());
  if (blocks == 0) return;
  const bool vec = flash::moves_in_pieces(a.q, a.q_stride, 3, a.E) &&
                   flash::moves_in_pieces(a.k, a.k_stride, 3, a.E) &&
                   flash::moves_in_pieces(a.v, a.v_stride, 3, a.E) &&
                   flash::moves_in_pieces(g.dout, g.dout_stride, 3, a.E);
  constexpr size_t bytes = backward_shared_bytes<D>();
  auto kernel = a.keep < 1.0f ? flash_backward<T, D, true> : flash_backward<T, D, false>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(bytes));
  kernel<<<static_cast<unsigned>(blocks), kThreads, bytes, stream>>>(a, g, vec);
}

}  // namespace

void launch_flash_attention_backward(const FlashAttentionArgs& a, const FlashAttentionGrads& g,
                                     void* stream) {
  if (a.dtype == kFloat32) return launch_flash_attention_backward_float(a, g, stream);
  auto s = static_cast<cudaStream_t>(stream);
  flash::with_head_dim(a.E, [&](auto d) {
    if (a.dtype == kBFloat16)
      backward_typed<__nv_bfloat16, decltype(d)::value>(a, g, s);
    else
      backward_typed<__half, decltype(d)::value>(a, g, s);
  });
}

}  // namespace genesis::kernels
