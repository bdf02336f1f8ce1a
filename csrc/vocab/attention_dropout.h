#pragma once
// Note [Dropout in fused attention]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// scaled_dot_product_attention(dropout_p=p) drops attention weights: out = (P * M / (1 - p)) v
// with P the softmax and M a keep mask drawn per weight. The fused kernels never store P or M:
// the forward draws each weight's keep bit as it computes the weight, and the backward draws
// the same bit again from the same Philox counter. The draws go by 2 x 2 blocks of the
// (B, H, L, S) weights: the weight (bh, i, j) takes Philox counter
//   offset + (bh * ceil(L / 2) + i / 2) * ceil(S / 2) + j / 2
// (key: the generator's seed) and is kept iff word 2 (i % 2) + j % 2 of the four, as a uniform
// float in [0, 1) (philox::uniform_float), is below float(1 - p). A block of 2 x 2 fits both
// kernels' register layouts (Note [Fragments of m16n8k16]): in the forward a lane holds two
// neighbouring keys of a query row, in the backward two neighbouring queries of a key, and the
// lane four apart holds the block's other two weights (the neighbouring row, or key). So each
// of the two draws the block of one of its two rows (keys) and hands the other lane the two
// keep bits it needs (one shuffle): one Philox call per four weights. A call reserves
// B H ceil(L/2) ceil(S/2) counters of the generator (a graph's capture draws from the graph's,
// Note [Random ops in graphs]). Kept weights are scaled by float(1 / (1 - p)); the softmax's
// sum and the saved log-sum-exp are those of the undropped weights, and the backward is
//   dv = (P M / (1 - p))^T dout,  dP = M / (1 - p) * (dout v^T),  dS = P (dP - delta)
// with delta_i = sum_c dout[i, c] out[i, c] as without dropout. The forward kernel writes the
// (seed, offset) it drew with into a two-item device tensor that the backward reads, so a
// captured forward and backward replay with the same draws. This header holds the rule; the
// CPU builds masks from it for tests (ops::attention_dropout_mask).
#include <cstdint>

#include "vocab/host_device.h"
#include "vocab/philox.h"

namespace genesis::attention_dropout {

// The four words of the 2 x 2 block holding weight (bh, i, j) of (.., L, S) weights.
GENESIS_HD philox::Words block_words(uint64_t seed, uint64_t offset, int64_t bh, int64_t i,
                                     int64_t j, int64_t L, int64_t S) {
  const int64_t block = (bh * ((L + 1) / 2) + i / 2) * ((S + 1) / 2) + j / 2;
  return philox::philox4x32_10(offset + static_cast<uint64_t>(block), seed);
}

// Whether the weight that draws `word` is kept.
GENESIS_HD bool kept_by(uint32_t word, float keep) {
  return philox::uniform_float(word, 1.0f) < keep;
}

// Whether weight (i, j) of its block is kept.
GENESIS_HD bool keeps(const philox::Words& r, int64_t i, int64_t j, float keep) {
  return kept_by(r.w[2 * (i & 1) + (j & 1)], keep);
}

// The counters one call reserves.
GENESIS_HD int64_t counters(int64_t bh, int64_t L, int64_t S) {
  return bh * ((L + 1) / 2) * ((S + 1) / 2);
}

}  // namespace genesis::attention_dropout
