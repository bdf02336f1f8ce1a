// Backward of the reducing and scattering writers: scatter_reduce and index_reduce (sum, mean,
// prod, amax, amin), index_put with a list of index tensors and put (accumulating or not), and
// masked_scatter. The formulas are PyTorch's: the written places' gradient goes to the items
// written there (amax/amin: shared evenly among the items equal to the result; prod: the
// product of the others, exact where an item is zero), the rest of it to self.
#include <functional>

#include "autograd/formula_helpers.h"
#include "core/errors.h"
#include "index/index_item.h"
#include "ops/convert.h"
#include "ops/creation.h"
#include "ops/index_ops.h"
#include "ops/index_reduce.h"

namespace genesis::ag {

namespace {

using S = const std::vector<Tensor>&;

Tensor filled_like(const Tensor& t, double v) {
  return ops::full(t.sizes(), Scalar(v), t.dtype(), t.device());
}

// A bool tensor as 0/1 in `like`'s dtype.
Tensor as_numbers(const Tensor& flags, const Tensor& like) {
  return ops::to(flags, like.dtype(), like.device(), false);
}

// `part` (shaped as index) placed at the start of zeros shaped as `sizes` (scatter's source
// may be larger than its index; only the index-shaped part of it is written).
Tensor embed_in_zeros(const Tensor& part, const Tensor& like) {
  if (part.sizes() == like.sizes()) return part;
  IndexList key;
  for (int64_t size : part.sizes()) key.push_back(IndexItem::make_slice(0, size, 1));
  return ag::index_put(filled_like(like, 0.0), key, Operand(part));
}

// How a reducing writer maps the places of self to the items of its source.
struct Placement {
  std::function<Tensor(const Tensor&)> pick;  // self-shaped -> the values at each item's place
  std::function<Tensor(const Tensor&, const Tensor&)> add_into;  // (self-shaped, items)
  std::function<Tensor(const Tensor&, double)> fill;  // self-shaped, written places set to v
  std::function<Tensor(const Tensor&, const Tensor&)> again;  // the op on (self, items)
};

Grads reduce_grads(const FormulaNode& n, const Placement& p, const std::string& reduce,
                   bool include_self, const Tensor& g, const Tensor& self, const Tensor& src,
                   const Tensor& result) {
  Grads r(2);
  if (reduce == "sum") {
    if (n.needs_grad(0)) r[0] = include_self ? g : p.fill(g, 0.0);
    if (n.needs_grad(1)) r[1] = p.pick(g);
  } else if (reduce == "mean") {
    Tensor count = p.add_into(filled_like(self, include_self ? 1.0 : 0.0), filled_like(src, 1.0));
    count = ops::binary(ops::BinaryOp::Maximum, count, Scalar(1.0), "scatter_reduce");
    Tensor share = div(g, count);
    if (n.needs_grad(0)) r[0] = include_self ? share : p.fill(share, 0.0);
    if (n.needs_grad(1)) r[1] = p.pick(share);
  } else if (reduce == "amax" || reduce == "amin") {
    // Every item equal to the result (self included) takes an equal share.
    Tensor self_is = as_numbers(equal(self, result), g);
    if (!include_self) self_is = p.fill(self_is, 0.0);
    Tensor src_is = as_numbers(equal(src, p.pick(result)), g);
    Tensor share = div(g, p.add_into(self_is, src_is));
    if (n.needs_grad(0)) r[0] = mul(self_is, share);
    if (n.needs_grad(1)) r[1] = mul(src_is, p.pick(share));
  } else {  // prod
    if (n.needs_grad(0)) {
      if (include_self) {
        // The product of the others: the result with self's zeros taken as 1, over self.
        Tensor masked = ag::where(equal(self, num(0.0)), num(1.0), self);
        r[0] = div(mul(g, p.again(masked, src)), masked);
      } else {
        r[0] = p.fill(g, 0.0);
      }
    }
    if (n.needs_grad(1)) {
      // An item that is the only zero at its place: the product of the others, computed again
      // with it as 1; any other item: result / item (0 when another zero is there).
      Tensor zero = equal(src, num(0.0));
      Tensor zeros_at = p.pick(p.add_into(filled_like(self, 0.0), as_numbers(zero, g)));
      Tensor single = ops::binary(ops::BinaryOp::BitAnd, zero, equal(zeros_at, num(1.0)), "prod");
      Tensor without = p.again(self, ag::where(single, num(1.0), src));
      Tensor safe_src = ag::where(zero, num(1.0), src);
      r[1] = ag::where(single, p.pick(mul(g, without)), div(p.pick(mul(g, result)), safe_src));
    }
  }
  return r;
}

}  // namespace

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self, const char* op) {
  Tensor out = ops::clone(self);
  ops::scatter_reduce_(out, dim, index, src, reduce, include_self, op);
  Recorder r = record(
      "ScatterReduceBackward0", {&self, &src},
      [dim, reduce, include_self](const FormulaNode& n, const Grads& g, S s) {
        const Tensor& index = s[2];
        Placement p{[&](const Tensor& t) { return gather(t, dim, index); },
                    [&](const Tensor& base, const Tensor& v) {
                      return scatter_add(base, dim, index, v, "scatter_reduce");
                    },
                    [&](const Tensor& t, double v) { return scatter(t, dim, index, Scalar(v)); },
                    [&](const Tensor& t, const Tensor& v) {
                      return scatter_reduce(t, dim, index, v, reduce, include_self,
                                            "scatter_reduce");
                    }};
        // Only src's index-shaped part is read: the items past it get zero.
        Tensor src_part = s[1];
        if (src_part.sizes() != index.sizes()) {
          for (int64_t d = 0; d < index.ndim(); ++d)
            src_part = narrow(src_part, d, 0, index.sizes()[d]);
        }
        Grads r = reduce_grads(n, p, reduce, include_self, g[0], s[0], src_part, s[3]);
        if (r[1].defined()) r[1] = embed_in_zeros(r[1], s[1]);
        return r;
      });
  if (!r) return out;
  r.save(self);
  r.save(src);
  r.save(index);
  r.save_output(out);
  set_history(r, {&out});
  return out;
}

Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const std::string& reduce, bool include_self, const char* op) {
  Tensor out = ops::clone(self);
  ops::index_reduce_(out, dim, index, source, reduce, include_self, op);
  Recorder r = record(
      "IndexReduceBackward0", {&self, &source},
      [dim, reduce, include_self](const FormulaNode& n, const Grads& g, S s) {
        const Tensor& index = s[2];
        Placement p{[&](const Tensor& t) { return index_select(t, dim, index); },
                    [&](const Tensor& base, const Tensor& v) {
                      return index_add(base, dim, index, v, Scalar(1.0), "index_reduce");
                    },
                    [&](const Tensor& t, double v) { return index_fill(t, dim, index, Scalar(v)); },
                    [&](const Tensor& t, const Tensor& v) {
                      return index_reduce(t, dim, index, v, reduce, include_self, "index_reduce");
                    }};
        return reduce_grads(n, p, reduce, include_self, g[0], s[0], s[1], s[3]);
      });
  if (!r) return out;
  r.save(self);
  r.save(source);
  r.save(index);
  r.save_output(out);
  set_history(r, {&out});
  return out;
}

Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                 bool accumulate, const char* op) {
  Tensor out = ops::clone(self);
  ops::index_put_(out, indices, values, accumulate, op);
  if (autograd::any_requires_grad({&self, &values}))
    record_index_put(out, self, &values, ops::index_put_key(indices, op), accumulate);
  return out;
}

Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate,
           const char* op) {
  Tensor out = ops::clone(self);
  ops::put_(out, index, source, accumulate, op);
  Shape source_sizes = source.sizes();
  Recorder r = record("PutBackward0", {&self, &source},
                      [accumulate, source_sizes](const FormulaNode& n, const Grads& g, S s) {
                        Grads r(2);
                        if (n.needs_grad(0)) {
                          Tensor zeros =
                              ops::full(s[0].sizes(), Scalar(0.0), g[0].dtype(), g[0].device());
                          r[0] = accumulate ? g[0] : put(g[0], s[0], zeros, false, "put");
                        }
                        if (n.needs_grad(1)) r[1] = reshape(take(g[0], s[0]), source_sizes);
                        return r;
                      });
  if (!r) return out;
  r.save(index);
  set_history(r, {&out});
  return out;
}

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  Tensor out = ops::clone(self);
  ops::masked_scatter_(out, mask, source);
  Shape source_sizes = source.sizes();
  Recorder r = record("MaskedScatterBackward0", {&self, &source},
                      [source_sizes](const FormulaNode& n, const Grads& g, S s) {
                        // The masked places' gradients, in order, are source's first items.
                        Grads r(2);
                        if (n.needs_grad(0)) r[0] = masked_fill(g[0], s[0], Scalar(0.0));
                        if (n.needs_grad(1)) {
                          Tensor taken = masked_select(g[0], s[0]);
                          int64_t total = 1;
                          for (int64_t d : source_sizes) total *= d;
                          if (taken.numel() < total) {
                            Tensor rest = ops::full({total - taken.numel()}, Scalar(0.0),
                                                    taken.dtype(), taken.device());
                            taken = cat({taken, rest}, 0);
                          }
                          r[1] = reshape(taken, source_sizes);
                        }
                        return r;
                      });
  if (!r) return out;
  r.save(mask);
  set_history(r, {&out});
  return out;
}

}  // namespace genesis::ag
