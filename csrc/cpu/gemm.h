#pragma once
// The blocked float32/float64 GEMM behind CPU matmul (Note [CPU GEMM] in gemm.cpp). Plain
// pointers and element strides, so it can be tested and timed without the tensor machinery.
#include <cstdint>

namespace genesis::cpu {

// Items of one of a product's dims laid out in segments (Note [Convolution over shifted
// windows] in convolution.cpp): item i of the dim lies at offsets[i / length] + (i % length) *
// stride, so that a convolution's shifted windows are one product without copying them out.
// length 0: no segments (item i at i * stride).
struct GemmSegments {
  const int64_t* offsets = nullptr;
  int64_t length = 0;
};

// Float32/float64 products of at most this many rows by a column-major B (a Linear's weight.T),
// and of at most four by a row-major one, run without packing (Note [Products of a few rows] in
// gemm.cpp).
constexpr int64_t kGemmFewRows = 8;

// Whether a product of m rows by a B of these element strides takes that path: the rule above
// for float32/float64; for bfloat16, at most four rows by a column-major B on an AVX-512 CPU.
bool gemm_few_rows(bool bfloat16, int64_t m, int64_t b_row_stride, int64_t b_col_stride);

// c[b] = a[b] @ b[b] for b in [0, batch): c is contiguous (batch, m, n); a is (batch, m, k) with
// element strides a_strides = {batch, row, col}, b is (batch, k, n) likewise. Any strides work,
// 0 included (broadcast). k == 0 writes zeros. Runs on the CPU's threads.
void gemm(float* c, const float* a, const int64_t a_strides[3], const float* b,
          const int64_t b_strides[3], int64_t batch, int64_t m, int64_t n, int64_t k);
void gemm(double* c, const double* a, const int64_t a_strides[3], const double* b,
          const int64_t b_strides[3], int64_t batch, int64_t m, int64_t n, int64_t k);

// bfloat16 operands (their bits), a float32 C, on the CPU's AMX tile unit (Note [bfloat16
// products on AMX] in gemm.cpp). Returns false, computing nothing, where there is none.
bool gemm_bfloat16(float* c, const uint16_t* a, const int64_t a_strides[3], const uint16_t* b,
                   const int64_t b_strides[3], int64_t batch, int64_t m, int64_t n, int64_t k);
// The same with a bfloat16 C, each sum rounded once, for k <= 512 (one slice of k: the sums never
// leave the tiles unrounded); false, computing nothing, for a longer k or without the tile unit.
// Both also take products of at most four rows by a column-major B on AVX-512 CPUs without the
// tile unit (Note [Products of a few rows]), any k.
bool gemm_bfloat16_rounded(uint16_t* c, const uint16_t* a, const int64_t a_strides[3],
                           const uint16_t* b, const int64_t b_strides[3], int64_t batch, int64_t m,
                           int64_t n, int64_t k);

// c[b] = a[b] @ b[b] as gemm() above, with A's k dim and B's n dim in segments (either may have
// none). B's segments must be whole column panels: gemm_segment_panel() divides their length.
// Never the few-row path.
void gemm_segmented(float* c, const float* a, const int64_t a_strides[3], GemmSegments a_k,
                    const float* b, const int64_t b_strides[3], GemmSegments b_n, int64_t batch,
                    int64_t m, int64_t n, int64_t k);
void gemm_segmented(double* c, const double* a, const int64_t a_strides[3], GemmSegments a_k,
                    const double* b, const int64_t b_strides[3], GemmSegments b_n, int64_t batch,
                    int64_t m, int64_t n, int64_t k);
// The same for bfloat16 operands (their bits) into a float32 C, by pairs of k (Note [bfloat16
// products by pairs] in gemm.cpp), where gemm_segmented_bfloat16_usable() says the CPU has
// AVX512-BF16; raises otherwise.
bool gemm_segmented_bfloat16_usable();
void gemm_segmented_bfloat16(float* c, const uint16_t* a, const int64_t a_strides[3],
                             GemmSegments a_k, const uint16_t* b, const int64_t b_strides[3],
                             GemmSegments b_n, int64_t batch, int64_t m, int64_t n, int64_t k);
// The column panel width of the segmented product of this element size (2: bfloat16 by pairs),
// which B's segment lengths must be multiples of.
int64_t gemm_segment_panel(int element_bytes);

}  // namespace genesis::cpu
