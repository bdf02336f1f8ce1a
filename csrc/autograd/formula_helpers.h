#pragma once
// Small differentiable building blocks the formulas share (autograd/*.cpp).
#include "autograd/node.h"
#include "autograd/ops.h"
#include "core/scalar.h"
#include "ops/elementwise.h"

namespace genesis::ag {

using autograd::FormulaNode;
using autograd::Grads;
using autograd::record;
using autograd::Recorder;
using autograd::set_history;

inline Tensor add(const Operand& a, const Operand& b) {
  return ag::binary(BinaryOp::Add, a, b, "add");
}
inline Tensor sub(const Operand& a, const Operand& b) {
  return ag::binary(BinaryOp::Sub, a, b, "sub");
}
inline Tensor mul(const Operand& a, const Operand& b) {
  return ag::binary(BinaryOp::Mul, a, b, "mul");
}
inline Tensor div(const Operand& a, const Operand& b) {
  return ag::binary(BinaryOp::Div, a, b, "div");
}
inline Tensor neg(const Tensor& a) { return ag::unary(UnaryOp::Neg, a, "neg"); }
inline Scalar num(double v) { return Scalar(v); }
// t converted (recorded) to dtype, or t itself when it has it or is undefined.
inline Tensor in_dtype(const Tensor& t, ScalarType dtype) {
  return t.defined() && t.dtype() != dtype ? ag::to(t, dtype, t.device(), false) : t;
}
// Marks `out` as a view of `base` when they share memory; `again` makes the same view of any
// tensor shaped as base, with recorded ops (Note [Views and autograd]).
void mark_view(const Tensor& out, const Tensor& base, std::function<Tensor(const Tensor&)> again);
// Records `out` = self with value written (or added, `accumulate`) at key: index_put's node,
// shared by x[key] = v and Tensor.index_put (autograd/indexing.cpp).
void record_index_put(Tensor& out, const Tensor& self, const Tensor* value, const IndexList& key,
                      bool accumulate);
// Flags `out`, a view of `base` made while nothing was recorded, when base is part of a graph
// (or is such a view itself): Note [Views made under no_grad].
void note_view_without_grad(const Tensor& out, const Tensor& base);
// The reduced dims of a tensor of `ndim` dims as flags (dims absent or empty: all of them).
std::vector<bool> reduced_dims(const Dims& dims, int64_t ndim);
// How many elements each result of a reduction over `dims` combines.
int64_t reduced_count(const Shape& in_sizes, const Dims& dims);
// `g`, the gradient of a reduction's result, with the reduced dims back as size 1 (what it is
// already with keepdim): ready to broadcast against the input.
Tensor keep_reduced_dims(const Tensor& g, const Shape& in_sizes, const Dims& dims, bool keepdim);
// Elementwise tests (bool results, outside any graph).
inline Tensor equal(const Operand& a, const Operand& b) {
  return ops::binary(BinaryOp::Eq, a, b, "eq");
}
inline Tensor is_nan(const Tensor& a) { return ops::binary(BinaryOp::Ne, a, a, "isnan"); }
// `out` recorded as `t` itself, the gradient passing through unchanged (casts, copies, a scan
// of a 0-d tensor); an `out` that is `t` (nothing was copied) is returned as it is.
Tensor pass_through(const char* name, const Tensor& t, Tensor out);
// Zeros shaped as an input of the node (a gradient that is zero by definition).
Tensor zeros_like_info(const autograd::TensorInfo& info);

}  // namespace genesis::ag
