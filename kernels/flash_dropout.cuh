#pragma once
// The keep bits of the fused attention's dropout as the two lanes of a pair trade them (Note
// [Dropout in fused attention] in vocab/attention_dropout.h).
#include <cstdint>

#include "vocab/attention_dropout.h"

namespace genesis::kernels::flash {

// A lane holds the items of two rows r = 0, 1 (the forward: kRows) or two keys (the backward),
// eight apart, so both of one parity `own`; the lane four apart holds those of the other parity,
// and each 2 x 2 block is split between the two. Each lane drew one block, `w`: the block of
// its row (key) r = own. Returns the keep bits of the lane's items in row (key) 0 (bits0) and 1
// (bits1), bit c being the c-th item along the block's other dim: one from w, the other traded
// from the other lane's block. Every lane of the warp must call it.
template <bool kRows>
__device__ __forceinline__ void traded_keep_bits(const philox::Words& w, int own, float keep,
                                                 uint32_t& bits0, uint32_t& bits1) {
  uint32_t mine = 0, theirs = 0;
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    const int m = kRows ? 2 * own + c : 2 * c + own;
    const int t = kRows ? 2 * (1 - own) + c : 2 * c + 1 - own;
    mine |= static_cast<uint32_t>(attention_dropout::kept_by(w.w[m], keep)) << c;
    theirs |= static_cast<uint32_t>(attention_dropout::kept_by(w.w[t], keep)) << c;
  }
  const uint32_t other = __shfl_xor_sync(0xffffffffu, theirs, 4);
  bits0 = own ? other : mine;
  bits1 = own ? mine : other;
}

}  // namespace genesis::kernels::flash
