#pragma once
// Warp-level pieces of the fused attention kernels (flash_attention_forward.cu and
// flash_attention_backward.cu): tensor-core products of 16-bit tiles with float accumulators,
// the loads that feed them from shared memory, and the copy of a tile from global memory.
//
// Note [Fragments of m16n8k16]: one mma.sync.m16n8k16 multiplies a 16x16 tile A (row-major)
// by a 16x8 tile B into a 16x8 float tile C, spread over the 32 lanes of a warp. Lane l holds,
// with g = l / 4 and t = l % 4:
//   A: a[0] = A[g][2t, 2t+1], a[1] = A[g+8][2t, 2t+1], a[2] = A[g][2t+8, 2t+9],
//      a[3] = A[g+8][2t+8, 2t+9]             (two 16-bit items per 32-bit register)
//   B: b0 = B[2t, 2t+1][g], b1 = B[2t+8, 2t+9][g]
//   C: c[0], c[1] = C[g][2t, 2t+1], c[2], c[3] = C[g+8][2t, 2t+1].
// So the C tiles of two neighbouring 8-column blocks, rounded to 16 bits, are exactly the A
// fragment of the 16x16 tile they form: the attention weights computed by one product feed the
// next with no trip through shared memory. ldmatrix.x4 loads four 8x8 16-bit matrices, lane l
// giving the address of row l % 8 of matrix l / 8; lane l receives items (l / 4, 2(l % 4)) and
// (l / 4, 2(l % 4) + 1) of each, or with .trans the items (2(l % 4), l / 4) and
// (2(l % 4) + 1, l / 4): an A tile from row-major rows, a B tile from rows of B's transpose
// (plain), or from rows of B itself (.trans).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace genesis::kernels::flash {

// C += A * B on tensor cores, T = __half or __nv_bfloat16 (sm_80 and later).
template <typename T>
__device__ __forceinline__ void mma(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                    uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
#else
  __trap();  // the launchers refuse devices below sm_80
#endif
}

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Four 8x8 matrices of 16-bit items from shared memory (Note [Fragments of m16n8k16]).
__device__ __forceinline__ void ldmatrix(uint32_t (&r)[4], const uint16_t* row) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
#else
  __trap();
#endif
}

__device__ __forceinline__ void ldmatrix_trans(uint32_t (&r)[4], const uint16_t* row) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
#else
  __trap();
#endif
}

// The A fragment of rows [r0, r0 + 16) and columns [k0, k0 + 16) of a row-major tile whose rows
// are `stride` items apart.
__device__ __forceinline__ void load_a(uint32_t (&a)[4], const uint16_t* tile, int stride, int r0,
                                       int k0, int lane) {
  ldmatrix(a, tile + (r0 + lane % 16) * stride + k0 + (lane / 16) * 8);
}

// The B fragments of two 8-column blocks [n0, n0 + 16) of B = tile^T over k in [k0, k0 + 16),
// where `tile` holds B's columns as rows (B[k][n] = tile[n][k]): b[0], b[1] for columns
// [n0, n0 + 8), b[2], b[3] for [n0 + 8, n0 + 16).
__device__ __forceinline__ void load_b_of_rows(uint32_t (&b)[4], const uint16_t* tile, int stride,
                                               int n0, int k0, int lane) {
  ldmatrix(b, tile + (n0 + (lane / 16) * 8 + lane % 8) * stride + k0 + ((lane / 8) % 2) * 8);
}

// The same two B fragments where `tile` holds B itself row-major (B[k][n] = tile[k][n]).
__device__ __forceinline__ void load_b_of_columns(uint32_t (&b)[4], const uint16_t* tile,
                                                  int stride, int n0, int k0, int lane) {
  ldmatrix_trans(b, tile + (k0 + ((lane / 8) % 2) * 8 + lane % 8) * stride + n0 + (lane / 16) * 8);
}

// Two floats rounded to T, packed low item first (the column order of a fragment register).
template <typename T>
__device__ __forceinline__ uint32_t pack(float lo, float hi) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
  } else {
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
  }
}

// The A fragment of the 16x16 tile formed by two neighbouring 16x8 accumulator tiles.
template <typename T>
__device__ __forceinline__ void accumulators_as_a(uint32_t (&a)[4], const float (&left)[4],
                                                  const float (&right)[4]) {
  a[0] = pack<T>(left[0], left[1]);
  a[1] = pack<T>(left[2], left[3]);
  a[2] = pack<T>(right[0], right[1]);
  a[3] = pack<T>(right[2], right[3]);
}

// acc[n] += A B for the NT 8-column blocks of B = b^T (b's rows, from row 0, are B's columns)
// over k in [0, K), A the 16 rows of `a` from row r0; both row-major shared tiles.
template <typename T, int K, int NT>
__device__ __forceinline__ void rows_times_rows(float (&acc)[NT][4], const uint16_t* a,
                                                int a_stride, int r0, const uint16_t* b,
                                                int b_stride, int lane) {
#pragma unroll
  for (int kk = 0; kk < K; kk += 16) {
    uint32_t af[4];
    load_a(af, a, a_stride, r0, kk, lane);
#pragma unroll
    for (int n = 0; n < NT; n += 2) {
      uint32_t bf[4];
      load_b_of_rows(bf, b, b_stride, n * 8, kk, lane);
      mma<T>(acc[n], af, bf[0], bf[1]);
      mma<T>(acc[n + 1], af, bf[2], bf[3]);
    }
  }
}

