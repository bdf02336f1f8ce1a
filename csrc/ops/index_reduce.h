#pragma once
// PyTorch's accumulating index-family ops (scatter_add, scatter(reduce=), scatter_reduce,
// index_add, index_reduce, put_): index keys run through the planner with an accumulating
// scatter (Note [Accumulating scatters] in vocab/scatter_reduce.h). Each writes `self` in place
// and returns nothing (the caller returns self).
#include <string>
#include <vector>

#include "core/scalar.h"
#include "core/tensor.h"
#include "index/index_item.h"

namespace genesis::ops {

void scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                  const char* op = "scatter_add_");
// scatter_(dim, index, src, reduce=...) with reduce "add" or "multiply"; src a tensor or a value.
void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
              const std::string& reduce, const char* op);
void scatter_value_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                    const std::string& reduce, const char* op);
// reduce: "sum", "prod", "mean", "amax" or "amin".
void scatter_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                     const std::string& reduce, bool include_self,
                     const char* op = "scatter_reduce_");
void index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                const Scalar& alpha, const char* op = "index_add_");
// reduce: "prod", "mean", "amax" or "amin".
void index_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                   const std::string& reduce, bool include_self, const char* op = "index_reduce_");
void put_(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate,
          const char* op = "put_");
// self[indices] = values (or += with accumulate): indices int64, int32, bool or uint8 (a mask).
void index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                bool accumulate, const char* op = "index_put_");
// index_put's indices as an index key (checked: int64, int32, bool, or uint8 taken as a mask).
IndexList index_put_key(const std::vector<Tensor>& indices, const char* op);

}  // namespace genesis::ops
