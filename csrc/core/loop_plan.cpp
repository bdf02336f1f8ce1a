#include "core/loop_plan.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

namespace genesis {

LoopPlan plan_loop(const Shape& sizes, const Shape* const* element_strides,
                   const int64_t* itemsizes, int noperands) {
  LoopPlan plan;
  plan.noperands = noperands;
  plan.numel = numel_of(sizes);
  if (plan.numel == 0) return plan;

  // Keep dims that iterate, innermost first.
  std::vector<int64_t> dims;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d)
    if (sizes[d] != 1) dims.push_back(d);

  // Order by the output's stride, smallest first; ties keep the row-major order, then other
  // operands decide (a broadcast output dim has stride 0 and goes innermost-first harmlessly).
  std::stable_sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) {
    for (int k = 0; k < noperands; ++k) {
      int64_t sa = std::llabs((*element_strides[k])[a]), sb = std::llabs((*element_strides[k])[b]);
      if (sa != sb) return sa < sb;
    }
    return false;
  });

  for (int k = 0; k < noperands; ++k) plan.byte_strides[k].clear();
  for (int64_t d : dims) {
    bool merge = !plan.sizes.empty();
    for (int k = 0; k < noperands && merge; ++k) {
      int64_t inner_size = plan.sizes.back();
      int64_t inner_stride = plan.byte_strides[k].back();
      merge = (*element_strides[k])[d] * itemsizes[k] == inner_stride * inner_size;
    }
    if (merge) {
      plan.sizes.back() *= sizes[d];
    } else {
      plan.sizes.push_back(sizes[d]);
      for (int k = 0; k < noperands; ++k)
        plan.byte_strides[k].push_back((*element_strides[k])[d] * itemsizes[k]);
    }
  }
  if (plan.sizes.empty()) {  // a single element
    plan.sizes.push_back(1);
    for (int k = 0; k < noperands; ++k) plan.byte_strides[k].push_back(itemsizes[k]);
  }
  return plan;
}

Shape broadcast_strides(const Shape& sizes, const Shape& strides, const Shape& target) {
  Shape out(target.size(), 0);
  size_t lead = target.size() - sizes.size();
  for (size_t i = 0; i < sizes.size(); ++i)
    out[lead + i] = (sizes[i] == 1 && target[lead + i] != 1) ? 0 : strides[i];
  return out;
}

bool elementwise_is_flat(const Tensor& out, const Tensor* const* inputs, int ninputs) {
  if (!out.is_contiguous()) {
    // a channels-last result of channels-last operands (Note [Layouts that results keep]):
    // the same dense order everywhere, so the same flat loop
    if (!is_channels_last(out.sizes(), out.strides())) return false;
    for (int k = 0; k < ninputs; ++k) {
      const Tensor& t = *inputs[k];
      if (t.defined() && !(t.sizes() == out.sizes() && is_channels_last(t.sizes(), t.strides())))
        return false;
    }
    return true;
  }
  for (int k = 0; k < ninputs; ++k) {
    const Tensor& t = *inputs[k];
    if (t.defined() && !(t.sizes() == out.sizes() && t.is_contiguous())) return false;
  }
  return true;
}

LoopPlan plan_elementwise(const Tensor& out, const Tensor* const* inputs, int ninputs) {
  int n = ninputs + 1;
  int64_t items[kMaxLoopOperands];
  items[0] = static_cast<int64_t>(out.itemsize());
  for (int k = 0; k < ninputs; ++k)
    items[k + 1] = inputs[k]->defined() ? static_cast<int64_t>(inputs[k]->itemsize()) : 0;
  if (elementwise_is_flat(out, inputs, ninputs)) {
    LoopPlan plan;
    plan.noperands = n;
    plan.numel = out.numel();
    plan.sizes = {plan.numel};
    for (int k = 0; k < n; ++k) plan.byte_strides[k] = {items[k]};
    return plan;
  }
  Shape zeros(out.sizes().size(), 0);
  const Shape* strides[kMaxLoopOperands];
  strides[0] = &out.strides();
  for (int k = 0; k < ninputs; ++k)
    strides[k + 1] = inputs[k]->defined() ? &inputs[k]->strides() : &zeros;
  return plan_loop(out.sizes(), strides, items, n);
}

bool is_flat(const LoopPlan& plan, const int64_t* itemsizes) {
  if (plan.ndim() != 1) return false;
  for (int k = 0; k < plan.noperands; ++k)
    if (itemsizes[k] != 0 && plan.byte_strides[k][0] != itemsizes[k]) return false;
  return true;
}

LoopPlan plan_operands(const Tensor& first, std::initializer_list<const Tensor*> operands) {
  const Shape* strides[kMaxLoopOperands];
  int64_t items[kMaxLoopOperands];
  int n = 0;
  for (const Tensor* t : operands) {
    strides[n] = &t->strides();
    items[n] = static_cast<int64_t>(t->itemsize());
    ++n;
  }
  return plan_loop(first.sizes(), strides, items, n);
}

}  // namespace genesis