// acc[d] += P B, P (16 x K) held in the accumulator tiles p, B rows [0, K) and the NT 8-column
// blocks from column c0 of a row-major shared tile.
template <typename T, int K, int NT>
__device__ __forceinline__ void accumulators_times_columns(float (&acc)[NT][4],
                                                           const float (&p)[K / 8][4],
                                                           const uint16_t* b, int stride, int c0,
                                                           int lane) {
#pragma unroll
  for (int kk = 0; kk < K / 16; ++kk) {
    uint32_t pa[4];
    accumulators_as_a<T>(pa, p[2 * kk], p[2 * kk + 1]);
#pragma unroll
    for (int d = 0; d < NT; d += 2) {
      uint32_t bf[4];
      load_b_of_columns(bf, b, stride, c0 + d * 8, kk * 16, lane);
      mma<T>(acc[d], pa, bf[0], bf[1]);
      mma<T>(acc[d + 1], pa, bf[2], bf[3]);
    }
  }
}

template <typename T>
__device__ __forceinline__ uint16_t bits_of(float v) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  else
    return __half_as_ushort(__float2half_rn(v));
}

template <typename T>
__device__ __forceinline__ float float_of(uint16_t bits) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __bfloat162float(__ushort_as_bfloat16(bits));
  else
    return __half2float(__ushort_as_half(bits));
}

// Copies rows [0, rows) x columns [0, cols) of a global tile (rows `row_stride` items apart,
// columns contiguous) into a ROWS x D shared tile whose rows are D + 8 items apart, zero past
// rows and cols. vec: cols and row_stride are multiples of 8 and g is 16-byte aligned, so
// whole 16-byte pieces move.
template <int ROWS, int D>
__device__ __forceinline__ void load_tile(uint16_t* tile, const uint16_t* g, int64_t row_stride,
                                          int rows, int cols, bool vec) {
  constexpr int kStride = D + 8;
  if (vec) {
    constexpr int kPieces = D / 8;
    for (int i = threadIdx.x; i < ROWS * kPieces; i += blockDim.x) {
      const int r = i / kPieces, c = (i % kPieces) * 8;
      uint4 v = make_uint4(0, 0, 0, 0);
      if (r < rows && c < cols) v = *reinterpret_cast<const uint4*>(g + r * row_stride + c);
      *reinterpret_cast<uint4*>(tile + r * kStride + c) = v;
    }
  } else {
    for (int i = threadIdx.x; i < ROWS * D; i += blockDim.x) {
      const int r = i / D, c = i % D;
      tile[r * kStride + c] = (r < rows && c < cols) ? g[r * row_stride + c] : uint16_t{0};
    }
  }
}

// Starts copying the same tile as load_tile when vec holds (16-byte cp.async pieces, zero-filled
// past rows and cols; the caller commits and waits), else copies it at once.
template <int ROWS, int D>
__device__ __forceinline__ void load_tile_async(uint16_t* tile, const uint16_t* g,
                                                int64_t row_stride, int rows, int cols, bool vec) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (vec) {
    constexpr int kStride = D + 8, kPieces = D / 8;
    for (int i = threadIdx.x; i < ROWS * kPieces; i += blockDim.x) {
      const int r = i / kPieces, c = (i % kPieces) * 8;
      const bool in = r < rows && c < cols;
      const uint16_t* src = in ? g + r * row_stride + c : g;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                       shared_address(tile + r * kStride + c)),
                   "l"(src), "r"(in ? 16 : 0));
    }
    return;
  }
#endif
  load_tile<ROWS, D>(tile, g, row_stride, rows, cols, vec);
}

__device__ __forceinline__ void async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits for every cp.async this thread started (the caller then synchronizes the block).
__device__ __forceinline__ void async_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group 0;\n" ::);
#endif
}

// A mask's item as a float added to a score (in natural-log units): 0 or -inf for a boolean
// mask (true keeps), the value for a float one. dtype: a DtypeCode.
__device__ __forceinline__ float mask_bias(const void* mask, int dtype, int64_t at) {
  switch (dtype) {
    case 0:  // kBool
      return static_cast<const uint8_t*>(mask)[at] ? 0.0f : -INFINITY;
    case 6:  // kFloat16
      return __half2float(static_cast<const __half*>(mask)[at]);
    case 7:  // kBFloat16
      return __bfloat162float(static_cast<const __nv_bfloat16*>(mask)[at]);
    default:  // kFloat32
      return static_cast<const float*>(mask)[at];
  }
}

// Calls f(std::integral_constant<int, D>{}) with D the head dim of the kernel built for E
// (E <= D, zero-padded up to D in shared memory).
template <typename F>
void with_head_dim(int E, F&& f) {
  if (E <= 32)
    f(std::integral_constant<int, 32>{});
  else if (E <= 64)
    f(std::integral_constant<int, 64>{});
  else if (E <= 96)
    f(std::integral_constant<int, 96>{});
  else if (E <= 128)
    f(std::integral_constant<int, 128>{});
  else if (E <= 192)
    f(std::integral_constant<int, 192>{});
  else
    f(std::integral_constant<int, 256>{});
}

// Whether the rows of a 16-bit tensor at p with these strides (items) and E columns move in
// 16-byte pieces.
inline bool moves_in_pieces(const void* p, const int64_t* strides, int n, int E) {
  if (E % 8 != 0 || reinterpret_cast<uintptr_t>(p) % 16 != 0) return false;
  for (int i = 0; i < n; ++i)
    if (strides[i] % 8 != 0) return false;
  return true;
}

}  // namespace genesis::kernels::flash
