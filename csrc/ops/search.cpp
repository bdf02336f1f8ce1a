#include "ops/search.h"

#include "core/errors.h"
#include "core/shape.h"
#include "cpu/search.h"
#include "cuda/search.h"
#include "ops/convert.h"
#include "ops/elementwise.h"
#include "ops/index_ops.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

Tensor search(const Tensor& sorted, const Tensor& values, bool out_int32, bool right,
              const std::optional<Tensor>& sorter, const char* op) {
  GENESIS_CHECK(sorted.device() == values.device(), op, "expected the values on ",
                sorted.device().str(), ", but they are on ", values.device().str());
  GENESIS_CHECK(sorted.ndim() >= 1, op, "expected a sorted sequence of at least 1 dim");
  bool one_row = sorted.ndim() == 1;
  if (!one_row) {
    Shape lead(sorted.sizes().begin(), sorted.sizes().end() - 1);
    Shape value_lead =
        values.ndim() == 0 ? Shape{} : Shape(values.sizes().begin(), values.sizes().end() - 1);
    GENESIS_CHECK(values.ndim() == sorted.ndim() && lead == value_lead, op,
                  "the sorted sequence must be 1-d or share all but its last dim with the values, "
                  "but got shapes ",
                  shape_str(sorted.sizes()), " and ", shape_str(values.sizes()));
  }
  Tensor sequence = sorted;
  if (sorter) {
    GENESIS_CHECK_TYPE(sorter->dtype() == ScalarType::Int64, op,
                       "expected a sorter of dtype int64, but got ",
                       scalar_type_name(sorter->dtype()));
    GENESIS_CHECK(sorter->sizes() == sorted.sizes() && sorter->device() == sorted.device(), op,
                  "expected a sorter of the sorted sequence's shape and device");
    sequence = gather(sorted, -1, *sorter);
  }
  Operand a(sequence), b(values);
  const Operand* both[] = {&a, &b};
  ScalarType common = result_type(both, 2);
  Tensor s = contiguous(to(sequence, common, sequence.device(), false));
  Tensor v = contiguous(to(values, common, values.device(), false));
  Tensor out = Tensor::empty(values.sizes(), out_int32 ? ScalarType::Int32 : ScalarType::Int64,
                             values.device());
  if (v.is_cuda())
    cuda::search_sorted(s, v, out, right);
  else
    cpu::search_sorted(s, v, out, right);
  return out;
}

}  // namespace

Tensor searchsorted(const Tensor& sorted, const Tensor& values, bool out_int32, bool right,
                    const std::optional<Tensor>& sorter) {
  return search(sorted, values, out_int32, right, sorter, "searchsorted");
}

Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32, bool right) {
  GENESIS_CHECK(boundaries.ndim() == 1, "bucketize", "expected 1-d boundaries, but got ",
                boundaries.ndim(), " dims");
  return search(boundaries, input, out_int32, right, std::nullopt, "bucketize");
}

}  // namespace genesis::ops
