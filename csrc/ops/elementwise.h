#pragma once
// Elementwise ops with broadcasting and PyTorch's type promotion, on any device. Note
// [Elementwise front end]: promote (result_type), cast tensor inputs that differ from the
// compute dtype, broadcast as views, allocate a contiguous output, then hand one loop to the
// device (csrc/cpu/elementwise.h, csrc/cuda/elementwise.h).
#include <optional>

#include "core/scalar.h"
#include "core/tensor.h"
#include "vocab/op_codes.h"

namespace genesis::ops {

// A tensor or a Python number. An lvalue tensor is borrowed, not copied (ops run on the hot path
// of every operator call), so it must outlive the Operand; a temporary is kept inside.
class Operand {
 public:
  Operand(const Tensor& t) : borrowed_(&t) {}    // NOLINT: implicit by design
  Operand(Tensor&& t) : owned_(std::move(t)) {}  // NOLINT
  Operand(Scalar s) : scalar(s) {}               // NOLINT
  const Tensor& tensor() const { return borrowed_ != nullptr ? *borrowed_ : owned_; }
  bool is_scalar() const { return borrowed_ == nullptr && !owned_.defined(); }

  Scalar scalar;

 private:
  Tensor owned_;  // undefined for a number or a borrowed tensor
  const Tensor* borrowed_ = nullptr;
};

// torch.result_type: tensors with dims decide within a category; 0-d tensors and numbers only
// lift the category (int tensor + 2.5 -> float32, uint8 tensor + 1000 -> uint8).
ScalarType result_type(const Operand* operands, int n);
ScalarType result_type(const Operand* const* operands, int n);
bool can_cast(ScalarType from, ScalarType to);

Tensor binary(BinaryOp op, const Operand& a, const Operand& b, const char* name);
// self = self op other; raises when the result dtype cannot be stored in self's.
void binary_(BinaryOp op, const Tensor& self, const Operand& other, const char* name);
Tensor unary(UnaryOp op, const Tensor& a, const char* name);
void unary_(UnaryOp op, const Tensor& self, const char* name);
Tensor where(const Tensor& cond, const Operand& a, const Operand& b);
Tensor clamp(const Tensor& t, const std::optional<Operand>& min, const std::optional<Operand>& max);
void clamp_(const Tensor& t, const std::optional<Operand>& min, const std::optional<Operand>& max,
            const char* name = "clamp_");

// The same memory seen with `shape` (NumPy broadcasting; the caller checked it fits).
Tensor broadcast_to(const Tensor& t, const Shape& shape);

}  // namespace genesis::ops
