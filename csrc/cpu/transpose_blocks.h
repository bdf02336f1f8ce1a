#pragma once
// Square blocks of a transposing copy moved through registers (Note [Transposing blocks in
// registers] in cpu/transpose_blocks.cpp).
#include <cstdint>

namespace genesis::cpu {

// The edge of the square block transpose_block<W> moves: 8 for 1- and 2-byte items, 4 for 4-byte
// items, 2 for 8-byte items.
template <int W>
constexpr int64_t kBlockEdge = W <= 2 ? 8 : 16 / W;

// Whether transpose_block exists on this build (x86-64: SSE2); elsewhere the caller loops.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
inline constexpr bool kBlockTranspose = true;
#else
inline constexpr bool kBlockTranspose = false;
#endif

// Writes the transpose of one kBlockEdge<W> square of W-byte items: item j of output line k
// (at dst + k * dst_pitch) is item k of input line j (at src + j * src_pitch), both lines dense.
template <int W>
void transpose_block(const char* src, int64_t src_pitch, char* dst, int64_t dst_pitch);
template <>
void transpose_block<1>(const char* src, int64_t src_pitch, char* dst, int64_t dst_pitch);
template <>
void transpose_block<2>(const char* src, int64_t src_pitch, char* dst, int64_t dst_pitch);
template <>
void transpose_block<4>(const char* src, int64_t src_pitch, char* dst, int64_t dst_pitch);
template <>
void transpose_block<8>(const char* src, int64_t src_pitch, char* dst, int64_t dst_pitch);

}  // namespace genesis::cpu
