// x[key] under autograd: the gradient is added into zeros at the places the key picked.
#include "ops/indexing.h"
#include "autograd/formula_helpers.h"
#include "autograd/grad_mode.h"
#include "ops/convert.h"
#include "ops/creation.h"

namespace genesis::ag {

namespace {
// zeros of `in_sizes` plus g at x[key], duplicates adding up (a recorded op whose gradient
// is x[key] again). The key's index tensors are integers outside any graph: the formulas
// capture the key itself.
Tensor index_scatter(const Tensor& g, const Shape& in_sizes, const IndexList& key) {
  Tensor z = ops::full(in_sizes, Scalar(0.0), g.dtype(), g.device());
  ops::index_put(z, key, g, ops::ScatterReduce::Sum);
  Recorder r = record("IndexPutBackward0", {&g},
                      [key](const FormulaNode&, const Grads& gg, const std::vector<Tensor>&) {
                        return Grads{index_get(gg[0], key)};
                      });
  if (r) set_history(r, {&z});
  return z;
}

// PyTorch's node name for x[key]: the last basic step taken, or IndexBackward0 when the key
// has index tensors or bools.
const char* index_node_name(const IndexList& key) {
  const char* name = "AliasBackward0";
  for (const IndexItem& it : key) {
    switch (it.kind) {
      case IndexItem::Kind::Tensor:
      case IndexItem::Kind::Boolean:
        return "IndexBackward0";
      case IndexItem::Kind::Integer:
        name = "SelectBackward0";
        break;
      case IndexItem::Kind::Slice:
        name = "SliceBackward0";
        break;
      case IndexItem::Kind::None:
        name = "UnsqueezeBackward0";
        break;
      case IndexItem::Kind::Ellipsis:
        break;
    }
  }
  return name;
}
}  // namespace

Tensor index_get(const Tensor& x, const IndexList& key) {
  if (!autograd::any_requires_grad({&x})) {
    Tensor out = ops::index_get(x, key);
    note_view_without_grad(out, x);
    return out;
  }
  Tensor out = ops::index_get(x, key);
  Shape in_sizes = x.sizes();
  Recorder r =
      record(index_node_name(key), {&x},
             [in_sizes, key](const FormulaNode&, const Grads& g, const std::vector<Tensor>&) {
               return Grads{index_scatter(g[0], in_sizes, key)};
             });
  set_history(r, {&out});
  mark_view(out, x, [key](const Tensor& base) { return index_get(base, key); });
  return out;
}

void record_index_put(Tensor& out, const Tensor& self, const Tensor* value, const IndexList& key,
                      bool accumulate) {
  // The written places take their gradient from value (summed to its shape by the engine);
  // the rest of g goes to self (all of it when the values were added).
  Recorder r =
      record("IndexPutBackward0", {&self, value},
             [key, accumulate](const FormulaNode& n, const Grads& g, const std::vector<Tensor>&) {
               Grads r(2);
               if (n.needs_grad(0))
                 r[0] = accumulate ? g[0] : ag::index_put(g[0], key, Scalar(0.0));
               if (n.needs_grad(1)) r[1] = index_get(g[0], key);
               return r;
             });
  if (r) set_history(r, {&out});
}

Tensor index_put(const Tensor& self, const IndexList& key, const Operand& value) {
  Tensor out = ops::clone(self);
  if (value.is_scalar())
    ops::index_fill(out, key, value.scalar);
  else
    ops::index_put(out, key, value.tensor());
  record_index_put(out, self, value.is_scalar() ? nullptr : &value.tensor(), key, false);
  return out;
}

}  // namespace genesis::ag
