// Backward formulas of joining (cat, stack and the *stack family) and splitting (split, chunk,
// tensor_split, unbind): a joined result's gradient is cut back into the pieces; the pieces of a
// split are views (narrow, select) of their input, with the views' formulas.
#include "ops/join.h"
#include "autograd/formula_helpers.h"
#include "ops/sibling_views.h"
#include "ops/split.h"

namespace genesis::ag {

namespace {

int64_t wrap(int64_t dim, int64_t ndim) { return dim < 0 ? dim + ndim : dim; }

// `out`, the inputs joined along dim d of `out`, input i taking lengths[i] places there: its
// gradient is that slice of g, in the input's own shape.
Tensor joined(const char* name, const std::vector<Tensor>& inputs, Tensor out, int64_t d,
              std::vector<int64_t> lengths) {
  if (!autograd::is_differentiable_dtype(out.dtype())) return out;
  Recorder r = record(
      name, inputs, [d, lengths](const FormulaNode& n, const Grads& g, const std::vector<Tensor>&) {
        Grads r(lengths.size());
        int64_t offset = 0;
        for (size_t i = 0; i < lengths.size(); ++i) {
          const autograd::TensorInfo& info = n.input_info[i];
          if (n.needs_grad(i)) {
            bool empty = lengths[i] == 0 || g[0].numel() == 0;
            r[i] = empty ? zeros_like_info(info)
                         : reshape(narrow(g[0], d, offset, lengths[i]), info.sizes);
          }
          offset += lengths[i];
        }
        return r;
      });
  if (r) set_history(r, {&out});
  return out;
}

// The length along d that each input takes in the result, after `shape_of` made it a piece.
template <typename F>
std::vector<int64_t> lengths_of(const std::vector<Tensor>& inputs, int64_t d, F shape_of) {
  std::vector<int64_t> lengths;
  for (const Tensor& t : inputs) {
    Shape s = shape_of(t);
    bool legacy_empty = s.size() == 1 && s[0] == 0;  // cat skips these (ops/join.cpp)
    lengths.push_back(legacy_empty || d >= static_cast<int64_t>(s.size()) ? 0 : s[d]);
  }
  return lengths;
}

Shape own(const Tensor& t) { return t.sizes(); }
Shape as_1d(const Tensor& t) { return t.ndim() >= 1 ? t.sizes() : Shape{1}; }
Shape as_2d(const Tensor& t) {
  if (t.ndim() >= 2) return t.sizes();
  return t.ndim() == 0 ? Shape{1, 1} : Shape{1, t.sizes()[0]};
}
Shape as_3d(const Tensor& t) {
  if (t.ndim() >= 3) return t.sizes();
  if (t.ndim() == 2) return Shape{t.sizes()[0], t.sizes()[1], 1};
  return t.ndim() == 1 ? Shape{1, t.sizes()[0], 1} : Shape{1, 1, 1};
}
Shape as_column(const Tensor& t) { return t.ndim() >= 2 ? t.sizes() : Shape{t.numel(), 1}; }

// Note [Split as one node]: split, split_with_sizes and chunk record one node for all their
// pieces, as PyTorch's SplitBackward0 and SplitWithSizesBackward0 do: its backward concatenates
// the pieces' gradients (zeros for a piece that got none) in one pass. Recorded as one narrow
// view each, the input's gradient was, per piece, a zeros tensor of the input's size with the
// piece's gradient copied in, and the engine summed them: for a transformer's qkv split three
// fills, three copies and two additions of the whole gradient where one cat does. The pieces
// stay views of the input (mark_view, each made again by a recorded narrow); as in PyTorch, an
// in-place op on one (or on a view of one) with grad mode on raises, since one node made them
// all. unbind's pieces are one node's too (UnbindBackward0, a stack); tensor_split keeps a view
// op a piece, as PyTorch's does.

// The pieces (views of t) as outputs of one node `name` whose formula joins their gradients;
// again(k) makes piece k from t with recorded ops.
template <typename Join, typename Again>
std::vector<Tensor> one_node_pieces(const char* name, const Tensor& t, std::vector<Tensor> pieces,
                                    Join join, Again again) {
  Recorder r =
      record(name, {&t}, [join](const FormulaNode&, const Grads& g, const std::vector<Tensor>&) {
        return Grads{join(g)};
      });
  if (!r) return pieces;
  std::vector<Tensor*> outs;
  for (Tensor& p : pieces) outs.push_back(&p);
  set_history(r, outs);
  for (size_t k = 0; k < pieces.size(); ++k) {
    mark_view(pieces[k], t, again(static_cast<int64_t>(k)));
    if (pieces[k].storage().is_same(t.storage())) {
      AutogradMeta& m = autograd::meta_of(pieces[k]);
      m.multi_output_node = name;
      m.multi_output_index = static_cast<int>(k);
    }
  }
  return pieces;
}

// split's pieces along dim, joined back by cat.
std::vector<Tensor> split_pieces(const char* name, const Tensor& t, std::vector<Tensor> pieces,
                                 int64_t dim) {
  const int64_t d = wrap(dim, t.ndim());
  std::vector<int64_t> starts, lengths;
  for (const Tensor& p : pieces) {
    starts.push_back(starts.empty() ? 0 : starts.back() + lengths.back());
    lengths.push_back(p.sizes()[d]);
  }
  // gradients already in one buffer laid out as t (Note [Sibling views]) are joined as they lie
  return one_node_pieces(
      name, t, std::move(pieces),
      [d, starts, sizes = t.sizes(), strides = t.strides()](const Grads& g) {
        Tensor whole = ops::already_joined(g, sizes, strides, d, starts);
        return whole.defined() ? whole : cat(g, d);
      },
      [d, starts, lengths](int64_t k) {
        return [d, start = starts[k], length = lengths[k]](const Tensor& z) {
          return narrow(z, d, start, length);
        };
      });
}

// Pieces of a split, as views of t made by the recorded narrow.
std::vector<Tensor> as_views(const Tensor& t, const std::vector<Tensor>& pieces, int64_t dim) {
  int64_t d = wrap(dim, t.ndim());
  std::vector<Tensor> views;
  int64_t offset = 0;
  for (const Tensor& p : pieces) {
    views.push_back(narrow(t, d, offset, p.sizes()[d]));
    offset += p.sizes()[d];
  }
  return views;
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  Tensor out = ops::cat(tensors, dim);
  if (!autograd::any_requires_grad(tensors)) return out;
  int64_t d = out.ndim() == 0 ? 0 : wrap(dim, out.ndim());
  return joined("CatBackward0", tensors, out, d, lengths_of(tensors, d, own));
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  Tensor out = ops::stack(tensors, dim);
  if (!autograd::any_requires_grad(tensors)) return out;
  return joined("StackBackward0", tensors, out, wrap(dim, out.ndim()),
                std::vector<int64_t>(tensors.size(), 1));
}

Tensor hstack(const std::vector<Tensor>& tensors) {
  Tensor out = ops::hstack(tensors);
  if (!autograd::any_requires_grad(tensors)) return out;
  int64_t d = out.ndim() == 1 ? 0 : 1;
  return joined("CatBackward0", tensors, out, d, lengths_of(tensors, d, as_1d));
}

Tensor vstack(const std::vector<Tensor>& tensors) {
  Tensor out = ops::vstack(tensors);
  if (!autograd::any_requires_grad(tensors)) return out;
  return joined("CatBackward0", tensors, out, 0, lengths_of(tensors, 0, as_2d));
}

Tensor dstack(const std::vector<Tensor>& tensors) {
  Tensor out = ops::dstack(tensors);
  if (!autograd::any_requires_grad(tensors)) return out;
  return joined("CatBackward0", tensors, out, 2, lengths_of(tensors, 2, as_3d));
}

Tensor column_stack(const std::vector<Tensor>& tensors) {
  Tensor out = ops::column_stack(tensors);
  if (!autograd::any_requires_grad(tensors)) return out;
  return joined("CatBackward0", tensors, out, 1, lengths_of(tensors, 1, as_column));
}

std::vector<Tensor> split_with_sizes(const Tensor& t, const Shape& sizes, int64_t dim) {
  std::vector<Tensor> pieces = ops::split_with_sizes(t, sizes, dim);
  if (!autograd::any_requires_grad({&t})) return pieces;
  return split_pieces("SplitWithSizesBackward0", t, std::move(pieces), dim);
}

std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim) {
  std::vector<Tensor> pieces = ops::split(t, split_size, dim);
  if (!autograd::any_requires_grad({&t})) return pieces;
  return split_pieces("SplitBackward0", t, std::move(pieces), dim);
}

std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim) {
  std::vector<Tensor> pieces = ops::chunk(t, chunks, dim);
  if (!autograd::any_requires_grad({&t})) return pieces;
  return split_pieces("SplitBackward0", t, std::move(pieces), dim);
}

