#pragma once
// Helpers shared by the index-family ops (ops/index_ops.cpp, ops/index_reduce.cpp): argument
// checks and the index keys they run through the planner (Note [Index-family ops]).
#include <string>

#include "core/errors.h"
#include "core/index_check.h"
#include "core/tensor.h"
#include "index/index_item.h"

namespace genesis::ops::detail {

// Runs f, renaming a genesis error raised inside it after `op` ("[setitem] ..." -> "[op] ..."),
// and a deferred CUDA index error too (Note [Deferred index errors] in core/index_check.h).
template <typename F>
decltype(auto) renamed(const char* op, F&& f) {
  IndexOpScope scope(op);
  try {
    return f();
  } catch (const Error& e) {
    std::string m = e.what();
    if (!m.empty() && m[0] == '[') {
      size_t close = m.find("] ");
      if (close != std::string::npos) m = m.substr(close + 2);
    }
    throw_error(e.kind(), op, m);
  }
}

// An int64 (or with int32_too also int32) index on input's device: TypeError / RuntimeError.
void check_index(const Tensor& input, const Tensor& index, bool int32_too, const char* op);
void check_same_device(const Tensor& a, const Tensor& b, const char* what, const char* op);
// The 1-d index of index_select / index_copy / index_add ... (a 0-d index counts as one).
Tensor vector_index(const Tensor& input, const Tensor& index, bool int32_too, const char* op);
// (:, ..., :, index) with `index` at dim `dim`.
IndexList at_dim(int64_t dim, const Tensor& index);
// The key of gather and scatter_: `index` at dim, aranges of index's sizes elsewhere.
IndexList gather_key(const Tensor& index, int64_t dim);
// gather's and scatter_'s shape rules: the same number of dims, and index no larger than
// `other` in every dim (all_dims) or every dim but dim.
void check_gather_shapes(const Tensor& index, const Tensor& other, int64_t dim, bool all_dims,
                         const char* what, const char* op);
// The checks of every in-place writer: writable, and no two elements on one memory location.
void check_target(const Tensor& self, const char* op);
// A 0-d tensor seen as a 1-d one of one element.
Tensor at_least_1d(const Tensor& t);

}  // namespace genesis::ops::detail
