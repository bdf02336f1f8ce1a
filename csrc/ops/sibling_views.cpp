// Note [Sibling views]
// A transformer splits one product into q, k and v (views of one buffer, equally spaced) and
// its attention backward makes their three gradients. Allocated one by one, the gradients are
// joined again by the split's backward: a cat that reads and writes the whole qkv gradient
// (GPT-2: 36 copies a step, 0.64 ms on an H100 in session 42). Allocated by
// empty_like_siblings, in one buffer laid out as the operands' own, they already sit where the
// cat would put them, and the split's backward takes the buffer as the joined gradient
// (already_joined) instead of copying. unbind's backward (a stack) does the same, for q, k and v
// taken by qkv.reshape(B, N, 3, H, D).permute(2, 0, 3, 1, 4).unbind(0) as vision transformers
// do.
//
// Siblings: n >= 2 views of one storage with one dtype, sizes and strides, at offsets
// o, o + delta, ..., o + (n - 1) delta. They share no item when their layout does not overlap
// itself and the spacing is a digit of its own between the dims: delta = stride * size of one
// dim, each larger stride at least n * delta. The new buffer holds exactly what they tile (no
// holes), so its items are all theirs.
//
// already_joined hands on a buffer only nobody else holds (its storage's references are the
// pieces' own): the joined gradient may then be accumulated into in place without touching a
// tensor a hook or retain_grad kept.
#include "ops/sibling_views.h"

#include <algorithm>

namespace genesis::ops {

namespace {

// Whether no two index tuples of (sizes, strides) give one offset: the dims of size > 1 have
// positive strides and, in stride order, each stride is at least the previous stride times its
// size.
bool non_overlapping(const Shape& sizes, const Shape& strides) {
  std::vector<size_t> dims;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] <= 1) continue;
    if (strides[d] <= 0) return false;
    dims.push_back(d);
  }
  std::sort(dims.begin(), dims.end(), [&](size_t a, size_t b) { return strides[a] < strides[b]; });
  for (size_t i = 1; i < dims.size(); ++i)
    if (strides[dims[i]] < strides[dims[i - 1]] * sizes[dims[i - 1]]) return false;
  return true;
}

}  // namespace

std::vector<Tensor> empty_like_siblings(const std::vector<Tensor>& views) {
  const size_t n = views.size();
  if (n < 2) return {};
  const Tensor& first = views[0];
  if (!first.defined() || first.numel() == 0) return {};
  for (const Tensor& v : views)
    if (!v.defined() || !v.storage().is_same(first.storage()) || v.dtype() != first.dtype() ||
        v.sizes() != first.sizes() || v.strides() != first.strides())
      return {};
  std::vector<int64_t> offsets;
  for (const Tensor& v : views) offsets.push_back(v.storage_offset());
  std::vector<int64_t> sorted = offsets;
  std::sort(sorted.begin(), sorted.end());
  const int64_t delta = sorted[1] - sorted[0];
  if (delta <= 0) return {};
  for (size_t i = 2; i < n; ++i)
    if (sorted[i] - sorted[i - 1] != delta) return {};
  const Shape& sizes = first.sizes();
  const Shape& strides = first.strides();
  if (!non_overlapping(sizes, strides)) return {};
  // the dim whose stride * size is the spacing; every larger stride leaves room for n pieces
  int64_t step = 0;  // that dim's stride (positive, as non_overlapping found them)
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] > 1 && strides[d] * sizes[d] == delta) step = strides[d];
  if (step == 0) return {};
  int64_t span = 1;  // items from the first view's first to the last view's last
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] > 1 && strides[d] > step && strides[d] < static_cast<int64_t>(n) * delta)
      return {};
    span += (sizes[d] - 1) * strides[d];
  }
  span += static_cast<int64_t>(n - 1) * delta;
  if (span != static_cast<int64_t>(n) * first.numel()) return {};  // holes: not one dense block
  Tensor buffer = Tensor::empty({span}, first.dtype(), first.device());
  std::vector<Tensor> out;
  for (int64_t o : offsets)
    out.push_back(buffer.as_strided(sizes, strides, buffer.storage_offset() + o - sorted[0]));
  return out;
}

Tensor already_joined(const std::vector<Tensor>& pieces, const Shape& sizes, const Shape& strides,
                      int64_t dim, const std::vector<int64_t>& starts, bool dim_dropped) {
  if (pieces.empty() || pieces.size() != starts.size()) return Tensor();
  const Tensor& first = pieces[0];
  if (!first.defined() || starts[0] != 0 || !non_overlapping(sizes, strides)) return Tensor();
  if (first.storage().use_count() != static_cast<long>(pieces.size())) return Tensor();
  for (size_t k = 0; k < pieces.size(); ++k) {
    const Tensor& p = pieces[k];
    const int64_t end = k + 1 < starts.size() ? starts[k + 1] : sizes[dim];
    Shape piece = sizes, piece_strides = strides;
    if (dim_dropped) {  // select's pieces: one place each, the dim gone
      if (end - starts[k] != 1) return Tensor();
      piece.erase(piece.begin() + dim);
      piece_strides.erase(piece_strides.begin() + dim);
    } else {
      piece[dim] = end - starts[k];
    }
    if (!p.defined() || !p.storage().is_same(first.storage()) || p.dtype() != first.dtype() ||
        p.sizes() != piece || p.strides() != piece_strides ||
        p.storage_offset() - first.storage_offset() != starts[k] * strides[dim])
      return Tensor();
  }
  return first.as_strided(sizes, strides, first.storage_offset());
}

}  // namespace genesis::ops