std::vector<Tensor> tensor_split(const Tensor& t, int64_t sections, int64_t dim) {
  std::vector<Tensor> pieces = ops::tensor_split(t, sections, dim);
  if (!autograd::any_requires_grad({&t})) return pieces;
  return as_views(t, pieces, dim);
}

std::vector<Tensor> tensor_split_at(const Tensor& t, const Shape& indices, int64_t dim) {
  std::vector<Tensor> pieces = ops::tensor_split_at(t, indices, dim);  // checks dim
  if (!autograd::any_requires_grad({&t})) return pieces;
  int64_t d = wrap(dim, t.ndim());
  std::vector<Tensor> views;
  for (auto [start, length] : ops::tensor_split_ranges(t.sizes()[d], indices))
    views.push_back(narrow(t, d, start, length));  // the ranges may overlap: not as_views
  return views;
}

std::vector<Tensor> unbind(const Tensor& t, int64_t dim) {
  std::vector<Tensor> pieces = ops::unbind(t, dim);
  if (!autograd::any_requires_grad({&t})) return pieces;
  const int64_t d = wrap(dim, t.ndim());
  std::vector<int64_t> starts(pieces.size());
  for (size_t k = 0; k < starts.size(); ++k) starts[k] = static_cast<int64_t>(k);
  // gradients already in one buffer laid out as t (Note [Sibling views]) are stacked as they lie
  return one_node_pieces(
      "UnbindBackward0", t, std::move(pieces),
      [d, starts, sizes = t.sizes(), strides = t.strides()](const Grads& g) {
        Tensor whole = ops::already_joined(g, sizes, strides, d, starts, true);
        return whole.defined() ? whole : stack(g, d);
      },
      [d](int64_t k) { return [d, k](const Tensor& z) { return select(z, d, k); }; });
}

}  // namespace genesis::ag
